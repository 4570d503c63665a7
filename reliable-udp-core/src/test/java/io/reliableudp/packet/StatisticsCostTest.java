package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

/**
 * The statistics' cost does not depend on how often {@link ReliableEndpoint#update} runs without
 * traffic: the windows are walked only when a packet was sent, received or acked since the last
 * update, and {@code update(time, steps)} equals {@code steps} updates bit for bit when nothing
 * happened in between. Counts, not timings.
 */
class StatisticsCostTest {

    /** Two endpoints joined by queues: a datagram is delivered when {@link #deliver} is called, or dropped. */
    private static final class Pair {
        final ArrayDeque<byte[]> toB = new ArrayDeque<>();
        final ArrayDeque<byte[]> toA = new ArrayDeque<>();
        final ReliableEndpoint a;
        final ReliableEndpoint b;

        Pair(double time) {
            a = new ReliableEndpoint(ReliableConfig.defaults(), time,
                    (seq, data, off, len) -> toB.add(Arrays.copyOfRange(data, off, off + len)), (seq, d, o, l) -> true);
            b = new ReliableEndpoint(ReliableConfig.defaults(), time,
                    (seq, data, off, len) -> toA.add(Arrays.copyOfRange(data, off, off + len)), (seq, d, o, l) -> true);
        }

        void deliver(Random random, double lossRate) {
            while (!toB.isEmpty()) {
                byte[] d = toB.poll();
                if (random.nextDouble() >= lossRate) {
                    b.receivePacket(d, 0, d.length);
                }
            }
            while (!toA.isEmpty()) {
                byte[] d = toA.poll();
                if (random.nextDouble() >= lossRate) {
                    a.receivePacket(d, 0, d.length);
                }
            }
        }
    }

    @Test
    void updatesWithoutTrafficDoNotWalkTheWindows() {
        Pair p = new Pair(0.0);
        Random random = new Random(7);
        double t = 0.0;
        for (int i = 0; i < 200; i++) {
            t += 0.01;
            p.a.update(t);
            p.b.update(t);
            p.a.sendPacket(new byte[40], 0, 40);
            p.b.sendPacket(new byte[40], 0, 40);
            p.deliver(random, 0.1);
        }
        p.a.update(t += 0.01);
        long passes = p.a.windowPasses();
        for (int i = 0; i < 1_000; i++) {
            p.a.update(t += 0.01);
        }
        assertThat(p.a.windowPasses()).as("1,000 idle updates").isEqualTo(passes);

        p.a.sendPacket(new byte[40], 0, 40);
        p.a.update(t += 0.01);
        assertThat(p.a.windowPasses()).as("an update after a send").isEqualTo(passes + 1);
    }

    @Test
    void skippedUpdatesGiveTheSameFiguresBitForBitWhenNothingHappenedBetweenThem() {
        Random random = new Random(11);
        for (int round = 0; round < 50; round++) {
            long seed = random.nextLong();
            Pair every = new Pair(1.0);
            Pair lazy = new Pair(1.0);
            Random r1 = new Random(seed);
            Random r2 = new Random(seed);
            Random plan = new Random(seed ^ 0x5DEECE66DL);
            double t = 1.0;
            int pendingLazy = 0;
            for (int step = 0; step < 400; step++) {
                t += 0.001 + plan.nextDouble() * 0.03;
                boolean traffic = plan.nextInt(4) == 0;
                every.a.update(t);
                every.b.update(t);
                pendingLazy++;
                if (traffic) {
                    // the lazy side catches up right before anything changes the windows
                    lazy.a.update(t, pendingLazy);
                    lazy.b.update(t, pendingLazy);
                    pendingLazy = 0;
                    int n = 1 + plan.nextInt(200);
                    every.a.sendPacket(new byte[n], 0, n);
                    lazy.a.sendPacket(new byte[n], 0, n);
                    every.b.sendPacket(new byte[n], 0, n);
                    lazy.b.sendPacket(new byte[n], 0, n);
                    every.deliver(r1, 0.2);
                    lazy.deliver(r2, 0.2);
                }
            }
            t += 0.01; // one more update on both sides, so that both have seen the last traffic
            every.a.update(t);
            lazy.a.update(t, pendingLazy + 1);
            assertSameFigures(lazy.a, every.a);
            assertThat(lazy.a.windowPasses()).isLessThanOrEqualTo(every.a.windowPasses());
        }
    }

    private static void assertSameFigures(ReliableEndpoint actual, ReliableEndpoint expected) {
        float[] a = figures(actual);
        float[] e = figures(expected);
        for (int i = 0; i < a.length; i++) {
            assertThat(Float.floatToRawIntBits(a[i])).as("figure %d: %s vs %s", i, a[i], e[i])
                    .isEqualTo(Float.floatToRawIntBits(e[i]));
        }
    }

    private static float[] figures(ReliableEndpoint r) {
        return new float[] {r.rtt(), r.rttMin(), r.rttMax(), r.rttAvg(), r.jitterAvgVsMinRtt(), r.jitterMaxVsMinRtt(),
                r.jitterStddevVsAvgRtt(), r.packetLoss(), r.sentBandwidthKbps(), r.receivedBandwidthKbps(),
                r.ackedBandwidthKbps()};
    }
}
