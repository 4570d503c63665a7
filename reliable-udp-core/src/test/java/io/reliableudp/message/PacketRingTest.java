package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import org.junit.jupiter.api.Test;

/**
 * At most one ring of packets with reliable content is in flight: a burst of large reliable messages
 * (one per packet) on a loss-free link with an RTT longer than the ring takes to fill is acknowledged
 * without a single resend. Without the guard, the packet log reused the slots of unacknowledged
 * packets, their acks no longer matched, and every overwritten message waited for its resend timer
 * (found as a 1,024-byte throughput collapse on loopback).
 */
class PacketRingTest {

    @Test
    void aBurstLargerThanTheRingIsAckedWithoutResends() {
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder()
                .congestionControl(MessageConfig.CongestionControl.NONE).build();
        LinkConditionerConfig slow = new LinkConditionerConfig(10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 << 30, 1);
        EndpointPair pair = new EndpointPair(config, slow, slow);
        pair.followDeadlines = true;
        int n = 3 * MessageEndpoint.SENT_PACKETS;
        for (int i = 0; i < n; i++) {
            assertThat(pair.a.offer(0, new byte[1000])).isGreaterThanOrEqualTo(0);
        }
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 30, 0.001)).isTrue();
        MessageStats s = pair.a.stats();
        assertThat(pair.receivedByB).hasSize(n);
        assertThat(s.channel(0).messagesResent()).as("resends on a loss-free link").isZero();
    }
}
