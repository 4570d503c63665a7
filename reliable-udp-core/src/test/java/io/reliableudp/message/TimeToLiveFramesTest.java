package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The receiver's side of the time-to-live frames, fed hand-made packets: a SKIP frame moves an ordered
 * channel past ids that never came (releasing what waited, dropping a partial reassembly), a message
 * whose AGE says it expired is acknowledged but never delivered, malformed and out-of-window frames
 * are refused; and the sender's side: a message without a time-to-live is framed as before.
 */
class TimeToLiveFramesTest {

    final List<String> delivered = new ArrayList<>();
    final List<Integer> ages = new ArrayList<>();
    final RawPeer raw = new RawPeer();
    MessageEndpoint endpoint;

    MessageEndpoint receiver(DeliveryMode mode) {
        MessageConfig config = EndpointPair.config(mode).toBuilder().maxMessageSize(64 * 1024).build();
        endpoint = new MessageEndpoint(config, 0, (d, o, l) -> { }, (c, id, d, o, l) -> {
            delivered.add(id + ":" + new String(d, o, l, java.nio.charset.StandardCharsets.US_ASCII));
            ages.add(endpoint.deliveredMessageAgeMillis());
        });
        return endpoint;
    }

    void receive(byte[] frames) {
        byte[] d = raw.packet(frames, frames.length);
        endpoint.receive(d, 0, d.length, 1.0);
    }

    static byte[] msg(int channel, int id, String text) {
        byte[] p = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] b = new byte[Frames.msgFrameSize(p.length)];
        Frames.writeMsg(b, 0, channel, id, p, 0, p.length);
        return b;
    }

    static byte[] aged(int channel, int id, int age, int ttl, String text) {
        byte[] m = msg(channel, id, text);
        byte[] b = new byte[Frames.ageFrameSize(age, ttl) + m.length];
        int pos = Frames.writeAge(b, 0, channel, id, age, ttl);
        System.arraycopy(m, 0, b, pos, m.length);
        return b;
    }

    static byte[] skip(int channel, int id) {
        byte[] b = new byte[Frames.SKIP_FRAME_SIZE];
        Frames.writeSkip(b, 0, channel, id);
        return b;
    }

    @Test
    void skipLetsAnOrderedChannelGoOnPastIdsThatNeverCame() {
        receiver(DeliveryMode.RELIABLE_ORDERED);
        receive(msg(0, 2, "c"));
        receive(msg(0, 3, "d"));
        assertThat(delivered).isEmpty(); // 0 and 1 missing
        receive(skip(0, 2));
        assertThat(delivered).containsExactly("2:c", "3:d");
        assertThat(endpoint.stats().channels().get(0).messagesSkipped()).isEqualTo(2);
        receive(msg(0, 1, "late")); // an abandoned id that arrives after all: a duplicate, never delivered
        receive(skip(0, 1)); // an old copy of a SKIP: nothing
        assertThat(delivered).containsExactly("2:c", "3:d");
        receive(msg(0, 4, "e"));
        assertThat(delivered).containsExactly("2:c", "3:d", "4:e");
    }

    @Test
    void skipDropsAPartialReassembly() {
        receiver(DeliveryMode.RELIABLE_ORDERED);
        byte[] slice = new byte[Frames.sliceHeaderSize(3000, 1024, 0) + 1024];
        Frames.writeSlice(slice, 0, 0, 0, 3000, 1024, 0, new byte[1024], 0, 1024);
        receive(slice);
        assertThat(endpoint.receiveMemoryBytes()).isEqualTo(3000);
        receive(skip(0, 1));
        assertThat(endpoint.receiveMemoryBytes()).isZero();
        receive(msg(0, 1, "b"));
        assertThat(delivered).containsExactly("1:b");
    }

    @Test
    void aMessageThatArrivesExpiredIsAcknowledgedButNeverDelivered() {
        receiver(DeliveryMode.RELIABLE_ORDERED);
        receive(aged(0, 0, 50, 50, "old"));
        receive(aged(0, 1, 12, 50, "young"));
        assertThat(delivered).containsExactly("1:young");
        assertThat(ages).containsExactly(12);
        assertThat(endpoint.stats().channels().get(0).receivedExpired()).isEqualTo(1);
        assertThat(endpoint.stats().rejectedPackets() + endpoint.stats().malformedPackets()).isZero();
        receive(msg(0, 2, "plain"));
        assertThat(ages).containsExactly(12, -1);
    }

    @Test
    void anEarlyArrivalThatWaitsPastItsTtlIsDropped() {
        receiver(DeliveryMode.RELIABLE_ORDERED);
        byte[] d = raw.packet(aged(0, 1, 10, 50, "waits"), Frames.ageFrameSize(10, 50) + Frames.msgFrameSize(5));
        endpoint.receive(d, 0, d.length, 1.0);
        byte[] s = raw.packet(skip(0, 1), Frames.SKIP_FRAME_SIZE);
        endpoint.receive(s, 0, s.length, 1.045); // 10 ms on arrival + 45 ms waiting: 55 ms
        assertThat(delivered).isEmpty();
        assertThat(endpoint.stats().channels().get(0).receivedExpired()).isEqualTo(1);
    }

    @Test
    void malformedAndOutOfWindowFramesAreRefused() {
        receiver(DeliveryMode.RELIABLE_ORDERED);
        byte[] wrongId = aged(0, 0, 1, 50, "x");
        wrongId[1] = 9; // the AGE names id 9, the MSG id 0
        receive(wrongId);
        receive(new byte[] {(byte) 0x80, 0, 0, 0, 7}); // unknown extension kind
        receive(new byte[] {(byte) 0x80, 0, 0, 0, 1, 5, 0}); // AGE with a time-to-live of 0
        receive(new byte[] {(byte) 0x80, 0, 0, 0, 1, 5, 50}); // AGE at the end of the packet
        assertThat(endpoint.stats().malformedPackets()).isEqualTo(4);
        receive(skip(0, 5000)); // beyond the 4096-id window
        assertThat(endpoint.stats().rejectedPackets()).isEqualTo(1);
        receiver(DeliveryMode.UNRELIABLE);
        receive(skip(0, 1));
        assertThat(endpoint.stats().malformedPackets()).isEqualTo(1);
        assertThat(delivered).isEmpty();
    }

    @Test
    void aMessageWithoutTtlIsFramedAsBefore() {
        List<byte[]> sent = new ArrayList<>();
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                        ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).ttl(Duration.ofMillis(100))))
                .build();
        MessageEndpoint sender = new MessageEndpoint(config, 0, (d, o, l) -> sent.add(java.util.Arrays.copyOfRange(d, o, o + l)),
                (c, id, d, o, l) -> { });
        sender.send(0, new byte[10]);
        sender.update(0);
        sender.send(1, new byte[10]);
        sender.update(0.001);
        assertThat(sent).hasSize(2);
        int header = sent.get(0).length - Frames.lastFrameSize(10);
        assertThat(sent.get(1).length - header).as("AGE + LAST")
                .isEqualTo(Frames.ageFrameSize(1, 100) + Frames.lastFrameSize(10));
        assertThat(sent.get(1)[header] & 0xFF).as("an AGE frame first").isEqualTo(0x81);
    }
}
