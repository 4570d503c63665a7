package io.reliableudp.message;

/**
 * Counters of one channel of one connection ({@link MessageStats#channels()}, and through the
 * transport {@code PeerStats.channels()}): a snapshot, counts monotonic since the connection started.
 *
 * @param channel channel index
 * @param mode delivery mode
 * @param messagesSent messages accepted for sending
 * @param messagesAcked messages acknowledged by the peer (reliable: fully acknowledged; unreliable: ack receipts)
 * @param messagesResent retransmissions (each resend of a message or of a slice counts once)
 * @param messagesReceived messages delivered to the listener
 * @param messagesDropped received messages dropped as too old (unreliable sequenced/unordered outside the window)
 * @param duplicatesDropped received duplicate copies dropped
 * @param queuedMessages messages waiting to be sent or acknowledged now
 * @param queuedBytes payload bytes waiting to be sent or acknowledged now
 * @param messagesExpired messages sent on this channel whose time-to-live passed before the peer
 *     acknowledged them (their futures failed with {@link DeliveryFailure#EXPIRED})
 * @param receivedExpired received messages dropped because their age reached their time-to-live (on
 *     arrival, or while they waited for an earlier message of an ordered channel)
 * @param messagesSkipped ids the peer abandoned (expired there) that this side skipped before they arrived
 */
public record ChannelStats(
        int channel,
        DeliveryMode mode,
        long messagesSent,
        long messagesAcked,
        long messagesResent,
        long messagesReceived,
        long messagesDropped,
        long duplicatesDropped,
        int queuedMessages,
        long queuedBytes,
        long messagesExpired,
        long receivedExpired,
        long messagesSkipped) {

    /**
     * Counters of a channel without time-to-live figures.
     *
     * @param channel channel index
     * @param mode delivery mode
     * @param messagesSent messages accepted for sending
     * @param messagesAcked messages acknowledged by the peer
     * @param messagesResent retransmissions
     * @param messagesReceived messages delivered to the listener
     * @param messagesDropped received messages dropped as too old
     * @param duplicatesDropped received duplicate copies dropped
     * @param queuedMessages messages waiting now
     * @param queuedBytes payload bytes waiting now
     */
    public ChannelStats(int channel, DeliveryMode mode, long messagesSent, long messagesAcked, long messagesResent,
            long messagesReceived, long messagesDropped, long duplicatesDropped, int queuedMessages, long queuedBytes) {
        this(channel, mode, messagesSent, messagesAcked, messagesResent, messagesReceived, messagesDropped,
                duplicatesDropped, queuedMessages, queuedBytes, 0, 0, 0);
    }
}
