package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hostile peer cannot make a receiver hold memory without bound: a raw peer writing frames sends
 * complete 1 MiB (sliced) messages with ids 1..N on an ordered channel and never id 0, so each would
 * wait for id 0. The receiver keeps at most its receive memory limit (counted, and measured as heap
 * retained after GC), refuses the packets past it (counted, not acknowledged), still takes id 0 when
 * it comes (the limit keeps room for the message a channel waits for) and then delivers in order
 * what it held. Another connection of the same node goes on meanwhile.
 */
@Timeout(120)
class ReceiveMemoryLimitTest {

    private static final int MIB = 1024 * 1024;
    private static final int SLICE = 1024;

    /** Feeds one complete sliced message of {@code total} bytes (one slice per packet) to {@code receiver}. */
    private static void sendSliced(RawPeer raw, MessageEndpoint receiver, int channel, int id, int total) {
        byte[] slice = new byte[SLICE];
        byte[] buf = new byte[SLICE + 32];
        int slices = Frames.sliceCount(total, SLICE);
        for (int i = 0; i < slices; i++) {
            int length = Math.min(SLICE, total - i * SLICE);
            slice[0] = (byte) id;
            slice[1] = (byte) (id >>> 8);
            int end = Frames.writeSlice(buf, 0, channel, id, total, SLICE, i, slice, 0, length);
            byte[] datagram = raw.packet(buf, end);
            receiver.receive(datagram, 0, datagram.length);
        }
        // an empty packet, as a sender's ack-only packets are: accepted whatever the memory, it keeps the
        // receiver's packet window with the sender's sequence (a refused packet does not move it, and
        // after 32768 refused ones in a row the next ones would look old to the packet layer)
        byte[] empty = raw.packet(buf, 0);
        receiver.receive(empty, 0, empty.length);
    }

    private static long retainedHeap() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    @Test
    void completedMessagesWaitingForAnIdThatNeverComesStayWithinTheLimit() {
        MessageConfig config = MessageConfig.defaults(); // channel 0 is reliable-ordered, 1 MiB messages
        assertThat(config.channels().get(0).mode()).isEqualTo(DeliveryMode.RELIABLE_ORDERED);
        ReceivePool node = new ReceivePool(256L * MIB, config.maxMessageSize());
        List<Integer> delivered = new ArrayList<>();
        MessageEndpoint server = new MessageEndpoint(config, 0, (d, o, l) -> { }, (c, id, d, o, l) -> {
            delivered.add(id);
            assertThat(l).isEqualTo(MIB);
            assertThat((d[o] & 0xFF) | (d[o + 1] & 0xFF) << 8).isEqualTo(id);
        }, node);
        RawPeer hostile = new RawPeer();

        long before = retainedHeap();
        int messages = 200;
        for (int id = 1; id <= messages; id++) {
            sendSliced(hostile, server, 0, id, MIB);
        }
        long retained = retainedHeap() - before;
        long held = server.receiveMemoryBytes();
        System.out.printf("hostile peer: %d messages of 1 MiB sent, ids 1..%d; retained heap after GC %.1f MiB, "
                        + "held %.1f MiB (limit %.1f MiB), packets refused %d%n", messages, messages,
                retained / (double) MIB, held / (double) MIB, config.receiveMemoryLimit() / (double) MIB,
                server.stats().memoryRefusals());

        assertThat(delivered).isEmpty();
        assertThat(held).isLessThanOrEqualTo(config.receiveMemoryLimit());
        assertThat(node.heldBytes()).isEqualTo(held);
        // what the counter says is what the heap holds (plus the test's and the JVM's noise)
        assertThat(retained).isLessThan(config.receiveMemoryLimit() + 8L * MIB);
        assertThat(server.stats().memoryRefusals()).isPositive();
        assertThat(node.refusals()).isEqualTo(server.stats().memoryRefusals());

        // id 0 comes at last: taken although the buffer is full of later ids, and what was held follows in order
        sendSliced(hostile, server, 0, 0, MIB);
        assertThat(delivered).isNotEmpty();
        for (int i = 0; i < delivered.size(); i++) {
            assertThat(delivered.get(i)).isEqualTo(i);
        }
        assertThat(delivered.size()).isGreaterThan(1);
        assertThat(server.receiveMemoryBytes()).isZero();
        assertThat(node.heldBytes()).isZero();
        Reference.reachabilityFence(server);
    }

    @Test
    void anotherConnectionOfTheNodeGoesOnWhileOneHoldsItsShare() {
        MessageConfig config = MessageConfig.defaults();
        // the node's limit is below one connection's: the hostile one fills the node, not just itself
        ReceivePool node = new ReceivePool(8L * MIB, config.maxMessageSize());
        MessageEndpoint hostileSide = new MessageEndpoint(config, 0, (d, o, l) -> { }, (c, id, d, o, l) -> { }, node);
        RawPeer hostile = new RawPeer();
        for (int id = 1; id <= 20; id++) {
            sendSliced(hostile, hostileSide, 0, id, MIB);
        }
        assertThat(node.heldBytes()).isLessThanOrEqualTo(8L * MIB - config.maxMessageSize());
        assertThat(hostileSide.stats().memoryRefusals()).isPositive();

        // an honest peer's in-order messages, large and small, still arrive (they move its window)
        List<Integer> delivered = new ArrayList<>();
        MessageEndpoint honestSide = new MessageEndpoint(config, 0, (d, o, l) -> { }, (c, id, d, o, l) -> delivered.add(id), node);
        RawPeer honest = new RawPeer();
        for (int id = 0; id < 5; id++) {
            sendSliced(honest, honestSide, 0, id, MIB);
        }
        byte[] buf = new byte[64];
        for (int id = 5; id < 50; id++) {
            int end = Frames.writeMsg(buf, 0, 0, id, new byte[] {1, 2, 3}, 0, 3);
            byte[] datagram = honest.packet(buf, end);
            honestSide.receive(datagram, 0, datagram.length);
        }
        assertThat(delivered).hasSize(50);
        for (int i = 0; i < 50; i++) {
            assertThat(delivered.get(i)).isEqualTo(i);
        }
        assertThat(honestSide.stats().memoryRefusals()).isZero();
    }
}
