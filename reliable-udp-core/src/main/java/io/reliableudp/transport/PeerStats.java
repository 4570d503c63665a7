package io.reliableudp.transport;

import io.reliableudp.message.ChannelStats;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of one connection's statistics. Times in milliseconds (as the packet layer computes
 * them), loss in percent 0..100, bandwidth in kilobits per second.
 *
 * @param state connection state
 * @param rttMillis smoothed round-trip time
 * @param rttMinMillis minimum over the RTT history
 * @param rttMaxMillis maximum over the RTT history
 * @param rttAvgMillis mean over the RTT history
 * @param jitterAvgVsMinMillis mean of (sample - min)
 * @param jitterMaxVsMinMillis max of (sample - min)
 * @param jitterStddevMillis standard deviation of the samples
 * @param packetLossPercent loss of data packets, 0..100, as the message layer estimates it (packets not
 *     acknowledged within about two RTTs). Not the packet layer's reference figure, which also counts
 *     ack-only packets (never acknowledged themselves) as lost and so reads high on a peer that mostly
 *     receives; that figure's inputs remain in {@code packetCounters}.
 * @param sentKbps smoothed sent bandwidth
 * @param receivedKbps smoothed received bandwidth
 * @param ackedKbps smoothed acked bandwidth
 * @param packetCounters the packet layer counters by name (the 11 of {@code reliable}, snake_case, plus any extra)
 * @param channels per-channel statistics
 * @param congested true while congestion avoidance is in its "bad" mode
 * @param sendRateHz current packet send rate
 * @param bytesSent datagram bytes sent to this peer (after encryption)
 * @param bytesReceived datagram bytes received from this peer
 * @param datagramBudget the largest datagram this connection sends now, in bytes: the configured
 *     {@code datagramBudget} until a size probe showed that the peer receives larger ones
 *     ({@code maxDatagramBudget}; 0 before the connection exists)
 * @param receiveMemoryBytes bytes this connection holds for the peer now (reassembly, early arrivals of
 *     ordered channels, messages held for paused channels), bounded by
 *     {@link io.reliableudp.message.MessageConfig#receiveMemoryLimit()}
 * @param memoryRefusals packets of the peer refused (not acknowledged) because they would have passed the
 *     connection's or the node's receive memory limit
 */
public record PeerStats(
        PeerState state,
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
        Map<String, Long> packetCounters,
        List<ChannelStats> channels,
        boolean congested,
        double sendRateHz,
        long bytesSent,
        long bytesReceived,
        int datagramBudget,
        long receiveMemoryBytes,
        long memoryRefusals) {
}
