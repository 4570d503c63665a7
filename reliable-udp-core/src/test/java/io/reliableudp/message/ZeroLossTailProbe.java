package io.reliableudp.message;

import io.reliableudp.link.LinkConditioner;
import java.util.Arrays;
import java.util.Locale;

/**
 * Harness, not a test (no assertion, never run by the build): where the 0 % loss tail of the {@code loss}
 * benchmark's 60 Hz stream comes from, in simulated time. A sender and a receiver endpoint with the
 * default {@link MessageConfig} (IMMEDIATE, the delivery-rate controller) over a loopback-like link
 * (0.05 ms + 0..0.05 ms each way), driven as the I/O loop drives them (a flush when an event is queued,
 * an update at each {@code nextDeadline}), in 50 us steps; events at 60 Hz with the sender's timer jitter
 * (0..{@code jitterMs}). Prints how long events waited between {@code offer} and their first datagram
 * (pacing), how many datagrams went each way per event and their bytes; with congestion avoidance and
 * without.
 *
 * <pre>java -cp reliable-udp-core/target/classes:reliable-udp-core/target/test-classes:JSPECIFY_JAR \
 *     io.reliableudp.message.ZeroLossTailProbe [events] [jitterMs] [loss%] [resendFloorMs]</pre>
 */
public final class ZeroLossTailProbe {

    private static final double STEP = 0.00005;

    private ZeroLossTailProbe() {
    }

    public static void main(String[] args) {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 3600;
        double jitterMs = args.length > 1 ? Double.parseDouble(args[1]) : 1.0;
        double loss = args.length > 2 ? Double.parseDouble(args[2]) / 100 : 0;
        // a 4th argument: the resend timer's floor in ms instead of the default (bytes per event: what a
        // timer that waits for the next event's ack would save and cost); congestion avoidance on only
        double floorMs = args.length > 3 ? Double.parseDouble(args[3]) : -1;
        for (boolean congestion : floorMs >= 0 ? new boolean[] {true} : new boolean[] {true, false}) {
            MessageConfig.Builder b = MessageConfig.defaults().toBuilder().congestionAvoidance(congestion);
            if (floorMs >= 0) {
                b.minResendIntervalSeconds(floorMs / 1000);
            }
            run(b.build(), events, jitterMs, loss, "loss " + loss * 100 + " %, congestion avoidance "
                    + (congestion ? "on (default)" : "off") + (floorMs >= 0 ? ", resend floor " + floorMs + " ms" : ""));
        }
    }

    private static void run(MessageConfig config, int events, double jitterMs, double loss, String label) {
        double[] time = {100.0};
        double[] offeredAt = new double[events];
        double[] firstSent = new double[events];
        double[] deliveredAt = new double[events];
        Arrays.fill(firstSent, -1);
        Arrays.fill(deliveredAt, -1);
        long[] ab = new long[2]; // datagrams, bytes
        long[] ba = new long[2];
        LinkConditioner linkAB = new LinkConditioner(LossSim.link(0.05, 0.05, loss, 1));
        LinkConditioner linkBA = new LinkConditioner(LossSim.link(0.05, 0.05, loss, 2));
        int[] offered = {0};
        MessageEndpoint a = new MessageEndpoint(config, time[0], (d, o, l) -> {
            ab[0]++;
            ab[1] += l + 28 + 5; // IP + UDP headers and the connection frame
            byte[] copy = Arrays.copyOfRange(d, o, o + l);
            for (int i = 0; i < offered[0]; i++) {
                if (firstSent[i] < 0 && LossSim.carries(copy, i)) {
                    firstSent[i] = time[0];
                }
            }
            linkAB.submit(d, o, l, time[0]);
        }, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, time[0], (d, o, l) -> {
            ba[0]++;
            ba[1] += l + 28 + 5;
            linkBA.submit(d, o, l, time[0]);
        }, (c, id, d, o, l) -> {
            int index = java.nio.ByteBuffer.wrap(d, o + 1, 4).getInt();
            if (deliveredAt[index] < 0) {
                deliveredAt[index] = time[0];
            }
        });
        java.util.Random random = new java.util.Random(7);
        double start = time[0] + 0.5;
        double nextEvent = start;
        double end = start + events / 60.0 + 1;
        while (time[0] < end) {
            time[0] += STEP;
            double now = time[0];
            linkAB.poll(now, (d, o, l) -> b.receive(d, o, l));
            linkBA.poll(now, a::receive);
            if (offered[0] < events && now >= nextEvent) {
                int i = offered[0];
                offeredAt[i] = now;
                a.offer(0, LossSim.payload(i, 64));
                offered[0]++;
                a.flush(now);
                nextEvent = start + (i + 1) / 60.0 + random.nextDouble() * jitterMs / 1000;
            }
            if (a.nextDeadline() <= now) {
                a.update(now);
            }
            if (b.nextDeadline() <= now) {
                b.update(now);
            }
        }
        ChannelStats cs = a.stats().channels().get(0);
        System.out.printf(Locale.ROOT, "  sender: messages resent %d (%.3f per event), ack-only and data packets from B %d%n",
                cs.messagesResent(), cs.messagesResent() / (double) events, ba[0]);
        double[] wait = new double[events];
        double[] latency = new double[events];
        int late = 0;
        for (int i = 0; i < events; i++) {
            wait[i] = (firstSent[i] - offeredAt[i]) * 1000;
            latency[i] = (deliveredAt[i] - offeredAt[i]) * 1000;
            if (wait[i] > STEP * 1000 * 1.5) {
                late++;
            }
        }
        Arrays.sort(wait);
        Arrays.sort(latency);
        System.out.printf(Locale.ROOT, "%s: %d events; waited for their first datagram: %d (p99 %.2f ms, max %.2f ms);"
                        + " latency p50 %.2f p99 %.2f max %.2f ms; A->B %.2f datagrams/event, B->A %.2f; bytes/event %.1f"
                        + " (A->B %.1f, B->A %.1f); bytes per datagram A->B %.1f, B->A %.1f%n",
                label, events, late, wait[(int) (events * 0.99)], wait[events - 1], latency[events / 2], latency[(int) (events * 0.99)],
                latency[events - 1], ab[0] / (double) events, ba[0] / (double) events, (ab[1] + ba[1]) / (double) events,
                ab[1] / (double) events, ba[1] / (double) events, ab[1] / (double) ab[0], ba[1] / (double) ba[0]);
    }
}
