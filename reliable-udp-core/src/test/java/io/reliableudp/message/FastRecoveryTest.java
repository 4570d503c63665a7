package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fast recovery and the resend timer, on a simulated clock over seeded link conditioners (no timing):
 * a lost packet's messages go again on the first ack that shows the hole, once per evidence;
 * reordering within the reorder window is not taken for loss; tail loss is left to the timer, whose
 * repeated timeouts back off; a 60 Hz stream is the traffic (20 ms each way unless said otherwise).
 */
@Timeout(120)
class FastRecoveryTest {

    private static final double EVENT = 1.0 / 60;

    /**
     * The resend timer out of the way (a 100 ms floor, where it would be about 45 ms on this link):
     * the tests that ask which mechanism resent see fast recovery alone.
     */
    private static final MessageConfig SLOW_TIMER = LossSim.config(0, false).toBuilder().minResendIntervalSeconds(0.1).build();

    /** A prompt sim over a clean 20 ms link; {@code warmUp} messages at 60 Hz settle the RTT estimate. */
    private static LossSim warmSim(int warmUp, int capacity) {
        return warmSim(LossSim.config(0, false), warmUp, capacity);
    }

    private static LossSim warmSim(MessageConfig config, int warmUp, int capacity) {
        return LossSim.warm(config, warmUp, capacity);
    }

    @Test
    void aLostPacketsMessageIsResentOnTheFirstAckThatShowsTheHole() {
        LossSim sim = warmSim(SLOW_TIMER, 30, 64);
        int lost = sim.offered;
        sim.dropAB = d -> LossSim.carries(d, lost) && sim.dropped == 0;
        sim.offer(64);
        double lostAt = sim.time;
        sim.run(EVENT);
        sim.offer(64); // the next event: its ack shows the hole
        // step until the ack of the second packet arrives; the resend must leave in that same step
        double ackExpected = sim.time + 0.040;
        long acksBefore = sim.a.stats().channel(0).messagesAcked();
        while (sim.a.stats().channel(0).messagesAcked() == acksBefore) {
            sim.step();
            assertThat(sim.time).isLessThan(ackExpected + 0.01);
        }
        MessageStats s = sim.a.stats();
        assertThat(s.packetsDeclaredLost()).isEqualTo(1);
        assertThat(s.fastResends()).as("resent in the step the hole was seen").isEqualTo(1);
        assertThat(s.timerResends()).isZero();
        assertThat(sim.a.nextResendDueTime()).as("nothing due any more").isGreaterThan(sim.time);
        double resentAfter = sim.time - lostAt;
        // one event interval plus one round trip, well before the timer
        assertThat(resentAfter).isBetween(EVENT + 0.040, EVENT + 0.042);
        assertThat(resentAfter).isLessThan(s.resendIntervalSeconds());
        assertThat(sim.runUntilDelivered(lost, 1)).isTrue();
        System.out.printf("FastRecoveryTest: lost message resent %.1f ms after its send (timer: %.1f ms, reorder window %.1f ms)%n",
                resentAfter * 1000, s.resendIntervalSeconds() * 1000, s.reorderWindowSeconds() * 1000);
        assertThat(sim.deliveries[lost]).isEqualTo(1);
    }

    @Test
    void theHoleIsMarkedDueNowForTheScheduler() {
        // a scheduler that only flushes when nextResendDueTime() has come: the time is "now" once the hole is seen
        LossSim sim = warmSim(SLOW_TIMER, 30, 64);
        int lost = sim.offered;
        sim.dropAB = d -> LossSim.carries(d, lost) && sim.dropped == 0;
        sim.offer(64);
        assertThat(sim.a.nextResendDueTime()).as("only the timer, later").isGreaterThan(sim.time + 0.04);
        sim.run(EVENT);
        sim.offer(64);
        double before = sim.a.nextResendDueTime();
        boolean seen = false;
        for (int i = 0; i < 200 && !seen; i++) {
            sim.time += LossSim.STEP;
            sim.ab.poll(sim.time, sim.b::receive);
            sim.b.flush(sim.time);
            sim.ba.poll(sim.time, sim.a::receive);
            seen = sim.a.stats().packetsDeclaredLost() == 1;
        }
        assertThat(seen).isTrue();
        assertThat(sim.a.nextResendDueTime()).isLessThanOrEqualTo(sim.time).isLessThan(before);
        sim.a.flush(sim.time);
        assertThat(sim.a.stats().fastResends()).isEqualTo(1);
        assertThat(sim.a.nextResendDueTime()).isGreaterThan(sim.time);
    }

