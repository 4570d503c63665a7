package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Delivery guarantees over random links, window sizes, resend policies and message sizes. */
class DeliveryPropertyTest {

    /**
     * Found by the property under the send-at-once schedule: with EVERY_PACKET, a large message whose
     * slices were partly sent (the channel's only sent-unacked data) named no deadline, so nothing woke
     * the sender again and 496 messages stalled.
     */
    @Example
    void everyPacketWithPartlySentSlicesKeepsAskingForRounds() {
        reliableChannelsDeliverEverythingExactlyOnceOverAnyLink(98, 0.18, 0.0, 0.0, 0, true);
    }

    @Property(tries = 40)
    void reliableChannelsDeliverEverythingExactlyOnceOverAnyLink(
            @ForAll @LongRange(min = 1, max = 1_000_000) long seed,
            @ForAll @DoubleRange(min = 0, max = 0.5) double loss,
            @ForAll @DoubleRange(min = 0, max = 0.2) double duplicate,
            @ForAll @DoubleRange(min = 0, max = 0.3) double reorder,
            @ForAll @IntRange(min = 0, max = 3) int windowLog,
            @ForAll boolean everyPacket) {
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED, DeliveryMode.RELIABLE_UNORDERED).toBuilder()
                .receiveWindow(64 << windowLog)
                .resendPolicy(everyPacket ? MessageConfig.ResendPolicy.EVERY_PACKET : MessageConfig.ResendPolicy.RTT_BASED)
                .build();
        LinkConditionerConfig ab = new LinkConditionerConfig(10, 20, loss, 0.01, 0.3, 0.8, duplicate, reorder, 30, 0, 1 << 20, seed);
        LinkConditionerConfig ba = new LinkConditionerConfig(10, 20, loss, 0.01, 0.3, 0.8, duplicate, reorder, 30, 0, 1 << 20, seed + 1);
        EndpointPair pair = new EndpointPair(config, ab, ba);
        java.util.SplittableRandom sizes = new java.util.SplittableRandom(seed);
        int n = 300;
        List<byte[]> sent0 = new ArrayList<>();
        List<byte[]> sent1 = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            // mostly small, sometimes sliced
            int size = sizes.nextInt(10) == 0 ? 1200 + sizes.nextInt(5000) : sizes.nextInt(100);
            byte[] p = new byte[size];
            sizes.nextBytes(p);
            sent0.add(p);
            byte[] q = Arrays.copyOf(p, p.length);
            sent1.add(q);
            assertThat(pair.a.offer(0, p)).isEqualTo(i & 0xFFFF);
            assertThat(pair.a.offer(1, q)).isEqualTo(i & 0xFFFF);
        }
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 600, 1.0 / 60)).isTrue();
        pair.run(1, 1.0 / 60);
        List<EndpointPair.Received> ordered = pair.receivedByB.stream().filter(r -> r.channel() == 0).toList();
        assertThat(ordered).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(ordered.get(i).id()).isEqualTo(i);
            assertThat(ordered.get(i).data()).isEqualTo(sent0.get(i));
        }
        List<EndpointPair.Received> unordered = pair.receivedByB.stream().filter(r -> r.channel() == 1).toList();
        assertThat(unordered).hasSize(n);
        assertThat(unordered.stream().map(EndpointPair.Received::id).distinct().count()).isEqualTo(n);
        for (EndpointPair.Received r : unordered) {
            assertThat(r.data()).isEqualTo(sent1.get(r.id()));
        }
        assertThat(pair.b.stats().malformedPackets()).isZero();
        assertThat(pair.a.stats().channel(0).messagesAcked()).isEqualTo(n);
    }
}
