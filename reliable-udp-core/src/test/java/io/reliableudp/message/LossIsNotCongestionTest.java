package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig.CongestionControl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random loss is not congestion: with the default controller a lossy link without a bandwidth cap
 * keeps its send rate (Gaffer's good/bad controller still cuts it), and after an outage the full
 * rate is back within a second. Deterministic: seeded link conditioner, simulated time.
 */
@Timeout(120)
class LossIsNotCongestionTest {

    private static final double DT = 1.0 / 240;
    private static final boolean TRACE = Boolean.getBoolean("congestion.trace");

    private static LinkConditionerConfig link(double latencyMillis, double loss, long seed) {
        return new LinkConditionerConfig(latencyMillis, 2, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, seed);
    }

    private static MessageConfig config(CongestionControl controller) {
        return EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder().congestionControl(controller).build();
    }

    /** What a stream through a lossy link did in its measured part. */
    record Stream(double packetsPerSecond, double congestedShare, double deliveredPerSecond, double finalRateHz) {
    }

    /**
     * A 60 Hz game-style stream (four 100-byte messages per tick) for 30 s through {@code loss} each
     * way, 10 ms each way; the first 5 s are not measured.
     */
    private static Stream stream(CongestionControl controller, double loss) {
        EndpointPair pair = new EndpointPair(config(controller), link(10, loss, 11), link(10, loss, 12));
        pair.recordB = false;
        byte[] message = new byte[100];
        int warmup = (int) Math.round(5 / DT);
        int steps = (int) Math.round(30 / DT);
        long sentBefore = 0;
        long receivedBefore = 0;
        int congestedSteps = 0;
        for (int i = 0; i < steps; i++) {
            if (i == warmup) {
                sentBefore = pair.a.stats().packetsSent();
                receivedBefore = pair.b.stats().channel(0).messagesReceived();
            }
            pair.a.offer(0, message);
            pair.step(DT);
            if (TRACE && i % 240 == 0) {
                CongestionAvoidanceTest.trace(pair);
            }
            if (i >= warmup && pair.a.stats().congested()) {
                congestedSteps++;
            }
        }
        double seconds = (steps - warmup) * DT;
        MessageStats a = pair.a.stats();
        return new Stream((a.packetsSent() - sentBefore) / seconds, congestedSteps / (double) (steps - warmup),
                (pair.b.stats().channel(0).messagesReceived() - receivedBefore) / seconds, a.sendRateHz());
    }

    @ParameterizedTest(name = "loss {0}% each way")
    @ValueSource(ints = {1, 5, 10, 20})
    void randomLossDoesNotCutTheRateOfTheDefaultButGafferStillCutsIt(int percent) {
        double loss = percent / 100.0;
        Stream clean = stream(CongestionControl.DELIVERY_RATE, 0);
        Stream deliveryRate = stream(CongestionControl.DELIVERY_RATE, loss);
        Stream gaffer = stream(CongestionControl.GAFFER, loss);
        System.out.printf("random loss %d%% each way, 60 Hz stream of 240 msg/s: DELIVERY_RATE %.1f packets/s, %.0f%% of the time"
                + " congested, %.1f msg/s delivered; GAFFER %.1f packets/s, %.0f%% congested, %.1f msg/s delivered (clean link %.1f"
                + " packets/s)%n", percent, deliveryRate.packetsPerSecond(), 100 * deliveryRate.congestedShare(),
                deliveryRate.deliveredPerSecond(), gaffer.packetsPerSecond(), 100 * gaffer.congestedShare(),
                gaffer.deliveredPerSecond(), clean.packetsPerSecond());
        // the default keeps the configured 60 Hz and every message still arrives at the offered 240/s
        assertThat(deliveryRate.congestedShare()).isZero();
        assertThat(deliveryRate.finalRateHz()).isEqualTo(60);
        assertThat(deliveryRate.packetsPerSecond()).isGreaterThanOrEqualTo(0.98 * clean.packetsPerSecond());
        assertThat(deliveryRate.deliveredPerSecond()).isBetween(235.0, 245.0);
        if (percent >= 5) {
            // Gaffer's loss estimate counts both directions and its threshold is 10 %: it spends time at 20 Hz
            assertThat(gaffer.congestedShare()).isGreaterThan(0.2);
            assertThat(gaffer.packetsPerSecond()).isLessThan(0.9 * deliveryRate.packetsPerSecond());
        }
    }

    /** A bulk sender (1000-byte messages, queue kept full) for 10 s over a lossy link without a cap: bytes sent per second. */
    private static double bulk(CongestionControl controller, double loss) {
        MessageConfig config = config(controller).toBuilder()
                .channels(java.util.List.of(new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, 4096, 64L << 20))).build();
        EndpointPair pair = new EndpointPair(config, link(10, loss, 21), link(10, loss, 22));
        pair.recordB = false;
        byte[] chunk = new byte[1000];
        int warmup = (int) Math.round(2 / DT);
        int steps = (int) Math.round(12 / DT);
        long before = 0;
        for (int i = 0; i < steps; i++) {
            if (i == warmup) {
                before = pair.a.stats().bytesSent();
            }
            while (pair.a.offer(0, chunk) >= 0) {
                // a bulk sender
            }
            pair.step(DT);
            if (TRACE && i % 120 == 0) {
                CongestionAvoidanceTest.trace(pair);
            }
        }
        return (pair.a.stats().bytesSent() - before) / ((steps - warmup) * DT);
    }

    @Test
    void randomLossDoesNotCutABulkSender() {
        double clean = bulk(CongestionControl.DELIVERY_RATE, 0);
        StringBuilder line = new StringBuilder(String.format("bulk sender, no bandwidth cap, bytes sent/s: clean %.0f", clean));
        for (int percent : new int[] {1, 5, 10, 20}) {
            double deliveryRate = bulk(CongestionControl.DELIVERY_RATE, percent / 100.0);
            double gaffer = bulk(CongestionControl.GAFFER, percent / 100.0);
            line.append(String.format("; %d%%: DELIVERY_RATE %.0f, GAFFER %.0f", percent, deliveryRate, gaffer));
            assertThat(deliveryRate).as("%d%% loss", percent).isGreaterThanOrEqualTo(0.8 * clean);
        }
        System.out.println(line);
    }

    /** What happened after an outage. */
    record Outage(double lastQueueFullAfterReturn, double backlogDrainedAfterReturn, long refusedAfterReturn,
            double pacingBefore, double pacingOneSecondAfter) {
    }

    /**
     * 2000 messages/s of 32 bytes on one reliable-ordered channel with the default queue (4096
     * messages), 10 ms each way; after 5 s both directions drop everything for 2 s, then the path
     * returns; 10 s more.
     */
    private static Outage outage(CongestionControl controller) {
        EndpointPair pair = new EndpointPair(config(controller), link(10, 0, 31), link(10, 0, 32));
        pair.followDeadlines = true; // as the node's I/O loop drives it: the pacing decides when packets go
        pair.recordB = false;
        double perStep = 2000 * DT;
        double owed = 0;
        double outageStart = pair.time + 5;
        double back = outageStart + 2;
        double end = back + 10;
        double lastQueueFull = Double.NEGATIVE_INFINITY;
        double drained = Double.NaN;
        long refusedAfter = 0;
        double pacingBefore = 0;
        double pacingAfter = Double.NaN;
        long queuedBefore = 0;
        boolean out = false;
        boolean returned = false;
        while (pair.time < end) {
            owed += perStep;
            while (owed >= 1) {
                owed--;
                if (pair.a.offer(0, new byte[32]) == MessageEndpoint.OFFER_QUEUE_FULL) {
                    lastQueueFull = pair.time;
                    if (returned) {
                        refusedAfter++;
                    }
                }
            }
            pair.step(DT);
            if (!out && pair.time >= outageStart) {
                out = true;
                pacingBefore = pair.a.congestionController().pacingRateBytesPerSecond();
                queuedBefore = pair.a.stats().queuedMessages();
                pair.ab.reconfigure(link(10, 1.0, 31));
                pair.ba.reconfigure(link(10, 1.0, 32));
            }
            if (!returned && pair.time >= back) {
                returned = true;
                pair.ab.reconfigure(link(10, 0, 33));
                pair.ba.reconfigure(link(10, 0, 34));
            }
            if (returned && Double.isNaN(drained) && pair.a.stats().queuedMessages() <= Math.max(2 * queuedBefore, 100)) {
                drained = pair.time - back;
            }
            if (returned && Double.isNaN(pacingAfter) && pair.time >= back + 1) {
                pacingAfter = pair.a.congestionController().pacingRateBytesPerSecond();
            }
            if (TRACE && Math.round(pair.time / DT) % 24 == 0 && pair.time > outageStart - 0.5 && pair.time < back + 3) {
                CongestionAvoidanceTest.trace(pair);
                System.out.printf("   queued=%d%n", pair.a.stats().queuedMessages());
            }
        }
        return new Outage(lastQueueFull - back, drained, refusedAfter, pacingBefore, pacingAfter);
    }

    @Test
    void afterATwoSecondOutageTheFullRateIsBackWithinOneSecond() {
        Outage deliveryRate = outage(CongestionControl.DELIVERY_RATE);
        Outage gaffer = outage(CongestionControl.GAFFER);
        System.out.printf("2 s outage at 2000 msg/s, then the path returns: DELIVERY_RATE last QUEUE_FULL %.2f s after, backlog"
                + " drained %.2f s after, %d sends refused after, pacing %.0f B/s before, %.0f B/s 1 s after; GAFFER last QUEUE_FULL"
                + " %.2f s after, backlog drained %.2f s after, %d sends refused after%n", deliveryRate.lastQueueFullAfterReturn(),
                deliveryRate.backlogDrainedAfterReturn(), deliveryRate.refusedAfterReturn(), deliveryRate.pacingBefore(),
                deliveryRate.pacingOneSecondAfter(), gaffer.lastQueueFullAfterReturn(), gaffer.backlogDrainedAfterReturn(),
                gaffer.refusedAfterReturn());
        assertThat(deliveryRate.lastQueueFullAfterReturn()).isLessThanOrEqualTo(1.0);
        assertThat(deliveryRate.backlogDrainedAfterReturn()).isLessThanOrEqualTo(1.0);
        assertThat(deliveryRate.pacingOneSecondAfter()).isGreaterThanOrEqualTo(deliveryRate.pacingBefore());
        // the first milestone's controller sat in its bad mode for seconds
        assertThat(gaffer.lastQueueFullAfterReturn()).isGreaterThan(2.0);
    }
}