    @Test
    void theSameEvidenceNeverResendsTwiceAndNewEvidenceResendsAgain() {
        LossSim sim = warmSim(SLOW_TIMER, 30, 128);
        int lost = sim.offered;
        // lose the message, its first resend and that resend's copy in the next packet (with that packet's
        // own event): the resend's packet was not the message's last carrier, so two pieces of evidence for
        // the message (its first packet, the copy's) and one for the event: three fast resends
        sim.dropAB = d -> LossSim.carries(d, lost) && sim.dropped < 3;
        for (int i = 0; i < 20; i++) {
            sim.offer(64);
            sim.run(EVENT);
        }
        sim.run(0.3);
        MessageStats s = sim.a.stats();
        assertThat(sim.dropped).isEqualTo(3);
        assertThat(sim.deliveries[lost]).isEqualTo(1);
        // every later packet's ack showed the same holes again: still one resend per lost packet
        assertThat(s.fastResends()).isEqualTo(3);
        assertThat(s.timerResends()).isZero();
        assertThat(s.channel(0).messagesResent()).isEqualTo(3);
        // no duplicate at B beyond the copies of the repairs that went twice
        assertThat(sim.b.stats().channel(0).duplicatesDropped()).isLessThanOrEqualTo(s.redundantCopies());
        assertThat(sim.a.hasPendingReliable()).isFalse();
    }

    @Test
    void reorderingWithinTheReorderWindowCausesNoSpuriousResend() {
        // 500 messages/s over 20 ms + 0..8 ms jitter each way: packets 2 ms apart overtake each other, by
        // less than 8 ms; the window is min RTT / 4 >= 10 ms, so none of them is taken for lost
        Result within = reorder(8, 11);
        System.out.println("FastRecoveryTest reordering within the window (jitter 0..8 ms): " + within);
        assertThat(within.reordered).as("packets were reordered").isPositive();
        assertThat(within.fast).isZero();
        assertThat(within.spurious).isZero();
        assertThat(within.timer).isZero();
        // the same with 0..40 ms of jitter reorders beyond the window: some spurious verdicts, and the window widens
        Result beyond = reorder(40, 11);
        System.out.println("FastRecoveryTest reordering beyond the window (jitter 0..40 ms): " + beyond);
        assertThat(beyond.spurious).isPositive();
        assertThat(beyond.windowMillis).isGreaterThan(within.windowMillis);
    }

    record Result(long reordered, long fast, long timer, long spurious, double windowMillis, long duplicates) {
    }

    private static Result reorder(double jitterMillis, long seed) {
        // unordered, so that B's delivery order is the packets' arrival order
        LossSim sim = new LossSim(LossSim.config(DeliveryMode.RELIABLE_UNORDERED, 0, false), LossSim.link(20, jitterMillis, 0, seed),
                LossSim.link(20, jitterMillis, 0, seed + 1), true, 6000);
        for (int i = 0; i < 5000; i++) {
            sim.offer(32);
            sim.run(0.002);
        }
        sim.run(1);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        for (int i = 0; i < 5000; i++) {
            assertThat(sim.deliveries[i]).isEqualTo(1);
        }
        MessageStats s = sim.a.stats();
        return new Result(countReordered(sim), s.fastResends(), s.timerResends(), s.spuriousLossDetections(),
                s.reorderWindowSeconds() * 1000, sim.b.stats().channel(0).duplicatesDropped());
    }

    /** Messages B received before the one sent just before them (the conditioner counts only its explicit reorders). */
    private static long countReordered(LossSim sim) {
        long n = 0;
        for (int i = 1; i < sim.offered; i++) {
            if (sim.deliveredAt[i] >= 0 && sim.deliveredAt[i - 1] >= 0 && sim.deliveredAt[i] < sim.deliveredAt[i - 1]) {
                n++;
            }
        }
        return n;
    }

