package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A grown, watched datagram budget ({@link MessageEndpoint#datagramBudgetChanged(int, boolean)}) on a
 * path that starts to lose every datagram above the base silently, mid-stream (its MTU dropped): the
 * sender hears of it ({@link DatagramSender#largeDatagramsLost}) before anything is resent at the grown
 * size, what was lost goes again in base-sized packets, every message arrives, and delivery stalls
 * for no longer than two resend intervals and a round trip. A sender that does not lower the budget is not
 * stalled by the watch. Simulated clock, one millisecond steps, a one-way delay of two.
 */
class BlackHoleTest {

    private static final MessageConfig CONFIG = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED, DeliveryMode.UNRELIABLE);
    private static final int BASE = CONFIG.datagramBudget();
    private static final int GROWN = 1472;

    /** A path with a delay that silently drops datagrams above {@link #mtu}. */
    private static final class Path implements DatagramSender {
        final ArrayDeque<Object[]> inFlight = new ArrayDeque<>();
        final List<Integer> lengths = new ArrayList<>();
        int mtu = Integer.MAX_VALUE;
        int dropped;
        double time;
        int losses;
        Runnable onLoss = () -> { };

        @Override
        public void send(byte[] data, int offset, int length) {
            lengths.add(length);
            if (length > mtu) {
                dropped++;
                return;
            }
            inFlight.add(new Object[] {java.util.Arrays.copyOfRange(data, offset, offset + length), time + 0.002});
        }

        @Override
        public void largeDatagramsLost() {
            losses++;
            onLoss.run();
        }

        void deliver(double now, MessageEndpoint to) {
            while (!inFlight.isEmpty() && (double) inFlight.peek()[1] <= now) {
                byte[] d = (byte[]) inFlight.poll()[0];
                to.receive(d, 0, d.length, now);
            }
        }
    }

    /** One millisecond on: the clock, and the send time of both paths. */
    private static double tick(double[] now, Path toB, Path toA) {
        now[0] += 0.001;
        toB.time = now[0];
        toA.time = now[0];
        return now[0];
    }

    @Test
    void aPathWhoseMtuDropsMidStreamFallsBackBeforeAnyResendAtTheGrownSizeAndLosesNothing() {
        Path toB = new Path();
        Path toA = new Path();
        List<Double> deliveries = new ArrayList<>();
        List<Integer> got = new ArrayList<>();
        double[] now = {10};
        MessageEndpoint a = new MessageEndpoint(CONFIG, now[0], toB, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(CONFIG, now[0], toA, (c, id, d, o, l) -> {
            got.add(id);
            deliveries.add(now[0]);
        });
        double[] fellBack = {Double.NaN};
        int[] lengthsAtFallBack = {0};
        toB.onLoss = () -> {
            fellBack[0] = now[0];
            lengthsAtFallBack[0] = toB.lengths.size();
            a.datagramBudgetChanged(BASE); // from inside the call, as a connection does
        };
        a.datagramBudgetChanged(GROWN, true);

        int sent = 0;
        double dropAt = now[0] + 0.5;
        double resendInterval = 0;
        for (int step = 0; step < 20_000 && (sent < 10_000 || got.size() < sent); step++) {
            double t = tick(now, toB, toA);
            if (sent < 10_000) {
                for (int k = 0; k < 10; k++) { // a stream: ten 200-byte messages a millisecond
                    a.offer(0, new byte[200]);
                    sent++;
                }
            }
            if (toB.mtu == Integer.MAX_VALUE && t >= dropAt) {
                resendInterval = a.resendTimer().resendIntervalSeconds();
                toB.mtu = BASE; // the path now carries the base and no more, silently
            }
            toB.deliver(t, b);
            toA.deliver(t, a);
            a.update(t);
            b.update(t);
        }
        assertThat(got).as("every message, in order").hasSize(sent);
        assertThat(toB.losses).as("told once").isEqualTo(1);
        assertThat(fellBack[0]).isGreaterThan(dropAt);
        // after the fall-back nothing goes above the base: what was lost was resent in base-sized packets
        assertThat(toB.lengths.subList(lengthsAtFallBack[0], toB.lengths.size())).allMatch(n -> n <= BASE);
        // and no resend went at the grown size in between: the datagrams dropped are the ones sent
        // before the first resend fell due, at most one resend interval's worth of the stream
        double longestGap = 0;
        for (int i = 1; i < deliveries.size(); i++) {
            longestGap = Math.max(longestGap, deliveries.get(i) - deliveries.get(i - 1));
        }
        System.out.printf("black hole: resend interval %.1f ms, fell back %.1f ms after the drop, longest gap in"
                + " delivery %.1f ms, %d grown datagrams lost%n", resendInterval * 1e3, (fellBack[0] - dropAt) * 1e3,
                longestGap * 1e3, toB.dropped);
        // the first resend falls due one resend interval after the first lost packet went, and the budget
        // falls back then; the last packet lost went before that, so its messages fall due at most one
        // more interval later, each resent once, at the base size; measured on the simulated clock
        double rtt = 0.004;
        assertThat(fellBack[0] - dropAt).as("fell back when the first resend fell due")
                .isLessThanOrEqualTo(resendInterval + rtt);
        assertThat(longestGap).as("the stall: the lost packets' resend intervals and the resend's round trip")
                .isLessThanOrEqualTo(2 * resendInterval + rtt + 0.001);
    }

    @Test
    void aSenderThatKeepsItsBudgetIsNotStalledByTheWatch() {
        Path toB = new Path();
        Path toA = new Path();
        List<Integer> got = new ArrayList<>();
        double[] now = {10};
        MessageEndpoint a = new MessageEndpoint(CONFIG, now[0], toB, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(CONFIG, now[0], toA, (c, id, d, o, l) -> got.add(id));
        a.datagramBudgetChanged(GROWN, true);
        int sent = 0;
        for (int step = 0; step < 20_000 && (sent < 5_000 || got.size() < sent); step++) {
            double t = tick(now, toB, toA);
            if (sent < 5_000) {
                for (int k = 0; k < 10; k++) {
                    a.offer(0, new byte[200]);
                }
                sent += 10;
            }
            if (step == 200) {
                toB.mtu = BASE;
            }
            if (step == 1_500) {
                toB.mtu = Integer.MAX_VALUE; // the path comes back: what waited goes through
            }
            toB.deliver(t, b);
            toA.deliver(t, a);
            a.update(t);
            b.update(t);
        }
        assertThat(toB.losses).isEqualTo(1);
        assertThat(got).hasSize(sent);
    }
}
