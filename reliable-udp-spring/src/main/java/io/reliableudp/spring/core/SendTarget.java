package io.reliableudp.spring.core;

import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.Peer;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Where a send of the templates goes: its label, the peer's address when it is known before connecting
 * (null for a group, whose instance is chosen on the way), the connected peer when one is needed first,
 * and how an encoded message is handed over. The hand-over keeps the call order of sends to a named
 * peer while it connects ({@link UdpPeerDirectory#send(String, Object, int, byte[])}).
 *
 * @param label how the peer is called in failures and observations
 * @param address the peer's address, or null for a group
 * @param resolver connects (or finds) the peer
 * @param route hands an encoded message to the peer's connection
 */
record SendTarget(String label, @Nullable InetSocketAddress address, Supplier<CompletableFuture<Peer>> resolver, Route route) {

    /** Hands an encoded message to a connection. */
    @FunctionalInterface
    interface Route {
        CompletableFuture<Delivery> send(int channel, byte[] wire);
    }

    /**
     * A configured name, a group or {@code host:port}.
     *
     * @param directory the node's peers
     * @param peer the name or address
     * @param key the routing key for a group, or null
     * @return the target
     */
    static SendTarget named(UdpPeerDirectory directory, String peer, @Nullable Object key) {
        InetSocketAddress address = directory.group(peer) == null ? directory.parseTarget(peer) : null;
        return new SendTarget(peer, address, () -> directory.resolve(peer, key), (c, w) -> directory.send(peer, key, c, w));
    }

    /**
     * An address (a named peer's address keeps the named peer's order).
     *
     * @param directory the node's peers
     * @param label the label
     * @param address the address
     * @return the target
     */
    static SendTarget address(UdpPeerDirectory directory, String label, InetSocketAddress address) {
        return new SendTarget(label, address, () -> directory.resolve(address), (c, w) -> directory.send(address, c, w));
    }

    /**
     * An existing connection (never connects).
     *
     * @param directory the node's peers
     * @param label the label
     * @param peer the connected peer
     * @return the target
     */
    static SendTarget connected(UdpPeerDirectory directory, String label, Peer peer) {
        return new SendTarget(label, peer.address(), () -> CompletableFuture.completedFuture(peer), (c, w) -> directory.send(peer, c, w));
    }
}
