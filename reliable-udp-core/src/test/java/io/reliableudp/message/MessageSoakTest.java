package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Soak through a hostile link: 30% loss, 5% duplication, 10% reordering and jitter, both ways.
 * Sized by {@code -Dsoak.messages=N} (messages per small-message channel; default sized for CI), e.g.
 * {@code ./mvnw -B -pl reliable-udp-core test -Dtest=MessageSoakTest -Dsoak.messages=200000}.
 */
@Timeout(600)
class MessageSoakTest {

    private static final int RO = 0;
    private static final int RU = 1;
    private static final int US = 2;
    private static final int LARGE = 3;
    private static final int UN = 4;

    static LinkConditionerConfig hostile(long seed) {
        return new LinkConditionerConfig(20, 15, 0.30, 0, 1, 0, 0.05, 0.10, 40, 0, 1 << 20, seed);
    }

    static byte[] payload(int index, int size) {
        byte[] p = new byte[Math.max(4, size)];
        p[0] = (byte) index;
        p[1] = (byte) (index >>> 8);
        p[2] = (byte) (index >>> 16);
        p[3] = (byte) (index >>> 24);
        for (int i = 4; i < p.length; i++) {
            p[i] = (byte) (index * 131 + i * 17);
        }
        return p;
    }

    static int indexOf(byte[] d) {
        return (d[0] & 0xFF) | (d[1] & 0xFF) << 8 | (d[2] & 0xFF) << 16 | (d[3] & 0xFF) << 24;
    }

    @Test
    void everyModeHoldsItsPromiseThroughLossDuplicationReorderingAndJitter() {
        int n = Integer.getInteger("soak.messages", 10_000);
        int large = Math.max(4, n / 200);
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED, DeliveryMode.RELIABLE_UNORDERED,
                DeliveryMode.UNRELIABLE_SEQUENCED, DeliveryMode.RELIABLE_ORDERED, DeliveryMode.UNRELIABLE);
        EndpointPair pair = new EndpointPair(config, hostile(1), hostile(2));
        pair.recordB = false;
        SplittableRandom sizes = new SplittableRandom(42);
        int[] roSize = new int[n];
        int[] ruSize = new int[n];
        int[] usSize = new int[n];
        int[] largeSize = new int[large];
        for (int i = 0; i < n; i++) {
            roSize[i] = 4 + sizes.nextInt(200);
            ruSize[i] = 4 + sizes.nextInt(200);
            usSize[i] = 4 + sizes.nextInt(60);
        }
        for (int i = 0; i < large; i++) {
            largeSize[i] = 2000 + sizes.nextInt(60_000);
        }

        int[] nextRo = {0};
        BitSet ruSeen = new BitSet(n);
        int[] ruCount = {0};
        int[] usLast = {-1};
        int[] usCount = {0};
        int[] nextLarge = {0};
        BitSet unSeen = new BitSet(n);
        int[] unCount = {0};
        List<String> violations = new ArrayList<>();
        pair.extraB = (channel, id, d, o, l) -> {
            byte[] data = Arrays.copyOfRange(d, o, o + l);
            int index = indexOf(data);
            switch (channel) {
                case RO -> {
                    if (index != nextRo[0] || !Arrays.equals(data, payload(index, roSize[index]))) {
                        violations.add("ordered: got " + index + " expected " + nextRo[0]);
                    }
                    nextRo[0]++;
                }
                case RU -> {
                    if (ruSeen.get(index) || !Arrays.equals(data, payload(index, ruSize[index]))) {
                        violations.add("unordered: duplicate or corrupt " + index);
                    }
                    ruSeen.set(index);
                    ruCount[0]++;
                }
                case US -> {
                    if (index <= usLast[0] || !Arrays.equals(data, payload(index, usSize[index]))) {
                        violations.add("sequenced: " + index + " after " + usLast[0]);
                    }
                    usLast[0] = index;
                    usCount[0]++;
                }
                case UN -> {
                    if (unSeen.get(index) || !Arrays.equals(data, payload(index, usSize[index]))) {
                        violations.add("unreliable: duplicate or corrupt " + index);
                    }
                    unSeen.set(index);
                    unCount[0]++;
                }
                default -> {
                    if (index != nextLarge[0] || !Arrays.equals(data, payload(index, largeSize[index]))) {
                        violations.add("large: got " + index + " expected " + nextLarge[0]);
                    }
                    nextLarge[0]++;
                }
            }
        };

