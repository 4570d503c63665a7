package io.reliableudp.message;

/** Receives the messages a {@link MessageEndpoint} delivers, on the thread that calls its {@code receive}. */
@FunctionalInterface
public interface MessageListener {

    /**
     * One delivered message. The bytes are valid only during the call: copy them to keep them.
     * The listener may call {@link MessageEndpoint#send}; a {@code flush} it asks for runs when the
     * current {@code receive} returns.
     *
     * @param channel channel index
     * @param messageId the message's 16-bit id on its channel
     * @param data buffer holding the payload
     * @param offset first payload byte
     * @param length payload length
     */
    void onMessage(int channel, int messageId, byte[] data, int offset, int length);
}
