package io.reliableudp.message;

import java.util.concurrent.CompletableFuture;

/**
 * The result of {@link MessageEndpoint#send}: which message it became, and a future that tells how
 * it ended. The future completes (with null) when the peer acknowledged a reliable message, or when
 * an unreliable message was written to a packet; it completes exceptionally with a
 * {@link DeliveryException} naming the reason otherwise. A send that was not accepted (queue full,
 * too large, endpoint closed) has {@link #messageId()} -1 and an already failed future.
 *
 * <p>Futures complete on the thread driving the endpoint: keep dependent actions short.
 */
public final class SendHandle {

    private final int channel;
    private final int messageId;
    private final CompletableFuture<Void> future;

    SendHandle(int channel, int messageId, CompletableFuture<Void> future) {
        this.channel = channel;
        this.messageId = messageId;
        this.future = future;
    }

    /** The channel the message was sent on. */
    public int channel() {
        return channel;
    }

    /** The message's 16-bit id on its channel, or -1 when the send was not accepted. */
    public int messageId() {
        return messageId;
    }

    /** Whether the message was accepted (queued); false means the future already failed. */
    public boolean accepted() {
        return messageId >= 0;
    }

    /** Completed on acknowledgement (reliable) or first write to a packet (unreliable); failed otherwise. */
    public CompletableFuture<Void> future() {
        return future;
    }

    @Override
    public String toString() {
        return "SendHandle[channel=" + channel + ", messageId=" + messageId + ", future=" + future + "]";
    }
}
