package io.reliableudp.transport;

import io.reliableudp.message.DeliveryMode;

/**
 * Statistics of one channel of one connection (a snapshot; counts are monotonic since connect).
 *
 * @param channel channel index
 * @param mode delivery mode
 * @param messagesSent messages accepted for sending
 * @param messagesAcked reliable messages acknowledged by the peer
 * @param messagesResent message retransmissions (each resend of a message or slice counts once)
 * @param messagesReceived messages delivered to the application
 * @param messagesDropped messages dropped (unreliable ones lost to sequencing/queue, duplicates not counted)
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
