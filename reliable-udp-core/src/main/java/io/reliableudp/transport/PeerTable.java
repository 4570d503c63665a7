package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The peers of one node, and how many of them are server-side (accepted) connections, the number
 * {@link NodeConfig#maxConnections()} caps. Thread-safe.
 *
 * <p>A datagram finds its peer by its source address and, when several connections share that address
 * (a client node that opened more than one connection to the same server), by what the datagram names:
 * a frame or an accept by its connection id (the salt), a challenge or a denial by the client nonce it
 * echoes ({@link #find}). Accepted peers are also indexed by their salt, which this node chose and keeps
 * unique among them, so that a frame from an address the table does not know can still name its
 * connection ({@link #bySalt}): the start of a migration (docs/connection.md, "Migration"). Lookups
 * allocate nothing; adding, removing and moving a peer copies the small array of its address.
 */
final class PeerTable {

    private static final PeerDriver[] NONE = new PeerDriver[0];

    /** The peers of each remote address: nearly always one. Arrays are replaced, never changed. */
    private final ConcurrentHashMap<InetSocketAddress, PeerDriver[]> byAddress = new ConcurrentHashMap<>();
    /** Accepted peers by salt (the connection id this node chose). */
    private final ConcurrentHashMap<Integer, PeerDriver> bySalt = new ConcurrentHashMap<>();
    private final Set<PeerDriver> all = ConcurrentHashMap.newKeySet();
    private final AtomicInteger serverConnections = new AtomicInteger();

    /** A peer of {@code address} (the first of several), or null. */
    @Nullable PeerDriver get(InetSocketAddress address) {
        PeerDriver[] at = byAddress.get(address);
        return at == null ? null : at[0];
    }

    /** Every peer of {@code address}. */
    PeerDriver[] at(InetSocketAddress address) {
        PeerDriver[] at = byAddress.get(address);
        return at == null ? NONE : at.clone();
    }

    /**
     * The peer a datagram (not a request or response) from {@code from} belongs to: the only peer of the
     * address, or among several the one the datagram names (else the first, whose connection counts the
     * drop); null when the address has none.
     */
    @Nullable PeerDriver find(InetSocketAddress from, byte[] data, int length) {
        PeerDriver[] at = byAddress.get(from);
        if (at == null) {
            return null;
        }
        if (at.length == 1) {
            return at[0];
        }
        int salt = Connection.frameSalt(data, length);
        if (salt != 0) {
            for (PeerDriver p : at) {
                if (p.salt() == salt) {
                    return p;
                }
            }
        } else if (Connection.echoesNonce(data[0]) && length >= Connection.NONCE_OFFSET + Connection.NONCE_BYTES) {
            for (PeerDriver p : at) {
                byte[] nonce = p.clientNonce();
                if (nonce != null && Arrays.equals(nonce, 0, nonce.length, data, Connection.NONCE_OFFSET,
                        Connection.NONCE_OFFSET + Connection.NONCE_BYTES)) {
                    return p;
                }
            }
        }
        return at[0];
    }

    /** The accepted peer whose connection has {@code salt}, or null (boxes the key: not on the hot path). */
    @Nullable PeerDriver bySalt(int salt) {
        return salt == 0 ? null : bySalt.get(salt);
    }

    /**
     * Adds a client-side peer. Unless {@code another}, not when the address has a peer already: returns
     * the existing one then, or null when added.
     */
    @Nullable PeerDriver addClient(PeerDriver peer, boolean another) {
        PeerDriver[] existing = new PeerDriver[1];
        byAddress.compute(peer.address(), (a, at) -> {
            if (at == null) {
                return new PeerDriver[] {peer};
            }
            if (!another) {
                existing[0] = at[0];
                return at;
            }
            return append(at, peer);
        });
        if (existing[0] == null) {
            all.add(peer);
        }
        return existing[0];
    }

    /**
     * Adds an accepted peer with its salt unless the address has a live client peer (this node began
     * connecting to that address at the same moment: it stays, as the acceptor's own check before would
     * have kept it), or a live peer has that salt already (returns false then). Ended peers of the
     * address, not yet removed, are replaced.
     */
    boolean addServer(PeerDriver peer) {
        Integer salt = peer.salt();
        PeerDriver holder = bySalt.putIfAbsent(salt, peer);
        if (holder != null && holder.state() != PeerState.DISCONNECTED) {
            return false;
        }
        if (holder != null && !bySalt.replace(salt, holder, peer)) {
            return false;
        }
        boolean[] added = new boolean[1];
        PeerDriver[] gone = new PeerDriver[1];
        byAddress.compute(peer.address(), (a, at) -> {
            if (at == null) {
                added[0] = true;
                return new PeerDriver[] {peer};
            }
            PeerDriver[] live = NONE;
            for (PeerDriver p : at) {
                if (p.state() == PeerState.DISCONNECTED) {
                    gone[0] = p;
                    continue;
                }
                if (!p.serverSide()) {
                    return at; // a client peer of ours: refused
                }
                live = append(live, p);
            }
            added[0] = true;
            return append(live, peer);
        });
        if (!added[0]) {
            bySalt.remove(salt, peer);
            return false;
        }
        PeerDriver g = gone[0];
        if (g != null && all.remove(g)) {
            if (g.serverSide()) {
                serverConnections.decrementAndGet(); // its own remove will not find it any more
                bySalt.remove(g.salt(), g);
            }
        }
        all.add(peer);
        serverConnections.incrementAndGet();
        return true;
    }

    /** Moves a peer from {@code from} to {@code to} (the peer's lock is held: it does not end meanwhile). */
    void move(PeerDriver peer, InetSocketAddress from, InetSocketAddress to) {
        if (!all.contains(peer)) {
            return;
        }
        byAddress.computeIfPresent(from, (a, at) -> without(at, peer));
        byAddress.compute(to, (a, at) -> at == null ? new PeerDriver[] {peer} : append(at, peer));
    }

    /** Removes the peer (once). */
    void remove(PeerDriver peer) {
        if (!all.remove(peer)) {
            return;
        }
        byAddress.computeIfPresent(peer.address(), (a, at) -> without(at, peer));
        if (peer.serverSide()) {
            bySalt.remove(peer.salt(), peer);
            serverConnections.decrementAndGet();
        }
    }

    /** Forgets a peer that never counted as a server connection (a failed start, a peer that cannot even disconnect). */
    void forget(PeerDriver peer) {
        remove(peer);
    }

    /** Whether the peer is in the table. */
    boolean contains(PeerDriver peer) {
        return all.contains(peer);
    }

    Collection<PeerDriver> all() {
        return all;
    }

    int size() {
        return all.size();
    }

    int serverConnections() {
        return serverConnections.get();
    }

    private static PeerDriver[] append(PeerDriver[] at, PeerDriver peer) {
        PeerDriver[] n = Arrays.copyOf(at, at.length + 1);
        n[at.length] = peer;
        return n;
    }

    private static PeerDriver @Nullable [] without(PeerDriver[] at, PeerDriver peer) {
        int i = 0;
        while (i < at.length && at[i] != peer) {
            i++;
        }
        if (i == at.length) {
            return at;
        }
        if (at.length == 1) {
            return null;
        }
        PeerDriver[] n = new PeerDriver[at.length - 1];
        System.arraycopy(at, 0, n, 0, i);
        System.arraycopy(at, i + 1, n, i, at.length - i - 1);
        return n;
    }
}
