package io.reliableudp.message;

import static io.reliableudp.message.DeliveryMode.RELIABLE_ORDERED;
import static io.reliableudp.message.DeliveryMode.UNRELIABLE;
import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.packet.PacketCounter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the message layer offers the layers above instead of its insides: send completions (told
 * exactly once), the {@link MessageStats} snapshot with the packet layer's figures, and RTT samples.
 */
@Timeout(30)
class MessageEndpointSeamsTest {

    private static final double DT = 1.0 / 120;

    /** Records every call; optionally throws after recording, like a faulty caller. */
    static final class Recorder implements SendCompletion {
        final List<Integer> delivered = new ArrayList<>();
        final List<DeliveryException> failed = new ArrayList<>();
        boolean throwing;

        @Override
        public void delivered(int channel, int messageId) {
            delivered.add(messageId);
            if (throwing) {
                throw new IllegalStateException("caller bug");
            }
        }

        @Override
        public void failed(DeliveryException failure) {
            failed.add(failure);
            if (throwing) {
                throw new IllegalStateException("caller bug");
            }
        }

        int calls() {
            return delivered.size() + failed.size();
        }
    }

    @Test
    void completionIsToldOnceOnAckOnWriteOnRefusalAndOnClose() {
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(new ChannelConfig(RELIABLE_ORDERED, 2, 1000), ChannelConfig.of(UNRELIABLE))).build();
        EndpointPair pair = new EndpointPair(config);
        Recorder reliable = new Recorder();
        Recorder unreliable = new Recorder();
        Recorder refused = new Recorder();
        assertThat(pair.a.offer(0, new byte[10], reliable)).isZero();
        assertThat(pair.a.offer(1, new byte[10], unreliable)).isZero();
        assertThat(pair.a.offer(0, new byte[10], null)).isEqualTo(1);
        // the queue of channel 0 holds 2: the refusal is told before offer returns
        assertThat(pair.a.offer(0, new byte[10], refused)).isEqualTo(MessageEndpoint.OFFER_QUEUE_FULL);
        assertThat(refused.failed).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.QUEUE_FULL));
        assertThat(reliable.calls()).isZero();

        pair.a.flush(pair.time); // the unreliable message is written now
        assertThat(unreliable.delivered).containsExactly(0);
        assertThat(reliable.calls()).isZero();
        assertThat(pair.runUntil(() -> reliable.calls() > 0, 2, DT)).isTrue();
        assertThat(reliable.delivered).containsExactly(0);

        Recorder pending = new Recorder();
        pair.a.offer(0, new byte[10], pending);
        pair.a.close(DeliveryFailure.TIMEOUT);
        assertThat(pending.failed).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.TIMEOUT));
        Recorder late = new Recorder();
        assertThat(pair.a.offer(0, new byte[10], late)).isEqualTo(MessageEndpoint.OFFER_CLOSED);
        assertThat(late.failed).singleElement().satisfies(e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.TIMEOUT));
        pair.run(0.5, DT);
        assertThat(List.of(reliable, unreliable, refused, pending, late)).allSatisfy(r -> assertThat(r.calls()).isEqualTo(1));
    }

    /**
     * A slot of the send ring is written by its message only (payload, and a completion or a large send
     * when it has one), so each reuse must find the slot as the retiring message left it: cleared. Four messages in flight at most (the ring stays at 16
     * slots, each reused ten times), completions and large sends mixed with messages that have neither:
     * every completion told once, every message delivered once and in order, and on a clean link no
     * resend (a history left from the slot's last message would make one due early).
     */
    @Test
    void aReusedSendSlotCarriesNothingOfItsLastMessage() {
        for (double loss : new double[] {0, 0.2}) {
            MessageConfig config = MessageConfig.builder()
                    .channels(List.of(new ChannelConfig(RELIABLE_ORDERED, 4, 1 << 20))).build();
            LinkConditionerConfig link = new LinkConditionerConfig(5, 0, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 11);
            EndpointPair pair = new EndpointPair(config, link, link);
            List<Recorder> recorders = new ArrayList<>();
            List<byte[]> sent = new ArrayList<>();
            for (int round = 0; round < 40; round++) {
                byte[][] payloads = {payload(sent.size(), 10), payload(sent.size() + 1, 12),
                    payload(sent.size() + 2, 3000), payload(sent.size() + 3, 8)};
                for (int k = 0; k < payloads.length; k++) {
                    Recorder r = k % 3 == 0 ? new Recorder() : null; // the first and the last have one
                    if (r != null) {
                        recorders.add(r);
                    }
                    assertThat(pair.a.offer(0, payloads[k], r)).as("round %d message %d", round, k).isGreaterThanOrEqualTo(0);
                    sent.add(payloads[k]);
                }
                assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 20, DT)).as("round %d acknowledged", round).isTrue();
            }
            assertThat(recorders).as("loss %s", loss).allSatisfy(r -> {
                assertThat(r.delivered).hasSize(1);
                assertThat(r.failed).isEmpty();
            });
            assertThat(pair.receivedByB).hasSameSizeAs(sent);
            for (int i = 0; i < sent.size(); i++) {
                assertThat(pair.receivedByB.get(i).data()).as("message %d", i).isEqualTo(sent.get(i));
            }
            if (loss == 0) {
                assertThat(pair.a.stats().channel(0).messagesResent()).isZero();
            }
        }
    }

    private static byte[] payload(int n, int length) {
        byte[] p = new byte[length];
        for (int i = 0; i < length; i++) {
            p[i] = (byte) (n * 31 + i);
        }
        return p;
    }

    @Test
    void aThrowingCompletionIsCountedAndNeverEscapes() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, UNRELIABLE));
        Recorder bad = new Recorder();
        bad.throwing = true;
        pair.a.offer(0, new byte[4], bad);
        pair.a.offer(1, new byte[4], bad);
        pair.a.offer(0, new byte[4], bad);
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 2, DT)).isTrue();
        assertThat(bad.delivered).hasSize(3);
        assertThat(pair.a.stats().listenerErrors()).isEqualTo(3);
        assertThat(pair.receivedByB).hasSize(3);
    }

    @Test
    void statsSnapshotCarriesChannelsAndThePacketLayer() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, UNRELIABLE),
                new LinkConditionerConfig(20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 7), LinkConditionerConfig.PERFECT);
        MessageStats before = pair.a.stats();
        assertThat(before.channels()).hasSize(2);
        assertThat(before.packetLayer().counters()).containsOnlyKeys(
                java.util.Arrays.stream(PacketCounter.values()).map(PacketCounter::referenceName).toArray(String[]::new));
        for (int i = 0; i < 20; i++) {
            pair.a.offer(0, new byte[16]);
        }
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 3, DT)).isTrue();
        MessageStats s = pair.a.stats();
        assertThat(s.channel(0).messagesAcked()).isEqualTo(20);
        assertThat(s.channel(1).mode()).isEqualTo(UNRELIABLE);
        assertThat(s.queuedMessages()).isZero();
        assertThat(s.packetsSent()).isPositive();
        assertThat(s.datagramsSent()).isGreaterThanOrEqualTo(s.packetsSent() + s.ackOnlyPacketsSent());
        assertThat(s.rttMillis()).isGreaterThan(15);
        assertThat(s.packetLayer().rttMillis()).isPositive();
        assertThat(s.packetLayer().counters().get(PacketCounter.NUM_PACKETS_SENT.referenceName()))
                .isEqualTo(s.packetsSent() + s.ackOnlyPacketsSent());
        // a snapshot does not move with the endpoint
        pair.a.offer(0, new byte[16]);
        assertThat(s.channel(0).messagesSent()).isEqualTo(20);
        assertThat(pair.a.stats().channel(0).messagesSent()).isEqualTo(21);
    }

    @Test
    void rttSamplesOfThePacketLayerArePassedUp() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED),
                new LinkConditionerConfig(10, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 3), LinkConditionerConfig.PERFECT);
        List<Float> samples = new ArrayList<>();
        pair.a.setRttListener(samples::add);
        pair.a.offer(0, new byte[8]);
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 2, DT)).isTrue();
        assertThat(samples).isNotEmpty().allSatisfy(ms -> assertThat(ms).isBetween(10f, 1000f));
        pair.a.setRttListener(null);
        int seen = samples.size();
        pair.a.offer(0, new byte[8]);
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 2, DT)).isTrue();
        pair.run(0.2, DT);
        assertThat(samples).hasSize(seen);
    }
}
