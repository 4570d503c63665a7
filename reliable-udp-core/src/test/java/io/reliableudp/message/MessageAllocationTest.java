package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The message layer's steady state allocates nothing: {@code offer}, the send round, receiving,
 * acks and {@code update}, on a reliable and an unreliable channel, counted with this thread's
 * allocation counter (not timed). Once the rings and logs have grown to the traffic in a first
 * round, a second round of the same traffic must stay within the counter's own noise.
 */
@Timeout(60)
class MessageAllocationTest {

    /** Datagrams in flight in one direction: a preallocated ring of copies. */
    private static final class Wire {
        final byte[][] slots;
        final int[] lengths;
        final int mask;
        int head;
        int tail;

        Wire() {
            this(512);
        }

        Wire(int capacity) {
            slots = new byte[capacity][2048];
            lengths = new int[capacity];
            mask = capacity - 1;
        }

        void put(byte[] data, int offset, int length) {
            if (head - tail > mask) {
                throw new AssertionError("the test's wire is full");
            }
            int i = head++ & mask;
            System.arraycopy(data, offset, slots[i], 0, length);
            lengths[i] = length;
        }

        void deliverTo(MessageEndpoint e) {
            while (tail != head) {
                int i = tail++ & mask;
                e.receive(slots[i], 0, lengths[i]);
            }
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private long delivered;
    private long acked;

    @Test
    void steadyStateSendReceiveAndAckAllocateNothing() {
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED), ChannelConfig.of(DeliveryMode.UNRELIABLE)))
                .build();
        Wire ab = new Wire();
        Wire ba = new Wire();
        MessageEndpoint a = new MessageEndpoint(config, 0, ab::put, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, 0, ba::put, (c, id, d, o, l) -> delivered++);
        a.setAckListener((c, id) -> acked++);
        byte[] payload = new byte[32];
        double time = 0;
        long[] allocated = new long[2];
        for (int round = 0; round < 2; round++) {
            long before = allocatedBytes();
            for (int i = 0; i < 3000; i++) {
                time += 0.001;
                for (int k = 0; k < 64; k++) {
                    if (a.offer(k & 1, payload) < 0) {
                        throw new AssertionError("queue full: acks are not flowing");
                    }
                }
                a.flush(time);
                ab.deliverTo(b);
                b.flush(time);
                ba.deliverTo(a);
                if ((i & 15) == 0) {
                    a.update(time);
                    b.update(time);
                }
            }
            allocated[round] = allocatedBytes() - before;
        }
        assertThat(delivered).isEqualTo(2 * 3000 * 64);
        assertThat(acked).isGreaterThan(3000 * 64);
        assertThat(a.hasPendingReliable()).isFalse();
        // 192,000 messages in the second round: anything per message or per packet would be megabytes
        assertThat(allocated[1]).as("bytes allocated by the second round (first: %d)", allocated[0]).isLessThan(4096);
    }

    /**
     * The packet log starts small and grows with the traffic (memory per idle connection);
     * once a first round of bursts with some 256 packets in flight has grown it, a second round of the
     * same traffic neither grows it again nor allocates.
     */
    @Test
    void afterTheLogGrewToTheTrafficSteadyStateAllocatesNothing() {
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED)))
                .congestionControl(MessageConfig.CongestionControl.NONE)
                .build();
        Wire ab = new Wire(2048);
        Wire ba = new Wire(2048);
        MessageEndpoint a = new MessageEndpoint(config, 0, ab::put, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, 0, ba::put, (c, id, d, o, l) -> delivered++);
        int initial = a.packetLogCapacity();
        byte[] payload = new byte[1000]; // one message per packet: many packets in flight
        double time = 0;
        long[] allocated = new long[2];
        int[] capacity = new int[2];
        for (int round = 0; round < 2; round++) {
            long before = allocatedBytes();
            for (int i = 0; i < 800; i++) {
                time += 0.001;
                for (int k = 0; k < 32; k++) {
                    if (a.offer(0, payload) < 0) {
                        throw new AssertionError("queue full: acks are not flowing");
                    }
                }
                a.flush(time);
                if ((i & 7) == 7) {
                    // eight flushes (256 packets) in flight before the peer sees them
                    ab.deliverTo(b);
                    b.flush(time);
                    ba.deliverTo(a);
                }
                if ((i & 15) == 0) {
                    a.update(time);
                    b.update(time);
                }
            }
            allocated[round] = allocatedBytes() - before;
            capacity[round] = a.packetLogCapacity();
        }
        assertThat(delivered).isEqualTo(2 * 800 * 32);
        assertThat(a.hasPendingReliable()).isFalse();
        assertThat(a.stats().channel(0).messagesResent()).as("resends on a loss-free wire").isZero();
        assertThat(initial).isEqualTo(PacketLog.INITIAL_SLOTS);
        assertThat(capacity[0]).as("the log grew to the traffic").isGreaterThanOrEqualTo(256);
        assertThat(capacity[1]).as("and not again in the second round").isEqualTo(capacity[0]);
        assertThat(allocated[1]).as("bytes allocated by the second round (first: %d)", allocated[0]).isLessThan(4096);
    }
}
