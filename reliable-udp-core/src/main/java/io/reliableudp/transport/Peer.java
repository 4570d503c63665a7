package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One remote endpoint connected to a node. Thread-safe: any thread may send.
 */
public interface Peer {

    /** The peer's address now (the source address of its datagrams); a migration changes it (docs/connection.md). */
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
     * {@link #send(int, byte[])} with a time-to-live: when the peer has not acknowledged the message
     * within {@code ttl} of this call, it is neither sent nor resent any more, the future fails with a
     * {@link io.reliableudp.message.DeliveryException} of reason
     * {@link io.reliableudp.message.DeliveryFailure#EXPIRED}, and the peer skips it; the peer never
     * delivers it older than {@code ttl} (docs/messages.md, "Time-to-live"). It replaces the channel's
     * time-to-live for this message.
     *
     * @param ttl at least 1 ms, at most {@code Integer.MAX_VALUE} ms
     * @return the future, as {@link #send(int, byte[])}'s
     * @throws IllegalArgumentException when {@code ttl} is out of range
     * @throws UnsupportedOperationException when this peer cannot (not a node's peer)
     */
    default CompletableFuture<Delivery> send(int channel, byte[] payload, java.time.Duration ttl) {
        throw new UnsupportedOperationException("send with a time-to-live is not supported by " + getClass().getName());
    }

    /**
     * The time-to-live of {@link #send(int, byte[], java.time.Duration)} in milliseconds.
     *
     * @param ttl the time-to-live
     * @return it in whole milliseconds, at least 1
     * @throws IllegalArgumentException when it is below 1 ms or above {@code Integer.MAX_VALUE} ms
     */
    static int ttlMillis(java.time.Duration ttl) {
        if (ttl.compareTo(java.time.Duration.ofMillis(1)) < 0 || ttl.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("ttl must be within 1 ms.." + Integer.MAX_VALUE + " ms, was " + ttl);
        }
        return (int) ttl.toMillis();
    }

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

    /**
     * Pauses delivery of this connection's messages on {@code channel}: until
     * {@link #resumeReceiving} (and while the node has the channel paused, see
     * {@link ReliableUdpNode#pauseReceiving}) they are not handed to the {@link NodeListener}. The node
     * holds them, in order, counted against the receive memory limits
     * ({@link io.reliableudp.message.MessageConfig#receiveMemoryLimit()},
     * {@link NodeConfig#receiveMemoryLimit()}); once a limit is reached it stops acknowledging packets
     * that carry more of them, so the remote sender's queue fills and its {@code send} fails with
     * {@code QUEUE_FULL} ({@code offer} returns false). Nothing the sender was told was delivered is
     * ever dropped. Takes effect at once: a message of the channel not yet handed over when this returns
     * is held too. Other channels go on, though a packet that mixes their messages with the paused
     * channel's is refused with it once the limit is reached. Any thread; pausing a paused channel does
     * nothing. A sender told nothing for long (the sender's own queue timeout) may give up on the
     * connection, as with any receiver that stops acknowledging.
     *
     * @param channel channel index
     * @throws IllegalArgumentException when the channel does not exist
     * @throws UnsupportedOperationException when this peer cannot pause (not a node's peer)
     */
    default void pauseReceiving(int channel) {
        throw new UnsupportedOperationException("pauseReceiving is not supported by " + getClass().getName());
    }

    /**
     * Resumes delivery on {@code channel} after {@link #pauseReceiving}: the held messages are handed to
     * the listener on the I/O thread, in order (on an ordered channel, in id order, before any later
     * one), then new ones as they come; the sender's refused packets are accepted again when it resends
     * them. The channel stays paused while the node has it paused. Any thread; resuming a channel that
     * is not paused does nothing.
     *
     * @param channel channel index
     * @throws IllegalArgumentException when the channel does not exist
     * @throws UnsupportedOperationException when this peer cannot pause (not a node's peer)
     */
    default void resumeReceiving(int channel) {
        throw new UnsupportedOperationException("resumeReceiving is not supported by " + getClass().getName());
    }

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
