package io.reliableudp.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.reliableudp.InvalidConfigurationException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LinkConditionerTest {

    private static LinkConditionerConfig config(double latency, double jitter, double loss, double dup, double reorder, long seed) {
        return new LinkConditionerConfig(latency, jitter, loss, 0, 1, 0, dup, reorder, 50, 0, 1 << 20, seed);
    }

    /** Sends n numbered datagrams, one per millisecond, and returns the numbers in delivery order. */
    private static List<Integer> run(LinkConditioner link, int n) {
        List<Integer> out = new ArrayList<>();
        double t = 0;
        for (int i = 0; i < n; i++) {
            byte[] d = {(byte) i, (byte) (i >>> 8), (byte) (i >>> 16), 0};
            link.submit(d, 0, d.length, t);
            link.poll(t, (data, o, l) -> out.add((data[o] & 0xFF) | (data[o + 1] & 0xFF) << 8 | (data[o + 2] & 0xFF) << 16));
            t += 0.001;
        }
        link.poll(t + 10, (data, o, l) -> out.add((data[o] & 0xFF) | (data[o + 1] & 0xFF) << 8 | (data[o + 2] & 0xFF) << 16));
        return out;
    }

    @Test
    void perfectLinkDeliversEverythingAtOnceInOrder() {
        LinkConditioner link = new LinkConditioner(LinkConditionerConfig.PERFECT);
        List<Integer> got = run(link, 1000);
        assertThat(got).hasSize(1000).isSorted();
        assertThat(link.lost() + link.duplicated() + link.reordered()).isZero();
    }

    @Test
    void sameSeedSameFatesDifferentSeedDifferentFates() {
        List<Integer> a = run(new LinkConditioner(config(20, 10, 0.2, 0.05, 0.1, 42)), 5000);
        List<Integer> b = run(new LinkConditioner(config(20, 10, 0.2, 0.05, 0.1, 42)), 5000);
        List<Integer> c = run(new LinkConditioner(config(20, 10, 0.2, 0.05, 0.1, 43)), 5000);
        assertThat(a).isEqualTo(b);
        assertThat(a).isNotEqualTo(c);
    }

    @Test
    void lossDuplicationAndReorderingHappenAtTheConfiguredRates() {
        LinkConditioner link = new LinkConditioner(config(0, 0, 0.3, 0.05, 0.1, 7));
        int n = 100_000;
        List<Integer> got = run(link, n);
        assertThat(link.lost() / (double) n).isCloseTo(0.3, within(0.01));
        assertThat(link.duplicated() / (double) (n - link.lost())).isCloseTo(0.05, within(0.005));
        assertThat(link.reordered() / (double) (n - link.lost() + link.duplicated())).isCloseTo(0.1, within(0.01));
        assertThat(got).hasSize((int) (n - link.lost() + link.duplicated()));
        assertThat(link.delivered()).isEqualTo(got.size());
        int inversions = 0;
        for (int i = 1; i < got.size(); i++) {
            if (got.get(i) < got.get(i - 1)) {
                inversions++;
            }
        }
        assertThat(inversions).isPositive();
    }

    @Test
    void latencyAndJitterDelayDelivery() {
        LinkConditioner link = new LinkConditioner(config(100, 20, 0, 0, 0, 1));
        link.submit(new byte[10], 0, 10, 1.0);
        assertThat(link.poll(1.099, (d, o, l) -> { })).isZero();
        assertThat(link.nextDueTime()).isBetween(1.1, 1.12);
        assertThat(link.pending()).isEqualTo(1);
        assertThat(link.poll(1.121, (d, o, l) -> assertThat(l).isEqualTo(10))).isEqualTo(1);
        assertThat(link.nextDueTime()).isInfinite();
    }

    @Test
    void gilbertElliottLosesInBursts() {
        // rarely enter the bad state, stay ~10 datagrams, lose everything there
        LinkConditioner link = new LinkConditioner(new LinkConditionerConfig(0, 0, 0, 0.01, 0.1, 1.0, 0, 0, 0, 0, 1 << 20, 3));
        int n = 100_000;
        boolean[] delivered = new boolean[n];
        double t = 0;
        for (int i = 0; i < n; i++) {
            byte[] d = {(byte) i, (byte) (i >>> 8), (byte) (i >>> 16)};
            link.submit(d, 0, 3, t);
            link.poll(t, (data, o, l) -> delivered[(data[o] & 0xFF) | (data[o + 1] & 0xFF) << 8 | (data[o + 2] & 0xFF) << 16] = true);
        }
        assertThat(link.lostInBurst()).isEqualTo(link.lost());
        // stationary bad-state share = 0.01 / (0.01 + 0.1) ~ 9%
        assertThat(link.lost() / (double) n).isCloseTo(0.09, within(0.02));
        // losses come in runs: mean run length ~ 1 / 0.1 = 10
        int runs = 0;
        for (int i = 0; i < n; i++) {
            if (!delivered[i] && (i == 0 || delivered[i - 1])) {
                runs++;
            }
        }
        assertThat(link.lost() / (double) runs).isBetween(7.0, 13.0);
    }

    @Test
    void bandwidthCapQueuesThenDrops() {
        // 100 kB/s, 10 kB queue: 1000-byte datagrams leave every 10 ms
        LinkConditioner link = new LinkConditioner(new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, 0, 0, 100_000, 10_000, 1));
        byte[] d = new byte[1000];
        int accepted = 0;
        for (int i = 0; i < 50; i++) {
            if (link.submit(d, 0, d.length, 0)) {
                accepted++;
            }
        }
        assertThat(accepted).isEqualTo(10);
        assertThat(link.droppedQueueFull()).isEqualTo(40);
        assertThat(link.poll(0.0101, (b, o, l) -> { })).isEqualTo(1);
        assertThat(link.poll(0.1001, (b, o, l) -> { })).isEqualTo(9);
    }

    @Test
    void consumerMaySubmitAgainAndPoolIsReused() {
        LinkConditioner link = new LinkConditioner(config(1, 0, 0, 0, 0, 1));
        int[] bounced = {0};
        link.submit(new byte[] {1}, 0, 1, 0);
        for (int i = 1; i < 100; i++) {
            double now = i * 0.001;
            link.poll(now + 0.0000001, (b, o, l) -> {
                bounced[0]++;
                link.submit(b, o, l, now);
            });
        }
        assertThat(bounced[0]).isGreaterThan(90);
        assertThat(link.pending()).isEqualTo(1);
    }

    @Test
    void configIsValidatedNamingTheField() {
        assertThatThrownBy(() -> config(-1, 0, 0, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latencyMillis");
        assertThatThrownBy(() -> config(0, 0, 1.5, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lossProbability");
    }

    @Test
    void theTypedExceptionNamesEachField() {
        assertField("latencyMillis", "-1.0", () -> new LinkConditionerConfig(-1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1));
        assertField("jitterMillis", "Infinity", () -> new LinkConditionerConfig(0, Double.POSITIVE_INFINITY, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1));
        assertField("lossProbability", "1.5", () -> new LinkConditionerConfig(0, 0, 1.5, 0, 1, 0, 0, 0, 0, 0, 1, 1));
        assertField("burstEnterProbability", "-0.1", () -> new LinkConditionerConfig(0, 0, 0, -0.1, 1, 0, 0, 0, 0, 0, 1, 1));
        assertField("burstExitProbability", "2.0", () -> new LinkConditionerConfig(0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 1));
        assertField("burstLossProbability", "NaN", () -> new LinkConditionerConfig(0, 0, 0, 0, 1, Double.NaN, 0, 0, 0, 0, 1, 1));
        assertField("duplicateProbability", "1.1", () -> new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 1.1, 0, 0, 0, 1, 1));
        assertField("reorderProbability", "-1.0", () -> new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 1, 1));
        assertField("reorderDelayMillis", "-5.0", () -> new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, 0, -5, 0, 1, 1));
        assertField("bandwidthBytesPerSecond", "-1.0", () -> new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, 0, 0, -1, 1, 1));
        assertField("queueLimitBytes", "0", () -> new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1));
    }

    private static void assertField(String field, String value, org.assertj.core.api.ThrowableAssert.ThrowingCallable build) {
        assertThatThrownBy(build).isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
            assertThat(e.field()).isEqualTo(field);
            assertThat(e.value()).isEqualTo(value);
            assertThat(e.getMessage()).startsWith(field + " ").endsWith(", was " + value);
        });
    }
}
