package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditioner;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The receiver of a stream keeps its packet sequence caught up with the sender's, so that its ack-only
 * packets keep the 8-bit ack ({@code reliable} 1.4.0 writes {@code sequence - ack} in one byte only when
 * it is 0..255): counted on the wire of two endpoints on a simulated clock (a 60 Hz stream of 64-byte
 * reliable events, driven as the I/O loop drives them, 0.05 ms each way), by each datagram's prefix bit.
 * One lost data packet used to put the receiver one sequence behind for good: every ack-only packet after
 * it carried a 16-bit ack, a byte per event. Under frequent loss the catch-up would cost more than it saves,
 * so it stays off there.
 */
@Timeout(60)
class AckSequenceCatchUpTest {

    private static final double STEP = 0.00005;
    private static final int EVENTS = 600;

    /** Counts of one run: B's datagrams, those with a 16-bit ack, A's datagrams, catch-ups, events delivered. */
    record Wire(int bDatagrams, int bAck16, int aDatagrams, long catchUps, int delivered) {
    }

    @Test
    void oneLostDataPacketCostsOneCatchUpNotAByteInEveryLaterAck() {
        int[] aSent = {0};
        // drop A's 100th datagram (a data packet: A sends nothing else here) once
        Wire w = run(seq -> aSent[0]++ == 100, 0);
        assertThat(w.delivered()).isEqualTo(EVENTS);
        // without the catch-up every ack-only packet after the loss (about 500) carried the 16-bit ack
        assertThat(w.bAck16()).as("B's packets with a 16-bit ack").isLessThanOrEqualTo(2);
        assertThat(w.catchUps()).isEqualTo(1);
        // at most one ack-only packet per data packet received, plus the catch-up
        assertThat(w.bDatagrams()).isLessThanOrEqualTo(w.aDatagrams() - 1 + 1);
    }

    @Test
    void noLossNoCatchUp() {
        Wire w = run(seq -> false, 0);
        assertThat(w.delivered()).isEqualTo(EVENTS);
        assertThat(w.bAck16()).isZero();
        assertThat(w.catchUps()).isZero();
        assertThat(w.bDatagrams()).isEqualTo(w.aDatagrams());
    }

    @Test
    void frequentLossTurnsTheCatchUpOff() {
        java.util.Random random = new java.util.Random(11);
        // 10 % of A's datagrams lost: the receiver falls behind about every 10 packets, a catch-up each
        // time would cost 37 bytes to save about 10
        Wire w = run(seq -> random.nextDouble() < 0.10, 0);
        assertThat(w.delivered()).isEqualTo(EVENTS);
        assertThat(w.catchUps()).as("catch-ups at 10 %% loss").isLessThanOrEqualTo(3);
    }

    private static Wire run(IntPredicate dropA, double lossB) {
        double[] time = {100.0};
        int[] b16 = {0};
        int[] bN = {0};
        int[] aN = {0};
        boolean[] delivered = new boolean[EVENTS];
        LinkConditioner linkAB = new LinkConditioner(LossSim.link(0.05, 0, 0, 1));
        LinkConditioner linkBA = new LinkConditioner(LossSim.link(0.05, 0, lossB, 2));
        MessageConfig config = MessageConfig.defaults();
        MessageEndpoint a = new MessageEndpoint(config, time[0], (d, o, l) -> {
            int seq = (d[o + 1] & 0xFF) | (d[o + 2] & 0xFF) << 8;
            aN[0]++;
            if (!dropA.test(seq)) {
                linkAB.submit(d, o, l, time[0]);
            }
        }, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, time[0], (d, o, l) -> {
            bN[0]++;
            if ((d[o] & 1) == 0 && (d[o] & 0x20) == 0) {
                b16[0]++;
            }
            linkBA.submit(d, o, l, time[0]);
        }, (c, id, d, o, l) -> delivered[java.nio.ByteBuffer.wrap(d, o + 1, 4).getInt()] = true);
        double start = time[0] + 0.5;
        double end = start + EVENTS / 60.0 + 1;
        int offered = 0;
        while (time[0] < end) {
            time[0] += STEP;
            double now = time[0];
            linkAB.poll(now, (d, o, l) -> b.receive(d, o, l));
            linkBA.poll(now, a::receive);
            if (offered < EVENTS && now >= start + offered / 60.0) {
                a.offer(0, LossSim.payload(offered, 64));
                offered++;
                a.flush(now);
            }
            if (a.nextDeadline() <= now) {
                a.update(now);
            }
            if (b.nextDeadline() <= now) {
                b.update(now);
            }
        }
        int n = 0;
        for (boolean x : delivered) {
            n += x ? 1 : 0;
        }
        return new Wire(bN[0], b16[0], aN[0], b.sequenceCatchUps(), n);
    }
}
