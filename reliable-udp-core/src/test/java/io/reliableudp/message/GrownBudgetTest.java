package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A message endpoint whose datagram budget grows ({@link MessageEndpoint#datagramBudgetChanged}):
 * it asks once for larger packets when a packet was full, packs up to the grown budget afterwards,
 * still decides how a message travels by the base budget (a message too large for a base packet is
 * sliced or fragmented in base-sized pieces), and every message arrives intact (simulated clock).
 */
class GrownBudgetTest {

    private static final MessageConfig CONFIG = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED, DeliveryMode.UNRELIABLE);
    private static final int BASE = CONFIG.datagramBudget();
    private static final int GROWN = CONFIG.maxDatagramBudget();

    /** A sender into a conditioner that records every datagram's length and counts the wishes for larger packets. */
    private static final class Wire implements DatagramSender {
        final LinkConditioner link;
        final List<Integer> lengths = new ArrayList<>();
        int wishes;
        double time;

        Wire(LinkConditionerConfig config) {
            this.link = new LinkConditioner(config);
        }

        Wire() {
            this(LinkConditionerConfig.PERFECT);
        }

        @Override
        public void send(byte[] data, int offset, int length) {
            lengths.add(length);
            link.submit(data, offset, length, time);
        }

        @Override
        public void largerDatagramsWanted() {
            wishes++;
        }
    }

    @ParameterizedTest(name = "loss={0}")
    @ValueSource(doubles = {0, 0.2})
    void asksOnceThenPacksToTheGrownBudgetAndStillSlicesByTheBase(double loss) {
        boolean lossy = loss > 0;
        // 20 % loss, 5 % duplicates and some reordering each way, seeded: the reliable messages must
        // all arrive intact through grown packets too (the unreliable ones may be lost)
        Wire toB = new Wire(new LinkConditionerConfig(2, 1, loss, 0, 1, 0, lossy ? 0.05 : 0, lossy ? 0.05 : 0, 3, 0, 1 << 24, 41));
        Wire toA = new Wire(new LinkConditionerConfig(2, 1, loss, 0, 1, 0, lossy ? 0.05 : 0, lossy ? 0.05 : 0, 3, 0, 1 << 24, 42));
        List<byte[]> got = new ArrayList<>();
        double[] now = {10};
        MessageEndpoint a = new MessageEndpoint(CONFIG, now[0], toB, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(CONFIG, now[0], toA, (c, id, d, o, l) -> {
            if (c == 0 || !lossy) {
                got.add(Arrays.copyOfRange(d, o, o + l));
            }
        });
        List<byte[]> sent = new ArrayList<>();

        // a burst at the base budget: packets fill up, the endpoint asks for larger ones, once
        for (int i = 0; i < 200; i++) {
            sent.add(offer(a, 0, i, 256));
        }
        run(a, b, toB, toA, now, () -> got.size() == sent.size());
        assertThat(toB.wishes).isEqualTo(1);
        assertThat(toB.lengths).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(BASE));

        a.datagramBudgetChanged(GROWN);
        toB.lengths.clear();
        for (int i = 200; i < 400; i++) {
            sent.add(offer(a, 0, i, 256));
        }
        byte[] u1 = offer(a, 1, 400, 3_000);   // unreliable, above a base packet: a packet of its own, now unfragmented
        byte[] u2 = offer(a, 1, 401, 15_000);  // unreliable, above a grown packet: fragments of the base size
        if (!lossy) {
            sent.add(u1);
            sent.add(u2);
        }
        sent.add(offer(a, 0, 402, 50_000));  // reliable, large: slices, several per packet now
        run(a, b, toB, toA, now, () -> got.size() == sent.size());
        assertThat(toB.wishes).isEqualTo(1);
        assertThat(toB.lengths).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(GROWN));
        assertThat(toB.lengths).anySatisfy(n -> assertThat(n).isGreaterThan(BASE));
        if (!lossy) {
            // 200 messages of 256 bytes: 34 to a grown packet, so a handful of packets, not 50
            long full = toB.lengths.stream().filter(n -> n > 8_000).count();
            assertThat(full).isGreaterThanOrEqualTo(5);
            assertThat(toB.lengths.size()).isLessThan(50);
        }

        assertThat(got).hasSize(sent.size());
        java.util.Set<String> arrived = new java.util.HashSet<>();
        for (byte[] g : got) {
            arrived.add(java.util.HexFormat.of().formatHex(g));
        }
        assertThat(sent).allMatch(m -> arrived.contains(java.util.HexFormat.of().formatHex(m)), "arrived intact");
        if (lossy) {
            assertThat(toB.link.lost()).as("datagrams the link lost").isGreaterThan(10);
            assertThat(toB.lengths).as("grown packets resent through the lossy link").anySatisfy(n -> assertThat(n).isGreaterThan(BASE));
        }
    }

    @Test
    void theBudgetStaysWithinTheConfiguredRange() {
        MessageEndpoint a = new MessageEndpoint(CONFIG, 0, (d, o, l) -> { }, (c, id, d, o, l) -> { });
        assertThatThrownBy(() -> a.datagramBudgetChanged(BASE - 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.datagramBudgetChanged(GROWN + 1)).isInstanceOf(IllegalArgumentException.class);
        a.datagramBudgetChanged(BASE); // back to the base: allowed
    }

    @Test
    void anEndpointThatMayNotGrowNeverAsks() {
        MessageConfig fixed = CONFIG.toBuilder().maxDatagramBudget(0).build();
        assertThat(fixed.maxDatagramBudget()).isEqualTo(fixed.datagramBudget());
        Wire w = new Wire();
        MessageEndpoint a = new MessageEndpoint(fixed, 0, w, (c, id, d, o, l) -> { });
        for (int i = 0; i < 100; i++) {
            offer(a, 0, i, 256);
        }
        a.flush(0);
        assertThat(w.lengths.size()).isGreaterThan(1);
        assertThat(w.wishes).isZero();
    }

    private static byte[] offer(MessageEndpoint e, int channel, int seed, int size) {
        byte[] p = new byte[size];
        for (int k = 0; k < size; k++) {
            p[k] = (byte) (seed * 31 + k);
        }
        assertThat(e.offer(channel, p)).isGreaterThanOrEqualTo(0);
        return p;
    }

    private static void run(MessageEndpoint a, MessageEndpoint b, Wire toB, Wire toA, double[] now,
                            java.util.function.BooleanSupplier done) {
        for (int step = 0; step < 60_000 && !done.getAsBoolean(); step++) {
            now[0] += 0.001;
            toB.time = now[0];
            toA.time = now[0];
            double t = now[0];
            toB.link.poll(t, (d, o, l) -> b.receive(d, o, l, t));
            toA.link.poll(t, (d, o, l) -> a.receive(d, o, l, t));
            a.update(t);
            b.update(t);
        }
        assertThat(done.getAsBoolean()).as("everything delivered within the simulated time").isTrue();
    }
}
