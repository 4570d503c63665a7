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
        long queuedBytes) {
}
