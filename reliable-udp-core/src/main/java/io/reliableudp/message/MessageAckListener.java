package io.reliableudp.message;

/**
 * Told when the peer acknowledged a message: a reliable message once all of it was acknowledged; an
 * unreliable message when the packet that carried it was acknowledged (an ack receipt: a lost
 * unreliable message gets none). Called on the thread that calls {@link MessageEndpoint#receive},
 * at most once per message. Costs no allocation, unlike the futures of {@link SendHandle}.
 */
@FunctionalInterface
public interface MessageAckListener {

    /**
     * @param channel channel index
     * @param messageId the message's 16-bit id on its channel
     */
    void onAcked(int channel, int messageId);
}
