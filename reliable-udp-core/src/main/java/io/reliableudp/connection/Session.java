package io.reliableudp.connection;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import java.util.concurrent.CompletableFuture;

/**
 * What a connection carries once established: the message layer of one connection, seen from below.
 * Single-threaded (the connection's owner serialises calls); no I/O; time in seconds.
 */
public interface Session {

    /** Where a session writes the packet-layer bytes it wants sent (the connection frames them). */
    @FunctionalInterface
    interface Output {
        /** Sends one packet; the buffer is valid only during the call. */
        void send(byte[] data, int offset, int length);
    }

    /** Where a session delivers messages. */
    @FunctionalInterface
    interface Input {
        /** A message arrived; the buffer is valid only during the call. */
        void onMessage(int channel, int messageId, byte[] data, int offset, int length);
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
}