        int ro = 0;
        int ru = 0;
        int us = 0;
        int lg = 0;
        int un = 0;
        double dt = 1.0 / 120;
        double limit = pair.time + 60 + n / 10.0;
        while (nextRo[0] < n || ruCount[0] < n || nextLarge[0] < large || pair.a.hasPendingReliable()) {
            while (ro < n && pair.a.offer(RO, payload(ro, roSize[ro])) >= 0) {
                ro++;
            }
            while (ru < n && pair.a.offer(RU, payload(ru, ruSize[ru])) >= 0) {
                ru++;
            }
            for (int k = 0; k < 8 && us < n; k++) {
                if (pair.a.offer(US, payload(us, usSize[us])) < 0) {
                    break;
                }
                us++;
            }
            while (lg < large && pair.a.offer(LARGE, payload(lg, largeSize[lg])) >= 0) {
                lg++;
            }
            for (int k = 0; k < 8 && un < n; k++) {
                if (pair.a.offer(UN, payload(un, usSize[un])) < 0) {
                    break;
                }
                un++;
            }
            pair.step(dt);
            if (Boolean.getBoolean("soak.trace") && ((int) (pair.time * 120)) % 600 == 0) {
                System.out.printf("t=%.1f inflight=%d limit=%d bw=%.0f rtt=%.1f congested=%s rate=%.0f queued=%d%n", pair.time,
                        pair.a.stats().bytesInFlight(), pair.a.stats().inflightLimitBytes(), pair.a.stats().bandwidthEstimateBytesPerSecond(),
                        pair.a.stats().rttMillis(), pair.a.stats().congested(), pair.a.stats().sendRateHz(), pair.a.stats().queuedMessages());
            }
            assertThat(pair.time).as("simulated time limit").isLessThan(limit);
        }
        pair.run(1, dt);

        System.out.printf("MessageSoakTest: %d messages per channel, %d large, simulated %.1f s%n", n, large, pair.time - 100);
        System.out.printf("  reliable-ordered delivered %d, reliable-unordered %d, unreliable-sequenced %d (of %d sent),"
                + " unreliable %d (of %d sent), large %d%n", nextRo[0], ruCount[0], usCount[0], us, unCount[0], un, nextLarge[0]);
        for (int c = 0; c < 5; c++) {
            System.out.println("  A " + pair.a.stats().channel(c));
            System.out.println("  B " + pair.b.stats().channel(c));
        }
        System.out.printf("  A packets %d (+%d ack-only), lost (estimated) %d, loss %.1f%%, rtt %.1f ms, congested %s, malformed at B %d%n",
                pair.a.stats().packetsSent(), pair.a.stats().ackOnlyPacketsSent(), pair.a.stats().packetsLost(), pair.a.stats().packetLossPercent(),
                pair.a.stats().rttMillis(), pair.a.stats().congested(), pair.b.stats().malformedPackets());
        System.out.println("  link A->B " + pair.ab);
        System.out.println("  link B->A " + pair.ba);

        assertThat(violations).isEmpty();
        assertThat(nextRo[0]).isEqualTo(n);
        assertThat(ruCount[0]).isEqualTo(n);
        assertThat(nextLarge[0]).isEqualTo(large);
        assertThat(usCount[0]).isPositive().isLessThanOrEqualTo(n);
        // duplicated datagrams are already dropped by the packet layer (same sequence); never delivered twice here
        assertThat(unCount[0]).isPositive().isLessThanOrEqualTo(n);
        assertThat(pair.b.stats().channel(RO).duplicatesDropped() + pair.b.stats().channel(RU).duplicatesDropped()).isPositive();
        assertThat(pair.b.stats().malformedPackets()).isZero();
        assertThat(pair.ab.duplicated()).isPositive();
        assertThat(pair.ab.reordered()).isPositive();
        assertThat(pair.a.stats().channel(RO).messagesAcked()).isEqualTo(n);
    }
}
