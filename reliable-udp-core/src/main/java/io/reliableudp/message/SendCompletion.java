package io.reliableudp.message;

/**
 * Hears how one queued message ended: told exactly once, on the thread driving the endpoint. This is
 * what a layer above passes with {@link MessageEndpoint#offer(int, byte[], SendCompletion)} so that
 * its own result type (the transport's future of a {@code Delivery}) is completed directly, with no
 * adapter object or extra future per message. {@link SendHandle}'s future is the message layer's own.
 *
 * <p>Implementations must be short and must not throw; an exception is caught, logged and counted in
 * {@link MessageStats#listenerErrors()}.
 */
public interface SendCompletion {

    /**
     * The peer acknowledged the reliable message (all of it, for a sliced one), or the unreliable
     * message was written to a packet.
     *
     * @param channel channel index
     * @param messageId the message's 16-bit id on its channel
     */
    void delivered(int channel, int messageId);

    /**
     * The message will not be delivered: refused at once (queue full, too large, endpoint closed;
     * told before the send call returns), or still pending when the endpoint closed.
     *
     * @param failure the reason, in {@link DeliveryException#reason()}
     */
    void failed(DeliveryException failure);
}
