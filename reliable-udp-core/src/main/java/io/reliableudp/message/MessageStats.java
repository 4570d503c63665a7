package io.reliableudp.message;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of one {@link MessageEndpoint}'s statistics ({@link MessageEndpoint#stats()}), taken on
 * demand (never per packet): the message layer's counters and estimates, its channels, and the figures
 * of the packet layer below it, so that nothing above the message layer needs the packet layer.
 * Counts are monotonic since the endpoint was created.
 *
 * @param packetsSent packets carrying messages sent
 * @param ackOnlyPacketsSent header-only packets sent to acknowledge received data
 * @param packetsNotSent packets the packet layer refused to send (should stay 0)
 * @param packetsReceived packets whose payload reached this layer
 * @param malformedPackets received packets rejected as malformed (bad framing, unknown channel, illegal sizes)
 * @param rejectedPackets received well-formed packets rejected (not acknowledged) because they exceeded a receive limit
 * @param packetsLost data packets this layer counted lost (not acknowledged within the loss timeout)
 * @param datagramsSent datagrams handed to the {@link DatagramSender}
 * @param bytesSent bytes handed to the {@link DatagramSender}
 * @param listenerErrors exceptions thrown by listeners and send completions (caught, logged and counted)
 * @param bytesInFlight payload bytes of data packets sent and neither acknowledged nor counted lost
 * @param bandwidthEstimateBytesPerSecond the delivery-rate estimate (max over the last 1-2 s), 0 before any sample
 * @param inflightLimitBytes the congestion controller's current cap on {@code bytesInFlight}, or -1 when it has none
 * @param largeBytesInFlight total size of the sliced messages started and not yet fully acknowledged
 * @param reassemblyBytes bytes held by this side's reassembly buffers of sliced messages being received
 * @param queuedMessages messages waiting to be sent or acknowledged, on all channels
 * @param congested whether the congestion controller holds the rate down: Gaffer's bad mode, or the default
 *     controller draining a growing queue
 * @param sendRateHz current send tick rate (the configured rate; a third of it in Gaffer's bad mode)
 * @param congestionPenaltySeconds seconds of good conditions needed to leave Gaffer's bad mode (0 for the others)
 * @param congestionEpisodes times the congestion controller entered its congested state
 * @param rttMillis smoothed RTT measured by this layer from packet acks (ms), 0 before the first sample
 * @param packetLossPercent data-packet loss estimated by this layer, 0..100
 * @param resendIntervalSeconds the current resend interval of reliable messages before backoff (0 under EVERY_PACKET)
 * @param fastResends resends of reliable messages and slices because the acks showed their packet lost
 *     (fast recovery), on all channels
 * @param timerResends resends of reliable messages and slices because their resend timer ran out (every
 *     resend under EVERY_PACKET), on all channels; with {@code fastResends} the sum of the channels'
 *     {@code messagesResent}
 * @param redundantCopies copies of small reliable messages carried in later packets (channel redundancy, and the copy of each repair in the next data packet);
 *     not counted as resends
 * @param packetsDeclaredLost data packets the acks showed lost (the loss verdict the congestion controller reads; resent at once with fast recovery)
 * @param spuriousLossDetections packets declared lost from the acks that were acknowledged afterwards
 *     (reordered, not lost): each one widens the reorder window
 * @param reorderWindowSeconds how much later a packet acknowledged must have been sent for an unacknowledged
 *     one to count as lost at once
 * @param channels per-channel counters, by channel index
 * @param packetLayer the packet layer's own figures
 * @param receiveMemoryBytes bytes the receive side holds for the peer now: reassembly buffers, early
 *     arrivals of ordered channels, messages held for paused channels (bounded by
 *     {@link MessageConfig#receiveMemoryLimit()})
 * @param memoryRefusals received packets refused (not acknowledged) because what they carry would have
 *     passed the connection's or the node's receive memory limit; also counted in {@code rejectedPackets}
 */
public record MessageStats(
        long packetsSent,
        long ackOnlyPacketsSent,
        long packetsNotSent,
        long packetsReceived,
        long malformedPackets,
        long rejectedPackets,
        long packetsLost,
        long datagramsSent,
        long bytesSent,
        long listenerErrors,
        long bytesInFlight,
        double bandwidthEstimateBytesPerSecond,
        long inflightLimitBytes,
        long largeBytesInFlight,
        long reassemblyBytes,
        int queuedMessages,
        boolean congested,
        double sendRateHz,
        double congestionPenaltySeconds,
        long congestionEpisodes,
        double rttMillis,
        double packetLossPercent,
        double resendIntervalSeconds,
        long fastResends,
        long timerResends,
        long redundantCopies,
        long packetsDeclaredLost,
        long spuriousLossDetections,
        double reorderWindowSeconds,
        List<ChannelStats> channels,
        PacketLayer packetLayer,
        long receiveMemoryBytes,
        long memoryRefusals) {

    /** Copies the channel list, so that the snapshot is immutable. */
    public MessageStats {
        channels = List.copyOf(channels);
    }

    /**
     * The counters of one channel.
     *
     * @param channel channel index
     * @return the counters
     * @throws IndexOutOfBoundsException when the channel does not exist
     */
    public ChannelStats channel(int channel) {
        return channels.get(channel);
    }

    /**
     * The packet layer's figures, computed as the reference C library does: times in milliseconds,
     * loss in percent, bandwidth in kilobits per second. Its loss counts this side's ack-only packets
     * (never acknowledged themselves) as lost, so it reads high on a peer that mostly receives; prefer
     * {@link MessageStats#packetLossPercent()} there.
     *
     * @param rttMillis smoothed round-trip time
     * @param rttMinMillis minimum over the RTT history
     * @param rttMaxMillis maximum over the RTT history
     * @param rttAvgMillis mean over the RTT history
     * @param jitterAvgVsMinMillis mean of (sample - min)
     * @param jitterMaxVsMinMillis max of (sample - min)
     * @param jitterStddevMillis standard deviation of the samples around the mean
     * @param packetLossPercent the packet layer's loss figure
     * @param sentKbps smoothed sent bandwidth
     * @param receivedKbps smoothed received bandwidth
     * @param ackedKbps smoothed acked bandwidth
     * @param counters the packet layer counters by name (the 11 of {@code reliable}, snake_case, plus any extra), in order
     */
    public record PacketLayer(
            float rttMillis,
            float rttMinMillis,
            float rttMaxMillis,
            float rttAvgMillis,
            float jitterAvgVsMinMillis,
            float jitterMaxVsMinMillis,
            float jitterStddevMillis,
            float packetLossPercent,
            float sentKbps,
            float receivedKbps,
            float ackedKbps,
            Map<String, Long> counters) {

        /** Copies the counters, keeping their order, so that the snapshot is immutable. */
        public PacketLayer {
            counters = Collections.unmodifiableMap(new LinkedHashMap<>(counters));
        }
    }
}