    @Test
    void tailLossIsRepairedByTheTimer() {
        LossSim sim = warmSim(30, 64);
        int last = sim.offered;
        sim.dropAB = d -> LossSim.carries(d, last) && sim.dropped == 0;
        sim.offer(64);
        double sentAt = sim.time;
        double interval = sim.a.stats().resendIntervalSeconds();
        // nothing after it: no ack can show the hole
        assertThat(sim.runUntilDelivered(last, 2)).isTrue();
        MessageStats s = sim.a.stats();
        assertThat(s.fastResends()).isZero();
        assertThat(s.timerResends()).isEqualTo(1);
        double resendDelay = sim.deliveredAt[last] - 0.020 - sentAt;
        System.out.printf("FastRecoveryTest tail loss: resent %.1f ms after the send (interval %.1f ms, srtt %.1f ms)%n",
                resendDelay * 1000, interval * 1000, s.rttMillis());
        // at the interval (to a step): on this steady path 1.25 srtt (about 49 ms), which
        // srtt + max(4 rttvar, the peer's tick not yet in srtt) + the ack delay does not exceed
        assertThat(resendDelay).isBetween(interval - 1e-9, interval + 2 * LossSim.STEP);
        assertThat(interval).isLessThan(0.050);
    }

    @Test
    void repeatedTimeoutsBackOffAndTheFirstAckAfterAnOutageRepairsAtOnce() {
        LossSim sim = warmSim(30, 256);
        double interval = sim.a.stats().resendIntervalSeconds();
        // a 3 s outage from A to B with one message in flight
        boolean[] outage = {true};
        sim.dropAB = d -> outage[0];
        int stuck = sim.offer(64);
        sim.run(3.0);
        long timeouts = sim.a.stats().timerResends();
        // interval, 2x, 4x, ... capped at the 1 s max: about 6 in 3 s, where a fixed interval gives 3 s / interval
        System.out.printf("FastRecoveryTest outage: %d timer resends in 3 s (interval %.1f ms, %d without backoff)%n",
                timeouts, interval * 1000, (long) (3.0 / interval));
        assertThat(timeouts).isBetween(4L, 7L);
        // the path returns; the next event's ack shows the stuck message's last packet lost: resent at once,
        // without waiting for the backed-off timer (up to 1 s away)
        outage[0] = false;
        double back = sim.time;
        sim.offer(64);
        assertThat(sim.runUntilDelivered(stuck, 2)).isTrue();
        double repaired = sim.deliveredAt[stuck] - back;
        System.out.printf("FastRecoveryTest outage: the stuck message arrived %.1f ms after the path returned%n", repaired * 1000);
        assertThat(repaired).isLessThan(0.1);
        // the next event's packet carried a copy of the last timer resend (a repair goes twice), which
        // arrived: no fast resend was needed
        assertThat(sim.a.stats().fastResends() + sim.a.stats().redundantCopies()).isPositive();
        sim.run(0.3);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        // backoff is per message: a new tail loss waits the plain interval again
        int tail = sim.offered;
        int droppedBefore = sim.dropped;
        sim.dropAB = d -> LossSim.carries(d, tail) && sim.dropped == droppedBefore;
        sim.offer(64);
        double sentAt = sim.time;
        double plain = sim.a.stats().resendIntervalSeconds();
        assertThat(sim.runUntilDelivered(tail, 2)).isTrue();
        assertThat(sim.deliveredAt[tail] - 0.020 - sentAt).isLessThan(plain + 2 * LossSim.STEP);
    }

    @Test
    void aSlicedMessageInProgressCountsForTheNextResendDueTime() {
        LossSim sim = warmSim(30, 64);
        assertThat(sim.a.nextResendDueTime()).as("nothing in flight").isEqualTo(Double.POSITIVE_INFINITY);
        // 40 slices, at most 16 packets in flight before any ack: the message stays at the channel's tail
        // with slices sent and others unsent, and its slices' timer is what the scheduler must wake for
        sim.a.offer(0, new byte[40 * 1024]);
        sim.a.flush(sim.time);
        double due = sim.a.nextResendDueTime();
        assertThat(due).isGreaterThan(sim.time).isLessThan(sim.time + 1);
        sim.run(2);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        assertThat(sim.a.nextResendDueTime()).isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void withoutFastRecoveryOnlyTheTimerResends() {
        MessageConfig config = LossSim.config(0, false).toBuilder().fastRecovery(false).build();
        LossSim sim = new LossSim(config, LossSim.link(20, 0, 0.1, 5), LossSim.link(20, 0, 0.1, 6), true, 2000);
        for (int i = 0; i < 1000; i++) {
            sim.offer(64);
            sim.run(EVENT);
        }
        sim.run(2);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        assertThat(sim.a.stats().fastResends()).isZero();
        // the verdict from the acks still runs (the congestion controller reads it); it marks nothing
        assertThat(sim.a.stats().packetsDeclaredLost()).isPositive();
        assertThat(sim.a.stats().timerResends()).isPositive();
    }

}
