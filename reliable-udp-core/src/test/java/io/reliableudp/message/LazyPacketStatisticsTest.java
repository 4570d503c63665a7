package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

/**
 * The message layer's housekeeping update does not walk the packet layer's windows (the
 * per-connection cost that does not depend on traffic): the packet-layer statistics are computed
 * when {@code stats()} reads them, with the smoothing of the updates skipped. Counts, not timings.
 */
class LazyPacketStatisticsTest {

    private static final PacketLink.Sizing SIZING = new PacketLink.Sizing(1100, 1100, 4, 1024);

    /** One link whose datagrams go to a queue. */
    private static final class Side implements PacketLink.Hooks {
        final ArrayDeque<byte[]> out = new ArrayDeque<>();
        final ReliablePacketLink link;

        Side(double time) {
            link = new ReliablePacketLink(time, SIZING, this);
        }

        @Override
        public void transmit(byte[] data, int offset, int length) {
            out.add(Arrays.copyOfRange(data, offset, offset + length));
        }

        @Override
        public void transmit(ByteBuffer buffer, int offset, int length) {
            byte[] copy = new byte[length];
            buffer.get(offset, copy, 0, length);
            out.add(copy);
        }

        @Override
        public boolean process(int sequence, byte[] data, int offset, int length) {
            return true;
        }

        @Override
        public void acked(int sequence) {
        }
    }

    private static void exchange(Side a, Side b, int packets) {
        for (int i = 0; i < packets; i++) {
            a.link.sendPacket(new byte[100], 0, 100);
            b.link.sendPacket(new byte[100], 0, 100);
            while (!a.out.isEmpty()) {
                byte[] d = a.out.poll();
                b.link.receivePacket(d, 0, d.length);
            }
            while (!b.out.isEmpty()) {
                byte[] d = b.out.poll();
                a.link.receivePacket(d, 0, d.length);
            }
        }
    }

    @Test
    void housekeepingUpdatesDoNotComputeThePacketStatisticsUntilTheyAreRead() {
        Side a = new Side(0.0);
        Side b = new Side(0.0);
        double t = 0.0;
        for (int tick = 0; tick < 1_000; tick++) {
            t += 0.01;
            a.link.update(t);
            b.link.update(t);
            exchange(a, b, 1);
        }
        assertThat(a.link.endpoint.windowPasses()).as("window passes in 1,000 busy updates").isZero();

        MessageStats.PacketLayer stats = a.link.stats();
        assertThat(a.link.endpoint.windowPasses()).isEqualTo(1);
        assertThat(stats.sentKbps()).isPositive();
        assertThat(stats.rttAvgMillis()).isGreaterThanOrEqualTo(0.0f);
        a.link.stats();
        assertThat(a.link.endpoint.windowPasses()).as("a second read without an update").isEqualTo(1);
    }
}
