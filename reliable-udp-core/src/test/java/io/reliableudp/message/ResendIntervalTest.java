package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Spurious resends of reliable messages on a jittery but loss-free link, and the cost of the resend rule
 * on a lossy link. Deterministic: simulated clock, seeded link conditioner, both sides ticking at 60 Hz.
 * Prints the figures ({@code resent/sent}, delivery latency) so before/after can be compared
 * ({@code -Dresend.seconds=N} sizes the stream; the bounds below are for the 30 s default).
 *
 * <p>Figures for the 30 s default (1800 messages): with the old rule clamp(1.25 x srtt) the clean link
 * resent 361 (20.06%), the lossy link 209 (11.61%) at a mean latency of 56.6 ms (max 261.5 ms); with
 * clamp(max(1.25 x srtt, srtt + 4 x rttvar)) the clean link resends 5 (0.28%), the lossy link 192
 * (10.67%) at a mean latency of 64.1 ms (max 355.0 ms); both drain within 0.1 s of the last send. With
 * fast recovery and the ack-delay floor (srtt + max(4 rttvar, the peer's tick not yet in srtt) + 1 ms,
 * one RTT sample per ack header): clean 9 (0.50%), lossy 192 (10.67%, some of them fast) at a mean of
 * 61.9 ms (max 312.5 ms).
 */
@Timeout(60)
class ResendIntervalTest {

    private static final double TICK = 1.0 / 60;
    /** Fine clock step: datagrams arrive (and are handed to {@code receive}) between the ticks. */
    private static final double STEP = 0.0005;
    /** B's ticks lag A's by this much, so the two 60 Hz schedules are out of phase. */
    private static final double B_PHASE = 0.0073;
    private static final double SECONDS = Double.parseDouble(System.getProperty("resend.seconds", "30"));

    record Result(long sent, long resent, double meanLatencyMillis, double maxLatencyMillis, double drainSeconds) {
        double resentPercent() {
            return 100.0 * resent / sent;
        }
    }

    private static LinkConditionerConfig link(double loss, long seed) {
        return new LinkConditionerConfig(20, 10, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, seed);
    }

    /** One reliable 100-byte message per tick from A to B for {@code SECONDS}, then runs until all are delivered. */
    private static Result run(double loss) {
        // the figures of docs/messages.md are the tick model's (acks on the peer's tick): TICK mode
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder().sendRateHz(60)
                .sendMode(MessageConfig.SendMode.TICK).build();
        EndpointPair pair = new EndpointPair(config, link(loss, 11), link(loss, 12));
        pair.recordB = false;
        int count = (int) Math.round(SECONDS / TICK);
        double[] sentAt = new double[count];
        double[] latency = {0, 0};
        int[] received = {0};
        pair.extraB = (c, id, d, o, l) -> {
            int index = ByteBuffer.wrap(d, o, l).getInt();
            double lat = pair.time - sentAt[index];
            latency[0] += lat;
            latency[1] = Math.max(latency[1], lat);
            received[0]++;
        };
        double start = pair.time;
        long steps = 0;
        int offered = 0;
        long aTicks = 0;
        long bTicks = 0;
        double lastOffer = start;
        double end = start + SECONDS + 30;
        while (pair.time < end && (offered < count || received[0] < count || pair.a.hasPendingReliable())) {
            pair.time = start + ++steps * STEP;
            pair.ab.poll(pair.time, pair.b::receive);
            pair.ba.poll(pair.time, pair.a::receive);
            if (pair.time >= start + (aTicks + 1) * TICK - 1e-9) {
                aTicks++;
                if (offered < count) {
                    byte[] payload = new byte[100];
                    ByteBuffer.wrap(payload).putInt(offered);
                    sentAt[offered] = pair.time;
                    assertThat(pair.a.offer(0, payload)).isGreaterThanOrEqualTo(0);
                    lastOffer = pair.time;
                    offered++;
                }
                pair.a.update(pair.time);
            }
            if (pair.time >= start + B_PHASE + (bTicks + 1) * TICK - 1e-9) {
                bTicks++;
                pair.b.update(pair.time);
            }
        }
        assertThat(received[0]).isEqualTo(count);
        assertThat(pair.a.hasPendingReliable()).isFalse();
        ChannelStats stats = pair.a.stats().channel(0);
        assertThat(stats.messagesSent()).isEqualTo(count);
        return new Result(stats.messagesSent(), stats.messagesResent(), 1000 * latency[0] / count, 1000 * latency[1],
                pair.time - lastOffer);
    }

    private static void print(String name, Result r) {
        System.out.printf("ResendIntervalTest %s: sent=%d resent=%d (%.2f%%) meanLatency=%.1f ms maxLatency=%.1f ms drain=%.3f s%n",
                name, r.sent(), r.resent(), r.resentPercent(), r.meanLatencyMillis(), r.maxLatencyMillis(), r.drainSeconds());
    }

    @Test
    void fewSpuriousResendsOnAJitteryLossFreeLink() {
        Result clean = run(0);
        print("clean (20 ms +0..10 ms jitter, no loss)", clean);
        Result lossy = run(0.10);
        print("lossy (20 ms +0..10 ms jitter, 10% loss)", lossy);
        // With the resend interval at 1.25 x srtt alone, 20% of the messages on the clean link were
        // resent needlessly; with srtt + 4 x rttvar it is a handful, all before the estimate settles.
        assertThat(clean.resentPercent()).isLessThan(1.0);
        assertThat(clean.maxLatencyMillis()).isLessThanOrEqualTo(30.0 + 1e-6);
        // The cost on a lossy link: mean delivery latency was 56.6 ms with 1.25 x srtt (helped by the
        // spurious resends), 64.1 ms now; the bound keeps it from drifting further.
        assertThat(lossy.resentPercent()).isBetween(5.0, 15.0);
        assertThat(lossy.meanLatencyMillis()).isLessThan(70.0);
        assertThat(lossy.drainSeconds()).isLessThan(0.5);
    }
}
