package io.reliableudp.transport;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The peers of one node by remote address, and how many of them are server-side (accepted)
 * connections, the number {@link NodeConfig#maxConnections()} caps. Thread-safe.
 */
final class PeerTable {

    private final ConcurrentHashMap<InetSocketAddress, PeerDriver> peers = new ConcurrentHashMap<>();
    private final AtomicInteger serverConnections = new AtomicInteger();

    @Nullable PeerDriver get(InetSocketAddress address) {
        return peers.get(address);
    }

    /** Adds a client-side peer unless the address has one: returns the existing one, or null when added. */
    @Nullable PeerDriver addClient(PeerDriver peer) {
        return peers.putIfAbsent(peer.address(), peer);
    }

    /**
     * Adds an accepted peer unless the address has a live one (returns false then): a client peer this
     * node added at the same moment (both ends opened at once) stays, as the acceptor's own check
     * before would have kept it. The ended peer of the address, not yet removed, is replaced.
     */
    boolean addServer(PeerDriver peer) {
        InetSocketAddress address = peer.address();
        while (true) {
            PeerDriver existing = peers.putIfAbsent(address, peer);
            if (existing == null) {
                serverConnections.incrementAndGet();
                return true;
            }
            if (existing.state() != PeerState.DISCONNECTED) {
                return false;
            }
            if (peers.replace(address, existing, peer)) {
                if (existing.serverSide()) {
                    serverConnections.decrementAndGet(); // its own remove will not find it any more
                }
                serverConnections.incrementAndGet();
                return true;
            }
        }
    }

    /** Removes the peer if it is still the one of its address. */
    void remove(PeerDriver peer) {
        if (peers.remove(peer.address(), peer) && peer.serverSide()) {
            serverConnections.decrementAndGet();
        }
    }

    /** Forgets a peer that never counted as a server connection (a failed start, a peer that cannot even disconnect). */
    void forget(PeerDriver peer) {
        peers.remove(peer.address(), peer);
    }

    Collection<PeerDriver> all() {
        return peers.values();
    }

    int size() {
        return peers.size();
    }

    int serverConnections() {
        return serverConnections.get();
    }
}
