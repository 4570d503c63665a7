package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The LAST frame (protocol version 2): a packet's last MSG frame is sent without its length byte, the
 * payload running to the packet's end, which saves a byte of every packet that carries one event.
 * {@link FrameWriter#finish} makes it; the reader takes it back to the same channel, id and payload.
 */
class LastFrameTest {

    private static final int START = 9;

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + i * 7);
        }
        return b;
    }

    private static FrameWriter writer() {
        return new FrameWriter(ByteBuffer.allocate(START + 1186), START, 1186);
    }

    private static byte[] frames(FrameWriter w, int length) {
        byte[] out = new byte[length];
        w.buffer().get(w.start(), out);
        return out;
    }

    record Frame(int type, int channel, int id, byte[] data) {
    }

    private static List<Frame> read(byte[] frames) {
        Frames.Reader r = new Frames.Reader();
        r.reset(frames, 0, frames.length);
        List<Frame> out = new ArrayList<>();
        int result;
        while ((result = r.next()) == Frames.Reader.FRAME) {
            out.add(new Frame(r.type, r.channel, r.id, Arrays.copyOfRange(frames, r.dataOffset, r.dataOffset + r.dataLength)));
        }
        assertThat(result).as(r.error).isEqualTo(Frames.Reader.END);
        return out;
    }

    @Test
    void aLoneMessageIsALastFrameOfThreeHeaderBytes() {
        FrameWriter w = writer();
        w.begin();
        byte[] event = bytes(64, 1);
        w.msg(5, 0x1234, event, 0, 64);
        assertThat(w.length()).isEqualTo(4 + 64);
        int length = w.finish();
        assertThat(length).isEqualTo(3 + 64).isEqualTo(Frames.lastFrameSize(64));
        byte[] f = frames(w, length);
        assertThat(f[0] & 0xFF).isEqualTo(0b11_000101);
        assertThat(f[1] & 0xFF).isEqualTo(0x34);
        assertThat(f[2] & 0xFF).isEqualTo(0x12);
        assertThat(Arrays.copyOfRange(f, 3, length)).isEqualTo(event);
        assertThat(read(f)).singleElement().satisfies(fr -> {
            assertThat(fr.type()).isEqualTo(Frames.TYPE_LAST);
            assertThat(fr.channel()).isEqualTo(5);
            assertThat(fr.id()).isEqualTo(0x1234);
            assertThat(fr.data()).isEqualTo(event);
        });
    }

    @Test
    void aLongLengthSavesAllItsBytesAndTheFramesBeforeStayAsWritten() {
        FrameWriter w = writer();
        w.begin();
        byte[] first = bytes(10, 2);
        byte[] second = bytes(700, 3); // a 2-byte length
        w.msg(0, 7, first, 0, first.length);
        w.msg(1, 9, second, 0, second.length);
        int before = w.length();
        int length = w.finish();
        assertThat(before - length).isEqualTo(2);
        List<Frame> got = read(frames(w, length));
        assertThat(got).hasSize(2);
        assertThat(got.get(0)).usingRecursiveComparison().isEqualTo(new Frame(Frames.TYPE_MSG, 0, 7, first));
        assertThat(got.get(1)).usingRecursiveComparison().isEqualTo(new Frame(Frames.TYPE_LAST, 1, 9, second));
    }

    @Test
    void aPacketEndingInANextOrASliceFrameIsLeftAlone() {
        FrameWriter w = writer();
        w.begin();
        w.msg(0, 1, bytes(32, 4), 0, 32);
        w.next(bytes(32, 5), 0, 32);
        int written = w.length();
        assertThat(w.finish()).isEqualTo(written);
        assertThat(read(frames(w, written))).extracting(Frame::type).containsExactly(Frames.TYPE_MSG, Frames.TYPE_NEXT);

        w.begin();
        w.msg(0, 1, bytes(32, 4), 0, 32);
        w.slice(0, 2, 3000, 1024, 0, bytes(1024, 6), 0, 1024);
        written = w.length();
        assertThat(w.finish()).isEqualTo(written);
        assertThat(read(frames(w, written))).extracting(Frame::type).containsExactly(Frames.TYPE_MSG, Frames.TYPE_SLICE);
    }

    @Test
    void anEmptyMessageAndAFreshPacketAfterAFinishedOne() {
        FrameWriter w = writer();
        w.begin();
        w.msg(3, 0, new byte[0], 0, 0);
        int length = w.finish();
        assertThat(length).isEqualTo(3);
        assertThat(read(frames(w, length))).singleElement()
                .usingRecursiveComparison().isEqualTo(new Frame(Frames.TYPE_LAST, 3, 0, new byte[0]));
        // finish twice is harmless, and the next packet starts clean
        assertThat(w.finish()).isEqualTo(3);
        w.begin();
        w.next(bytes(5, 1), 0, 5); // (not a valid packet on its own; only the writer's bookkeeping is checked)
        assertThat(w.finish()).isEqualTo(6);
    }

    @Test
    void theEndpointSendsALoneEventAsALastFrameAndTheReceiverDeliversIt() {
        List<byte[]> wire = new ArrayList<>();
        List<byte[]> delivered = new ArrayList<>();
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED);
        MessageEndpoint b = new MessageEndpoint(config, 0, (d, o, l) -> { }, (c, id, d, o, l) ->
                delivered.add(Arrays.copyOfRange(d, o, o + l)), MessageEndpoint.DEFAULT_LINK_FACTORY);
        MessageEndpoint a = new MessageEndpoint(config, 0, (d, o, l) -> {
            wire.add(Arrays.copyOfRange(d, o, o + l));
            b.receive(d, o, l, 0.001);
        }, (c, id, d, o, l) -> { }, MessageEndpoint.DEFAULT_LINK_FACTORY);
        byte[] event = bytes(64, 9);
        a.send(0, event);
        a.update(0.0005);
        assertThat(wire).hasSize(1);
        byte[] d = wire.get(0);
        // the packet's frames are its last 67 bytes: 0b11 channel 0, id 0 (u16 LE), then the event
        int f = d.length - 67;
        assertThat(Arrays.copyOfRange(d, f, f + 3)).containsExactly(0xC0, 0, 0);
        assertThat(Arrays.copyOfRange(d, f + 3, d.length)).isEqualTo(event);
        assertThat(delivered).singleElement().isEqualTo(event);
        assertThat(b.stats().malformedPackets()).isZero();
    }
}
