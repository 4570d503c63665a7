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

    private final ConcurrentHashMap<InetSocketAddress, NodePeer> peers = new ConcurrentHashMap<>();
    private final AtomicInteger serverConnections = new AtomicInteger();

    @Nullable NodePeer get(InetSocketAddress address) {
        return peers.get(address);
    }

    /** Adds a client-side peer unless the address has one: returns the existing one, or null when added. */
    @Nullable NodePeer addClient(NodePeer peer) {
        return peers.putIfAbsent(peer.address(), peer);
    }

    /** Adds (or replaces the ended peer of that address with) an accepted one. */
    void addServer(NodePeer peer) {
        peers.put(peer.address(), peer);
        serverConnections.incrementAndGet();
    }

    /** Removes the peer if it is still the one of its address. */
    void remove(NodePeer peer) {
        if (peers.remove(peer.address(), peer) && peer.serverSide()) {
            serverConnections.decrementAndGet();
        }
    }

    /** Forgets a peer that never counted as a server connection (a failed start, a peer that cannot even disconnect). */
    void forget(NodePeer peer) {
        peers.remove(peer.address(), peer);
    }

    Collection<NodePeer> all() {
        return peers.values();
    }

    int size() {
        return peers.size();
    }

    int serverConnections() {
        return serverConnections.get();
    }
}
