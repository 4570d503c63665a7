package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Repairs on a long path (50 ms each way, a 60 Hz stream of 64-byte events, the default configuration), on
 * a simulated clock over seeded link conditioners (no timing): the resend interval of a steady path is its
 * round trip plus the deviation, not a fixed quarter on top; a repair goes twice (the next data packet carries
 * a copy), so a lost repair costs the next event's spacing rather than another resend interval; and where the
 * repair is acknowledged before the next packet leaves (a loopback), or where a packet resent a burst of
 * messages at once (a stall, an outage), nothing is copied.
 */
class LongPathRepairTest {

    private static final double EVENT = 1.0 / 60;

    /** A prompt sim with the defaults over {@code oneWayMillis} (+ 0..jitter) each way, warmed by 60 events. */
    private static LossSim warm(double oneWayMillis, double jitterMillis, double step) {
        MessageConfig config = MessageConfig.builder()
                .channels(java.util.List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED)))
                .sendMode(MessageConfig.SendMode.TICK) // LossSim runs the prompt schedule itself
                .build();
        LossSim sim = new LossSim(config, LossSim.link(oneWayMillis, jitterMillis, 0, 7), LossSim.link(oneWayMillis, jitterMillis, 0, 8),
                true, 256, step);
        for (int i = 0; i < 60; i++) {
            sim.offer(64);
            sim.run(EVENT);
        }
        sim.run(0.5);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        return sim;
    }

    @Test
    void theResendIntervalOfASteadyLongPathIsItsRoundTripPlusTheDeviation() {
        LossSim sim = warm(50, 1, LossSim.STEP);
        MessageStats s = sim.a.stats();
        double srtt = s.rttMillis() / 1000;
        double interval = s.resendIntervalSeconds();
        System.out.printf("LongPathRepairTest steady 100 ms: srtt %.1f ms, resend interval %.1f ms%n", srtt * 1000, interval * 1000);
        assertThat(srtt).isBetween(0.100, 0.104);
        // srtt + 4 rttvar + the ack delay on a path that jitters by 1 ms: about 1.1 srtt; a factor of 1.25
        // would hold every repair back by another 15 ms of a 100 ms round trip
        assertThat(interval).isLessThan(1.15 * srtt);
    }

    @Test
    void aLostRepairIsMadeGoodByTheCopyInTheNextPacket() {
        LossSim sim = warm(50, 1, LossSim.STEP);
        double interval = sim.a.stats().resendIntervalSeconds();
        int lost = sim.offered;
        int[] carriers = {0};
        // the event's own packet and its first repair are lost
        sim.dropAB = d -> LossSim.carries(d, lost) && ++carriers[0] <= 2;
        long copiesBefore = sim.a.stats().redundantCopies();
        for (int i = 0; i < 30; i++) {
            sim.offer(64);
            sim.run(EVENT);
        }
        assertThat(sim.runUntilDelivered(lost, 2)).isTrue();
        double latency = sim.deliveredAt[lost] - sim.sentAt[lost];
        System.out.printf("LongPathRepairTest lost repair: delivered after %.1f ms (interval %.1f ms, copies %d)%n",
                latency * 1000, interval * 1000, sim.a.stats().redundantCopies() - copiesBefore);
        assertThat(carriers[0]).isGreaterThanOrEqualTo(3);
        assertThat(sim.a.stats().redundantCopies()).isGreaterThan(copiesBefore);
        // the copy rides the next event (within 1/60 s of the repair): well before a second repair (another interval)
        assertThat(latency).isLessThan(2 * interval + 0.050 - 0.030);
    }

    @Test
    void aBurstOfTimeoutsIsNotCopied() {
        LossSim sim = warm(50, 1, LossSim.STEP);
        long copiesBefore = sim.a.stats().redundantCopies();
        boolean[] outage = {true};
        sim.dropAB = d -> outage[0];
        int first = sim.offered;
        for (int i = 0; i < 10; i++) {
            sim.offer(64); // a burst: ten messages in one packet, whose timers run out together
        }
        sim.run(0.5);
        assertThat(sim.a.stats().timerResends()).isGreaterThanOrEqualTo(10);
        outage[0] = false;
        sim.offer(64);
        assertThat(sim.runUntilDelivered(first + 10, 3)).isTrue();
        // every resend packet resent ten messages: more than a repair of random loss, so nothing was copied
        assertThat(sim.a.stats().redundantCopies()).isEqualTo(copiesBefore);
    }

    @Test
    void aRepairAcknowledgedBeforeTheNextPacketIsNotCopied() {
        LossSim sim = warm(0.1, 0.1, 0.00005);
        int lost = sim.offered;
        sim.dropAB = d -> LossSim.carries(d, lost) && sim.dropped == 0;
        for (int i = 0; i < 10; i++) {
            sim.offer(64);
            sim.run(EVENT);
        }
        assertThat(sim.deliveredAt[lost]).isPositive();
        MessageStats s = sim.a.stats();
        assertThat(s.timerResends() + s.fastResends()).isEqualTo(1);
        assertThat(s.redundantCopies()).isZero();
    }
}
