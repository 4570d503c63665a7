package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The ordered channel's buffer of early arrivals starts empty and grows to the farthest early id
 * (issue 14: memory per connection), while the window the sender is bound by stays the configured one:
 * messages arriving in any order within the window are delivered once each, in id order, across
 * growth and the 16-bit wrap, and the buffer never exceeds the window.
 */
class OrderedReceiveRingTest {

    private final List<Integer> delivered = new ArrayList<>();

    private OrderedReceiveChannel channel(int window) {
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED))).receiveWindow(window).build();
        Receiver r = new Receiver(config, (c, id, d, o, l) -> {
            assertThat(l).isEqualTo(2);
            assertThat(((d[o] & 0xFF) << 8) | (d[o + 1] & 0xFF)).as("payload of %d", id).isEqualTo(id);
            delivered.add(id);
        }, ReceivePool.unlimited());
        return (OrderedReceiveChannel) r.channel(0);
    }

    private static byte[] payload(int id) {
        return new byte[] {(byte) (id >>> 8), (byte) id};
    }

    @Test
    void emptyUntilTheFirstEarlyArrivalThenAsLargeAsTheFarthestOne() {
        OrderedReceiveChannel ch = channel(4096);
        ch.receive(0, payload(0), 0, 2);
        assertThat(ch.bufferCapacity()).as("in order: nothing buffered").isZero();
        ch.receive(2, payload(2), 0, 2);
        assertThat(ch.bufferCapacity()).isEqualTo(OrderedReceiveChannel.FIRST_CAPACITY);
        ch.receive(1 + 100, payload(101), 0, 2);
        assertThat(ch.bufferCapacity()).isEqualTo(128);
        ch.receive(1 + 4095, payload(4096), 0, 2);
        assertThat(ch.bufferCapacity()).as("never more than the window").isEqualTo(4096);
        ch.receive(1 + 4096, payload(4097), 0, 2);
        assertThat(ch.bufferCapacity()).as("beyond the window: dropped, no growth").isEqualTo(4096);
        for (int id = 1; id <= 4096; id++) {
            if (id != 2 && id != 101) {
                ch.receive(id, payload(id), 0, 2);
            }
        }
        List<Integer> expected = new ArrayList<>();
        for (int id = 0; id <= 4096; id++) {
            expected.add(id);
        }
        assertThat(delivered).isEqualTo(expected);
    }

    @Test
    void anyArrivalOrderWithinTheWindowIsDeliveredOnceInOrderAcrossGrowthAndTheWrap() {
        SplittableRandom random = new SplittableRandom(14);
        for (int trial = 0; trial < 20; trial++) {
            delivered.clear();
            int window = 64 << random.nextInt(5);
            OrderedReceiveChannel ch = channel(window);
            int total = 70_000 + random.nextInt(2000); // past the 16-bit wrap
            int next = 0; // lowest id not yet handed to the channel
            List<Integer> pending = new ArrayList<>();
            int sentUpTo = 0;
            while (next < total) {
                // the sender's bound: ids below the oldest unreceived one + window; a random subset arrives now,
                // some twice
                int limit = Math.min(total, next + window);
                while (sentUpTo < limit && pending.size() < window) {
                    pending.add(sentUpTo++);
                }
                int k = 1 + random.nextInt(Math.max(1, pending.size()));
                for (int j = 0; j < k && !pending.isEmpty(); j++) {
                    int pick = random.nextInt(pending.size());
                    int id = pending.get(pick);
                    ch.receive(id & 0xFFFF, payload(id & 0xFFFF), 0, 2);
                    if (random.nextInt(8) == 0) {
                        ch.receive(id & 0xFFFF, payload(id & 0xFFFF), 0, 2); // a duplicate
                    }
                    pending.set(pick, pending.get(pending.size() - 1));
                    pending.remove(pending.size() - 1);
                }
                next = delivered.size();
                assertThat(ch.bufferCapacity()).isLessThanOrEqualTo(window);
            }
            assertThat(delivered).hasSize(total);
            for (int i = 0; i < total; i++) {
                if (delivered.get(i) != (i & 0xFFFF)) {
                    throw new AssertionError("trial " + trial + ": position " + i + " delivered " + delivered.get(i));
                }
            }
        }
    }
}
