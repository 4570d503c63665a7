package io.reliableudp.connection;

import io.reliableudp.message.DatagramSender;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageListener;
import io.reliableudp.message.MessageStats;
import io.reliableudp.message.RttSampleListener;
import io.reliableudp.message.SendCompletion;
import org.jspecify.annotations.Nullable;

/**
 * What a connection carries once established: the message layer of one connection, seen from below.
 * Single-threaded (the connection's owner serialises calls); no I/O; time in seconds.
 *
 * <p>The connection layer's contract with the transport (and with tests that stand in for the message
 * layer); not user API.
 */
public interface Session {

    /**
     * Where a session writes the packet-layer bytes it wants sent (the connection frames them). The
     * connection offers its datagram buffer and frame-header room ({@link DatagramSender#datagramBuffer()},
     * {@link DatagramSender#headroom()}): a session that composes its packets there, as
     * {@link MessageSession} does, has them framed and sealed in place; one that sends {@code byte[]}
     * has them copied in first.
     */
    @FunctionalInterface
    interface Output extends DatagramSender {
    }

    /** Where a session delivers messages (the buffer is valid only during the call). */
    @FunctionalInterface
    interface Input extends MessageListener {
    }

    /** Makes the session of a new connection. */
    @FunctionalInterface
    interface Factory {
        /** A session for one connection; {@code config} already accounts for the connection overhead. */
        Session create(MessageConfig config, double time, Output out, Input in);
    }

    /**
     * Queues a message. Never throws for a size or a full queue: {@code completion} (when not null)
     * is told exactly once, at once for a refused message, else when it was delivered or the session
     * closed.
     *
     * @param completion told how the message ended, or null
     * @return the message id (0..65535), or a negative {@code MessageEndpoint.OFFER_*} refusal code
     */
    int offer(int channel, byte[] payload, @Nullable SendCompletion completion);

    /**
     * Queues a message without a completion (the message layer allocates nothing for it).
     *
     * @return the message id (0..65535), or a negative {@code MessageEndpoint.OFFER_*} refusal code
     */
    default int offer(int channel, byte[] payload) {
        return offer(channel, payload, null);
    }

    /**
     * Queues a message with a time-to-live in milliseconds (0: the channel's). A session without
     * time-to-live support ignores it.
     *
     * @return the message id (0..65535), or a negative {@code MessageEndpoint.OFFER_*} refusal code
     */
    default int offer(int channel, byte[] payload, @Nullable SendCompletion completion, int ttlMillis) {
        return offer(channel, payload, completion);
    }

    /** During a delivery to the input: the message's age in ms when it has a time-to-live, else -1. */
    default int deliveredMessageAgeMillis() {
        return -1;
    }

    /** Feeds packet-layer bytes that arrived. Never throws for any content. */
    void receive(byte[] data, int offset, int length);

    /** Feeds packet-layer bytes that arrived at {@code time} (the default ignores the time). */
    default void receive(byte[] data, int offset, int length, double time) {
        receive(data, offset, length);
    }

    /**
     * When the session wants its next {@link #update} (seconds; at or before now: at once;
     * +inf: not until something happens). The default: never (sessions driven by the tick alone).
     */
    default double nextDeadline() {
        return Double.POSITIVE_INFINITY;
    }

    /**
     * Whether, after a flush, the session waits only for timers its owner may leave to the next time it
     * services the session anyway (see {@code MessageEndpoint.settled}). The default: never.
     */
    default boolean settled() {
        return false;
    }

    /** Timers, resends, and packets due at the current rate. */
    void update(double time);

    /** Sends everything queued now. */
    void flush(double time);

    /** Whether reliable messages still wait for acknowledgement. */
    boolean hasPendingReliable();

    /** Fails every pending send with {@code reason}; the session is unusable afterwards. */
    void close(DeliveryFailure reason);

    /** A snapshot of the message layer's statistics; null for sessions that keep none (test doubles). */
    default @Nullable MessageStats stats() {
        return null;
    }

    /**
     * Pauses delivery on a channel (see {@code MessageEndpoint.pauseReceiving}). The default ignores it
     * (test doubles that deliver everything).
     */
    default void pauseReceiving(int channel) {
    }

    /** Resumes delivery on a channel, delivering its held messages now (see {@code MessageEndpoint.resumeReceiving}). */
    default void resumeReceiving(int channel) {
    }

    /**
     * Holds again a message delivered before the channel was paused and not passed on yet (see
     * {@code MessageEndpoint.holdAgain}); false when the session cannot (the caller keeps it). The
     * default cannot.
     */
    default boolean holdAgain(int channel, int messageId, byte[] payload) {
        return false;
    }

    /** Sets (or clears, with null) the listener told about every RTT sample of the layers below. */
    default void setRttListener(@Nullable RttSampleListener listener) {
    }

    /**
     * The connection's datagrams may now be {@code datagramBudget} bytes long (a size probe was
     * answered), and the output's datagram buffer holds one: later packets may be that large. The
     * default ignores it (sessions that keep their packets small).
     */
    default void datagramBudgetChanged(int datagramBudget) {
    }

    /**
     * {@link #datagramBudgetChanged(int)}; {@code watch}: the budget was found by probing a path that can
     * change, so the session watches its large packets for loss and tells its output
     * ({@link io.reliableudp.message.DatagramSender#largeDatagramsLost}). The default ignores {@code watch}.
     */
    default void datagramBudgetChanged(int datagramBudget, boolean watch) {
        datagramBudgetChanged(datagramBudget);
    }
}
