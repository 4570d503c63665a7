package io.reliableudp.transport;

import io.reliableudp.connection.DisconnectReason;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One remote endpoint connected to a node. Thread-safe: any thread may send.
 */
public interface Peer {

    /** The peer's address (the source address of its datagrams). */
    InetSocketAddress address();

    PeerState state();

    /** Why the connection ended, or null while it has not. */
    @Nullable DisconnectReason disconnectReason();

    /**
     * Sends a message on a channel, in that channel's delivery mode. The payload array is taken over:
     * do not modify it afterwards.
     *
     * @return a future completed when the peer acknowledged the message (reliable channels) or when it
     *     was written to a datagram (unreliable channels); completed exceptionally with a
     *     {@link io.reliableudp.message.DeliveryException} naming the reason otherwise. Never null;
     *     a send that cannot be accepted fails the future at once rather than throwing.
     */
    CompletableFuture<Delivery> send(int channel, byte[] payload);

    /**
     * Sends a message without a future, for high-rate streams: nothing is allocated per message
     * beyond what the message layer needs. The payload array is taken over. Never waits
     * ({@link NodeConfig#sendQueueWait()} does not apply) and never throws.
     *
     * <p>An accepted reliable message is delivered unless the connection ends (then
     * {@link NodeListener#onDisconnected} tells); the outcome of single messages is not reported,
     * only counted in {@link #stats()}.
     *
     * @return true when the message was queued; false when it was refused (channel queue full,
     *     too large, no such channel, not connected, node shutting down)
     */
    default boolean offer(int channel, byte[] payload) {
        return !send(channel, payload).isCompletedExceptionally();
    }

    /** Sends queued messages now instead of waiting for the next send tick. */
    void flush();

    /** Disconnects the peer: redundant disconnect packets, pending sends fail with CLOSED. */
    void disconnect();

    /**
     * The peer's verified identity: the entry of this node's allow-list whose key the peer proved in
     * the handshake, or null when the connection is not authenticated by static keys (plain mode, a
     * pre-shared key only) or not connected yet.
     */
    default @Nullable PeerIdentity identity() {
        return null;
    }

    /** A snapshot of the statistics of this connection. */
    PeerStats stats();
}
