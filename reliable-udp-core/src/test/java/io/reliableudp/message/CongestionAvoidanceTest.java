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
        long before = pair.a.stats().packetsSent();
        int steps = (int) Math.round(seconds / DT);
        for (int i = 0; i < steps; i++) {
            pair.a.offer(0, new byte[100]);
            boolean was = pair.a.stats().congested();
            pair.step(DT);
            if (TRACE && was != pair.a.stats().congested()) {
                System.out.printf("t=%.2f congested=%s rtt=%.1f loss=%.1f penalty=%.1f%n", pair.time, pair.a.stats().congested(),
                        pair.a.stats().rttMillis(), pair.a.stats().packetLossPercent(), pair.a.stats().congestionPenaltySeconds());
            }
        }
        return (pair.a.stats().packetsSent() - before) / seconds;
    }

    @Test
    void rateFallsWhenRttOrLossRiseAndRecoversAfter() {
        // Gaffer's good/bad mode; the packet rate is the tick rate: TICK mode
        EndpointPair pair = new EndpointPair(EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder().sendRateHz(60)
                .congestionControl(MessageConfig.CongestionControl.GAFFER).sendMode(MessageConfig.SendMode.TICK).build(),
                link(10, 0, 1), link(10, 0, 2));
        double good = drive(pair, 15);
        assertThat(pair.a.stats().congested()).isFalse();
        assertThat(pair.a.stats().sendRateHz()).isEqualTo(60);
        assertThat(good).isBetween(55.0, 61.0);
        assertThat(pair.a.stats().congestionPenaltySeconds()).isEqualTo(2.0); // halved after 10 s of good mode

        // RTT rises above 250 ms
        pair.ab.reconfigure(link(200, 0, 1));
        pair.ba.reconfigure(link(200, 0, 2));
        drive(pair, 5);
        assertThat(pair.a.stats().congested()).isTrue();
        double bad = drive(pair, 5);
        assertThat(pair.a.stats().sendRateHz()).isEqualTo(20);
        assertThat(bad).isBetween(18.0, 21.0);
        assertThat(pair.a.stats().rttMillis()).isGreaterThan(250);

        // back to a good link: recovers after the penalty time
        pair.ab.reconfigure(link(10, 0, 1));
        pair.ba.reconfigure(link(10, 0, 2));
        drive(pair, 6);
        assertThat(pair.a.stats().congested()).isFalse();
        double recovered = drive(pair, 3);
        assertThat(recovered).isBetween(55.0, 61.0);

        // loss above the threshold soon after returning to good: bad again, and the penalty doubles
        double penalty = pair.a.stats().congestionPenaltySeconds();
        pair.ab.reconfigure(link(10, 0.3, 1));
        drive(pair, 3);
        assertThat(pair.a.stats().congested()).isTrue();
        assertThat(pair.a.stats().packetLossPercent()).isGreaterThan(10);
        assertThat(pair.a.stats().congestionPenaltySeconds()).isEqualTo(penalty * 2);
        assertThat(drive(pair, 3)).isBetween(18.0, 21.0);

        pair.ab.reconfigure(link(10, 0, 1));
        drive(pair, 20);
        assertThat(pair.a.stats().congested()).isFalse();
        assertThat(drive(pair, 3)).isBetween(55.0, 61.0);
        assertThat(pair.a.stats().congestionEpisodes()).isEqualTo(2);
        // nothing was lost on the way
        assertThat(pair.b.stats().channel(0).messagesReceived()).isEqualTo(pair.a.stats().channel(0).messagesAcked()
                + pair.a.stats().channel(0).queuedMessages() - countUnreceived(pair));
    }

    private static long countUnreceived(EndpointPair pair) {
        // messages queued at A that B has not received yet: run the link clean until A has nothing pending
        long before = pair.b.stats().channel(0).messagesReceived();
        pair.runUntil(() -> !pair.a.hasPendingReliable(), 30, DT);
        return pair.b.stats().channel(0).messagesReceived() - before;
    }

    @Test
    void disabledCongestionAvoidanceKeepsTheRate() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder()
                .congestionAvoidance(false).sendMode(MessageConfig.SendMode.TICK).build(), link(300, 0.2, 1), link(300, 0, 2));
        drive(pair, 5);
        assertThat(pair.a.stats().congested()).isFalse();
        assertThat(pair.a.stats().sendRateHz()).isEqualTo(60);
        assertThat(drive(pair, 5)).isGreaterThan(55.0);
    }

    @Test
    void controllerPenaltyStaysWithinOneToSixtySeconds() {
        GafferController c = new GafferController(true, 60, 250, 10, 0, new PacketLog(1024), false, 0);
        double t = 0;
        for (int i = 0; i < 20; i++) {
            c.update(t, 300, 0); // bad
            t += c.penaltySeconds() + 0.5;
            c.update(t - 0.01, 100, 0);
            c.update(t, 100, 0); // good again after the penalty
            assertThat(c.congested()).isFalse();
            t += 1;
        }
        assertThat(c.penaltySeconds()).isEqualTo(GafferController.MAX_PENALTY_SECONDS);
        for (int i = 0; i < 20; i++) {
            t += 10;
            c.update(t, 100, 0);
        }
        assertThat(c.penaltySeconds()).isEqualTo(GafferController.MIN_PENALTY_SECONDS);
    }

    /** What a bulk transfer through the bottleneck achieved. */
    record Bulk(double deliveredBytesPerSecond, long queueDrops, boolean congested, double estimate, long lost) {
    }

    /** Bulk transfer through a 200 kB/s bottleneck with a 32 kB queue for 20 s. */
    private static Bulk bulkThroughBottleneck(MessageConfig config) {
        LinkConditionerConfig bottleneck = new LinkConditionerConfig(25, 0, 0, 0, 1, 0, 0, 0, 0, 200_000, 32_000, 1);
        EndpointPair pair = new EndpointPair(config, bottleneck, link(25, 0, 2));
        pair.followDeadlines = true; // as the node's I/O loop drives it: the pacing decides when packets go
        pair.recordB = false;
        byte[] chunk = new byte[1000];
        double start = pair.time;
        int steps = (int) Math.round(20 / DT);
        for (int i = 0; i < steps; i++) {
            while (pair.a.offer(0, chunk) >= 0) {
                // keep the queue full: a bulk sender
            }
            pair.step(DT);
            if (TRACE && i % 60 == 0) {
                trace(pair);
            }
        }
        double seconds = pair.time - start;
        MessageStats a = pair.a.stats();
        Bulk result = new Bulk(pair.b.stats().channel(0).messagesReceived() * 1000.0 / seconds, pair.ab.droppedQueueFull(),
                a.congested(), a.bandwidthEstimateBytesPerSecond(), a.packetsLost());
        System.out.printf("  bulk through 200 kB/s (%s%s): %.0f B/s delivered, %d queue drops, congested=%s rtt=%.0f ms"
                + " episodes=%d packets=%d lost=%d%n", config.congestionControl(),
                config.congestionControl() == MessageConfig.CongestionControl.GAFFER ? ", bandwidth estimation "
                        + config.bandwidthEstimation() : "", result.deliveredBytesPerSecond(), result.queueDrops(),
                a.congested(), a.rttMillis(), a.congestionEpisodes(), a.packetsSent(), a.packetsLost());
        return result;
    }

    static void trace(EndpointPair pair) {
        CongestionController c = pair.a.congestionController();
        MessageStats s = pair.a.stats();
        String model = c instanceof DeliveryRateController d
                ? String.format(" %s bw=%.0f minRtt=%.1f randomLoss=%.3f policed=%d", d.mode(), d.bandwidth(), d.minRtt() * 1000, d.randomLoss(), d.policerEpisodes())
                : "";
        System.out.printf("t=%.2f pacing=%.0f cwnd=%d inflight=%d congested=%s rtt=%.1f lost=%d%s%n", pair.time,
                c.pacingRateBytesPerSecond(), c.inflightLimitBytes(), s.bytesInFlight(), s.congested(), s.rttMillis(),
                s.packetsLost(), model);
    }

    @Test
    void bottleneckDoesNoWorseWithTheDefaultThanWithGafferAndTheEstimate() {
        MessageConfig base = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder()
                .channels(java.util.List.of(new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, 4096, 64L << 20))).build();
        MessageConfig gaffer = base.toBuilder().congestionControl(MessageConfig.CongestionControl.GAFFER).build();
        Bulk deliveryRate = bulkThroughBottleneck(base);
        Bulk estimated = bulkThroughBottleneck(gaffer);
        Bulk gafferOnly = bulkThroughBottleneck(gaffer.toBuilder().bandwidthEstimation(false).build());
        System.out.printf("bottleneck 200 kB/s: DELIVERY_RATE %.0f B/s, %d queue drops; GAFFER with bandwidth estimate %.0f B/s,"
                + " %d queue drops, estimate %.0f B/s; Gaffer only %.0f B/s, %d queue drops%n", deliveryRate.deliveredBytesPerSecond(),
                deliveryRate.queueDrops(), estimated.deliveredBytesPerSecond(), estimated.queueDrops(), estimated.estimate(),
                gafferOnly.deliveredBytesPerSecond(), gafferOnly.queueDrops());
        // message payload is 1000 of every ~1010 bytes on the link: close to the 200 kB/s cap
        assertThat(estimated.deliveredBytesPerSecond()).isGreaterThan(0.85 * 200_000);
        assertThat(estimated.queueDrops()).isLessThan(Math.max(1, gafferOnly.queueDrops() / 10));
        assertThat(estimated.deliveredBytesPerSecond()).isGreaterThan(3 * gafferOnly.deliveredBytesPerSecond());
        assertThat(estimated.estimate()).isBetween(150_000.0, 260_000.0);
        // the new default does no worse than the first milestone's best
        assertThat(deliveryRate.deliveredBytesPerSecond()).isGreaterThanOrEqualTo(0.995 * estimated.deliveredBytesPerSecond());
        assertThat(deliveryRate.queueDrops()).isLessThanOrEqualTo(estimated.queueDrops());
        assertThat(deliveryRate.congested()).isFalse();
    }

    @Test
    void aCallerTickingAtTheSendRateWithJitterSendsOnEveryTick() {
        int[] datagrams = {0};
        // no peer, so no acks: congestion avoidance off, to look at the tick schedule alone
        MessageConfig config = EndpointPair.config(DeliveryMode.UNRELIABLE).toBuilder().congestionAvoidance(false)
                .sendMode(MessageConfig.SendMode.TICK).build();
        MessageEndpoint e = new MessageEndpoint(config, 0, (d, o, l) -> datagrams[0]++,
                (c, id, d, o, l) -> { });
        java.util.SplittableRandom jitter = new java.util.SplittableRandom(5);
        double t = 0;
        for (int i = 0; i < 600; i++) {
            e.offer(0, new byte[10]);
            e.update(t + (jitter.nextDouble() - 0.5) * 0.006); // +-3 ms around a 60 Hz tick
            t += 1.0 / 60;
        }
        assertThat(datagrams[0]).isEqualTo(600);
        // ticking faster than the rate keeps the rate
        datagrams[0] = 0;
        for (int i = 0; i < 10_000; i++) {
            e.offer(0, new byte[10]);
            e.update(t);
            t += 0.001;
        }
        assertThat(datagrams[0]).isBetween(595, 605);
    }
}
