package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A slot of a channel's send ring is written by its message only (its payload, and a completion or a
 * large send when it has one), so every way a message leaves the ring must leave its slot clean for
 * the next one: no completion (it would be told twice), no large send (the next message would be
 * sent as slices), the state {@link SendChannel#EMPTY} and no fast resend due.
 */
class SendQueueSlotTest {

    private static final int BUDGET = 1100;

    private static SendQueue queue(DeliveryMode mode) {
        MessageConfig config = MessageConfig.builder().channels(List.of(new ChannelConfig(mode, 8, 1 << 20))).build();
        return new SendQueue(config, BUDGET, BUDGET);
    }

    private static final class Count implements SendCompletion {
        int delivered;
        int failed;

        @Override
        public void delivered(int channel, int messageId) {
            delivered++;
        }

        @Override
        public void failed(DeliveryException failure) {
            failed++;
        }
    }

    private static void assertClean(SendChannel ch, int i) {
        assertThat(ch.payload[i]).as("payload").isNull();
        assertThat(ch.completion[i]).as("completion").isNull();
        assertThat(ch.large[i]).as("large send").isNull();
        assertThat(ch.state[i]).as("state").isEqualTo(SendChannel.EMPTY);
        assertThat(ch.fastDue[i]).as("fast resend due").isFalse();
    }

    @Test
    void anAcknowledgedReliableMessageLeavesItsSlotClean() {
        SendQueue q = queue(DeliveryMode.RELIABLE_ORDERED);
        SendChannel ch = q.channels[0];
        Count first = new Count();
        // a large message with a completion whose packet the acks had shown lost: then acknowledged after all
        assertThat(q.offer(0, new byte[3000], first)).isZero();
        int i = 0;
        assertThat(ch.large[i]).isNotNull();
        ch.state[i] = SendChannel.SENT;
        ch.fastDue[i] = true;
        ch.nextUnsent = 1;
        q.reliableAcked(ch, 0, i);
        assertThat(first.delivered).isEqualTo(1);
        assertClean(ch, i);
        // the ring has 16 slots: the 17th message takes slot 0 again, and brings neither completion nor large send
        for (int v = 1; v <= 16; v++) {
            int id = q.offer(0, new byte[10], null);
            assertThat(id).isEqualTo(v);
            int slot = v & ch.mask;
            if (v == 16) {
                assertThat(slot).isEqualTo(i);
                assertThat(ch.completion[slot]).isNull();
                assertThat(ch.large[slot]).isNull();
                assertThat(ch.fastDue[slot]).isFalse();
            }
            ch.state[slot] = SendChannel.SENT;
            ch.nextUnsent = v + 1;
            q.reliableAcked(ch, v, slot);
            assertClean(ch, slot);
        }
        assertThat(first.delivered).as("told once, not again by the slot's next message").isEqualTo(1);
        assertThat(ch.mask + 1).as("the ring did not grow: the slots were reused").isEqualTo(16);
    }

    @Test
    void aWrittenUnreliableMessageAndAClosedQueueLeaveTheirSlotsClean() {
        SendQueue q = queue(DeliveryMode.UNRELIABLE);
        SendChannel ch = q.channels[0];
        Count written = new Count();
        q.offer(0, new byte[10], written);
        q.unreliableWritten(ch, 0, 0, 10);
        assertThat(written.delivered).isEqualTo(1);
        assertClean(ch, 0);

        Count pending = new Count();
        q.offer(0, new byte[10], pending);
        q.offer(0, new byte[10], null);
        q.close(DeliveryFailure.TIMEOUT);
        assertThat(pending.failed).isEqualTo(1);
        assertClean(ch, 1);
        assertClean(ch, 2);
    }
}
