package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Congestion avoidance driven through the link conditioner: the rate falls when RTT or loss rise and recovers after. */
@Timeout(60)
class CongestionAvoidanceTest {

    private static final double DT = 1.0 / 240;
    private static final boolean TRACE = Boolean.getBoolean("congestion.trace");

    private static LinkConditionerConfig link(double latencyMillis, double loss, long seed) {
        return new LinkConditionerConfig(latencyMillis, 2, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, seed);
    }

    /** Runs for {@code seconds} with a steady stream of messages; returns the packets A sent per second. */
    private static double drive(EndpointPair pair, double seconds) {
        long before = pair.a.packetsSent();
        int steps = (int) Math.round(seconds / DT);
        for (int i = 0; i < steps; i++) {
            pair.a.offer(0, new byte[100]);
            boolean was = pair.a.congested();
            pair.step(DT);
            if (TRACE && was != pair.a.congested()) {
                System.out.printf("t=%.2f congested=%s rtt=%.1f loss=%.1f penalty=%.1f%n", pair.time, pair.a.congested(),
                        pair.a.rttMillis(), pair.a.packetLossPercent(), pair.a.congestionPenaltySeconds());
            }
        }
        return (pair.a.packetsSent() - before) / seconds;
    }

    @Test
    void rateFallsWhenRttOrLossRiseAndRecoversAfter() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder().sendRateHz(60).build(),
                link(10, 0, 1), link(10, 0, 2));
        double good = drive(pair, 15);
        assertThat(pair.a.congested()).isFalse();
        assertThat(pair.a.sendRateHz()).isEqualTo(60);
        assertThat(good).isBetween(55.0, 61.0);
        assertThat(pair.a.congestionPenaltySeconds()).isEqualTo(2.0); // halved after 10 s of good mode

        // RTT rises above 250 ms
        pair.ab.reconfigure(link(200, 0, 1));
        pair.ba.reconfigure(link(200, 0, 2));
        drive(pair, 5);
        assertThat(pair.a.congested()).isTrue();
        double bad = drive(pair, 5);
        assertThat(pair.a.sendRateHz()).isEqualTo(20);
        assertThat(bad).isBetween(18.0, 21.0);
        assertThat(pair.a.rttMillis()).isGreaterThan(250);

        // back to a good link: recovers after the penalty time
        pair.ab.reconfigure(link(10, 0, 1));
        pair.ba.reconfigure(link(10, 0, 2));
        drive(pair, 6);
        assertThat(pair.a.congested()).isFalse();
        double recovered = drive(pair, 3);
        assertThat(recovered).isBetween(55.0, 61.0);

        // loss above the threshold soon after returning to good: bad again, and the penalty doubles
        double penalty = pair.a.congestionPenaltySeconds();
        pair.ab.reconfigure(link(10, 0.3, 1));
        drive(pair, 3);
        assertThat(pair.a.congested()).isTrue();
        assertThat(pair.a.packetLossPercent()).isGreaterThan(10);
        assertThat(pair.a.congestionPenaltySeconds()).isEqualTo(penalty * 2);
        assertThat(drive(pair, 3)).isBetween(18.0, 21.0);

        pair.ab.reconfigure(link(10, 0, 1));
        drive(pair, 20);
        assertThat(pair.a.congested()).isFalse();
        assertThat(drive(pair, 3)).isBetween(55.0, 61.0);
        assertThat(pair.a.congestionEpisodes()).isEqualTo(2);
        // nothing was lost on the way
        assertThat(pair.b.channelStats(0).messagesReceived()).isEqualTo(pair.a.channelStats(0).messagesAcked()
                + pair.a.channelStats(0).queuedMessages() - countUnreceived(pair));
    }

    private static long countUnreceived(EndpointPair pair) {
        // messages queued at A that B has not received yet: run the link clean until A has nothing pending
        long before = pair.b.channelStats(0).messagesReceived();
        pair.runUntil(() -> !pair.a.hasPendingReliable(), 30, DT);
        return pair.b.channelStats(0).messagesReceived() - before;
    }

    @Test
    void disabledCongestionAvoidanceKeepsTheRate() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder()
                .congestionAvoidance(false).build(), link(300, 0.2, 1), link(300, 0, 2));
        drive(pair, 5);
        assertThat(pair.a.congested()).isFalse();
        assertThat(pair.a.sendRateHz()).isEqualTo(60);
        assertThat(drive(pair, 5)).isGreaterThan(55.0);
    }

    @Test
    void controllerPenaltyStaysWithinOneToSixtySeconds() {
        CongestionController c = new CongestionController(true, 60, 250, 10, 0);
        double t = 0;
        for (int i = 0; i < 20; i++) {
            c.update(t, 300, 0); // bad
            t += c.penaltySeconds() + 0.5;
            c.update(t - 0.01, 100, 0);
            c.update(t, 100, 0); // good again after the penalty
            assertThat(c.congested()).isFalse();
            t += 1;
        }
        assertThat(c.penaltySeconds()).isEqualTo(CongestionController.MAX_PENALTY_SECONDS);
        for (int i = 0; i < 20; i++) {
            t += 10;
            c.update(t, 100, 0);
        }
        assertThat(c.penaltySeconds()).isEqualTo(CongestionController.MIN_PENALTY_SECONDS);
    }
}
