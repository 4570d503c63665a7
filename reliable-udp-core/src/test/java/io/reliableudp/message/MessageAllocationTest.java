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
        final byte[][] slots = new byte[512][2048];
        final int[] lengths = new int[512];
        int head;
        int tail;

        void put(byte[] data, int offset, int length) {
            int i = head++ & 511;
            System.arraycopy(data, offset, slots[i], 0, length);
            lengths[i] = length;
        }

        void deliverTo(MessageEndpoint e) {
            while (tail != head) {
                int i = tail++ & 511;
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
}
