package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The resend timer after a stalled round trip (a receiver descheduled for a while, its packets waiting):
 * the longest recent round trip takes the smoothed RTT's place in the interval, so the next stall of
 * that length costs no resend of a packet that arrived; a late ack behind a lost packet of the peer's
 * (a loss, not a stall) does not lengthen it; and after the window the interval is the RTT-based one
 * again. Simulated clock over a clean 20 ms link each way, a 60 Hz stream (no timing).
 */
@Timeout(60)
class StalledRoundTripTest {

    private static final double EVENT = 1.0 / 60;

    /**
     * The next event, with B stalled from just before the event's packet arrives (20 ms after its send)
     * for {@code stall}, so that it takes that packet {@code stall} late (and nothing before it).
     */
    private static void eventWithStall(LossSim sim, double stall) {
        sim.offer(64);
        sim.run(0.019);
        sim.holdABUntil = sim.time + 0.001 + stall;
        sim.run(EVENT);
    }

    private static void events(LossSim sim, int n) {
        for (int i = 0; i < n; i++) {
            sim.offer(64);
            sim.run(EVENT);
        }
    }

    @Test
    void aStallLikeOneSeenRecentlyCostsNoResendAndTheLengthenedTimerLapses() {
        LossSim sim = LossSim.warm(LossSim.config(0, false), 30, 2048);
        double base = sim.a.stats().resendIntervalSeconds();
        assertThat(base).as("RTT-based: 40 ms round trip plus a few ms").isBetween(0.040, 0.050);

        // the first stall of 30 ms: the ack comes 70 ms after the send, after the timer
        eventWithStall(sim, 0.030);
        sim.run(0.1);
        assertThat(sim.a.stats().timerResends()).as("the first stall is a resend").isEqualTo(1);
        double lengthened = sim.a.stats().resendIntervalSeconds();
        // (the stall's sample raised rttvar too; the longest round trip adds at most the interval again)
        assertThat(lengthened).as("the longest round trip (70 ms) in the smoothed one's place")
                .isBetween(base + 0.025, 0.110);

        // a second stall as long, a second later: its ack comes before the lengthened timer
        events(sim, 60);
        eventWithStall(sim, 0.030);
        sim.run(0.1);
        assertThat(sim.a.stats().timerResends()).as("no resend for the second stall").isEqualTo(1);

        // 5 to 10 s without a stall: the timer is the RTT-based one again
        events(sim, 12 * 60);
        assertThat(sim.a.stats().resendIntervalSeconds()).isBetween(base - 0.002, base + 0.002);
        sim.run(0.2);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        for (int i = 0; i < sim.offered; i++) {
            assertThat(sim.deliveries[i]).as("message %d", i).isEqualTo(1);
        }
    }

    @Test
    void aLateAckBehindALostAckOnlyPacketDoesNotLengthenTheTimer() {
        LossSim sim = LossSim.warm(LossSim.config(0, false), 30, 256);
        double base = sim.a.stats().resendIntervalSeconds();
        long timerBefore = sim.a.stats().timerResends();
        // B's ack of the next event is lost: the event is resent by the timer, and the next ack header
        // (B's packet after the lost one) acknowledges it about 57 ms after its send
        sim.dropBA = d -> sim.droppedBA == 0;
        sim.offer(64);
        sim.run(0.030);
        sim.dropBA = d -> false;
        events(sim, 10);
        assertThat(sim.droppedBA).isEqualTo(1);
        assertThat(sim.a.stats().timerResends()).as("the lost ack cost one resend").isEqualTo(timerBefore + 1);
        assertThat(sim.a.stats().resendIntervalSeconds()).as("not lengthened by that late ack")
                .isBetween(base - 0.002, base + 0.002);
    }
}
