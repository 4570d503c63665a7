package io.reliableudp.connection;

import io.reliableudp.message.DatagramSender;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.MessageListener;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What a connection carries once established: the message layer of one connection, seen from below.
 * Single-threaded (the connection's owner serialises calls); no I/O; time in seconds.
 */
public interface Session {

    /** Where a session writes the packet-layer bytes it wants sent (the connection frames them). */
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
     * An accepted send.
     *
     * @param channel channel index
     * @param messageId the channel's message id
     * @param future completed on acknowledgement (reliable) or when written (unreliable); failed with a
     *     {@link io.reliableudp.message.DeliveryException}
     */
    record Send(int channel, int messageId, CompletableFuture<Void> future) {
    }

    /** Queues a message; never throws for a bad channel or size: the future fails instead. */
    Send send(int channel, byte[] payload);

    /**
     * Queues a message without a future (the message layer allocates nothing for it).
     *
     * @return the message id (0..65535), or a negative {@code MessageEndpoint.OFFER_*} refusal code
     */
    default int offer(int channel, byte[] payload) {
        Send s = send(channel, payload);
        if (s.messageId() >= 0) {
            return s.messageId();
        }
        Throwable t = s.future().isCompletedExceptionally() ? s.future().exceptionNow() : null;
        if (t instanceof io.reliableudp.message.DeliveryException d) {
            return switch (d.reason()) {
                case QUEUE_FULL -> MessageEndpoint.OFFER_QUEUE_FULL;
                case TOO_LARGE -> MessageEndpoint.OFFER_TOO_LARGE;
                default -> MessageEndpoint.OFFER_CLOSED;
            };
        }
        return MessageEndpoint.OFFER_CLOSED;
    }

    /** Feeds packet-layer bytes that arrived. Never throws for any content. */
    void receive(byte[] data, int offset, int length);

    /** Timers, resends, and packets due at the current rate. */
    void update(double time);

    /** Sends everything queued now. */
    void flush(double time);

    /** Whether reliable messages still wait for acknowledgement. */
    boolean hasPendingReliable();

    /** Fails every pending send with {@code reason}; the session is unusable afterwards. */
    void close(DeliveryFailure reason);

    /** The message endpoint behind this session, for statistics; null for sessions that have none. */
    default @Nullable MessageEndpoint endpoint() {
        return null;
    }
}
