package io.reliableudp.spring.support;

import io.reliableudp.transport.Peer;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * A message as the node delivered it, before any conversion.
 *
 * @param peer the sending peer (reply with {@link Peer#send})
 * @param peerName the sender's configured name, or null
 * @param channel the channel it arrived on
 * @param messageId the channel's 16-bit message id
 * @param payload the raw payload (envelope included); owned by the receiver, not copied per subscriber
 * @param ageMillis for a message sent with a time-to-live, its estimated age in milliseconds when the
 *     node delivered it; -1 otherwise
 */
public record InboundUdpMessage(Peer peer, @Nullable String peerName, UdpChannel channel, int messageId, byte[] payload,
        int ageMillis) {

    /**
     * A message without a time-to-live.
     *
     * @param peer the sending peer
     * @param peerName the sender's configured name, or null
     * @param channel the channel it arrived on
     * @param messageId the channel's 16-bit message id
     * @param payload the raw payload
     */
    public InboundUdpMessage(Peer peer, @Nullable String peerName, UdpChannel channel, int messageId, byte[] payload) {
        this(peer, peerName, channel, messageId, payload, -1);
    }

    /** The sender's address (the datagram source address). */
    public InetSocketAddress address() {
        return peer.address();
    }
}
