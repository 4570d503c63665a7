package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DropReason;
import io.reliableudp.internal.WireCodec;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameCodec} on its own: the header it writes, what it opens and what it drops (and why), in
 * plain and encrypted mode, and that the plain path allocates nothing per frame.
 */
class FrameCodecTest {

    private static final long PROTOCOL = 0x5255_4450_0001_0000L;
    private static final int SALT = 0x0bad_cafe;
    private static final int HEAD = FrameCodec.HEADER;

    private static FrameCodec plain() {
        return new FrameCodec(false, PROTOCOL, 1200);
    }

    /** Two encrypted codecs that talk to each other (a's sealer is b's opener and the reverse). */
    private static FrameCodec[] encryptedPair() {
        byte[] k1 = new byte[32];
        byte[] k2 = new byte[32];
        Arrays.fill(k1, (byte) 1);
        Arrays.fill(k2, (byte) 2);
        FrameCodec a = new FrameCodec(true, PROTOCOL, 1200);
        FrameCodec b = new FrameCodec(true, PROTOCOL, 1200);
        a.keys(new FrameKeys(k1), new FrameKeys(k2));
        b.keys(new FrameKeys(k2), new FrameKeys(k1));
        return new FrameCodec[] {a, b};
    }

    /** Seals {@code body} as a PAYLOAD with {@code codec} and returns the frame's bytes. */
    private static byte[] seal(FrameCodec codec, ByteBuffer d, byte[] body) {
        d.put(HEAD, body);
        int n = codec.seal(d, Protocol.PAYLOAD, SALT, HEAD, body.length);
        byte[] frame = new byte[n];
        d.get(0, frame);
        return frame;
    }

    private static byte[] opened(FrameCodec codec, int n) {
        return Arrays.copyOfRange(codec.body(), codec.bodyOffset(), codec.bodyOffset() + n);
    }

    @Test
    void aPlainFrameIsTypeSaltSequenceAndBodyAndOpensWhereItLies() {
        FrameCodec sender = plain();
        FrameCodec receiver = plain();
        ByteBuffer d = ByteBuffer.allocateDirect(1300);
        for (long i = 0; i < 3; i++) {
            byte[] frame = seal(sender, d, new byte[] {7, 8, 9});
            assertThat(frame).hasSize(HEAD + 3);
            assertThat(frame[0]).isEqualTo(Protocol.PAYLOAD);
            assertThat(WireCodec.getIntBE(frame, 1)).isEqualTo(SALT);
            assertThat(WireCodec.getLongBE(frame, 5)).isEqualTo(i);
            int n = receiver.open(frame, 0, frame.length, SALT);
            assertThat(n).isEqualTo(3);
            assertThat(receiver.body()).isSameAs(frame); // no copy
            assertThat(opened(receiver, n)).containsExactly(7, 8, 9);
        }
        assertThat(sender.nextSequence()).isEqualTo(3);
        assertThat(sender.overhead()).isEqualTo(HEAD).isEqualTo(13);
    }

    @Test
    void plainFramesThatAreOldRepeatedForeignOrShortAreDroppedWithTheirReason() {
        FrameCodec receiver = plain();
        byte[] frame = new byte[HEAD + 1];
        frame[0] = Protocol.KEEPALIVE;
        WireCodec.putIntBE(frame, 1, SALT);
        WireCodec.putLongBE(frame, 5, 1_000);
        assertThat(receiver.open(frame, 0, frame.length, SALT)).isEqualTo(1);
        assertThat(receiver.open(frame, 0, frame.length, SALT)).isEqualTo(-1);
        assertThat(receiver.dropReason()).isEqualTo(DropReason.REPLAYED);
        // reordered within the window: accepted once; 256 or more behind the newest: refused
        WireCodec.putLongBE(frame, 5, 1_000 - 255);
        assertThat(receiver.open(frame, 0, frame.length, SALT)).isEqualTo(1);
        WireCodec.putLongBE(frame, 5, 1_000 - 256);
        assertThat(receiver.open(frame, 0, frame.length, SALT)).isEqualTo(-1);
        assertThat(receiver.dropReason()).isEqualTo(DropReason.REPLAYED);
        // a sequence of 2^63 or more is never sent
        WireCodec.putLongBE(frame, 5, Long.MIN_VALUE);
        assertThat(receiver.open(frame, 0, frame.length, SALT)).isEqualTo(-1);
        assertThat(receiver.dropReason()).isEqualTo(DropReason.REPLAYED);
        // another connection's salt, before the window is looked at
        WireCodec.putLongBE(frame, 5, 2_000);
        assertThat(receiver.open(frame, 0, frame.length, SALT + 1)).isEqualTo(-1);
        assertThat(receiver.dropReason()).isEqualTo(DropReason.STALE_CONNECTION);
        assertThat(receiver.open(frame, 0, HEAD - 1, SALT)).isEqualTo(-1);
        assertThat(receiver.dropReason()).isEqualTo(DropReason.MALFORMED);
        // neither moved the window: 2,000 is still new
        assertThat(receiver.open(frame, 0, frame.length, SALT)).isEqualTo(1);
    }

    @Test
    void anEncryptedFrameHasThePlainHeaderSealsTheBodyAndRefusesForgeriesWithoutMovingTheWindow() {
        FrameCodec[] pair = encryptedPair();
        ByteBuffer d = ByteBuffer.allocate(1300);
        byte[] frame = seal(pair[0], d, "secret".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(frame).hasSize(HEAD + 6 + Protocol.TAG_BYTES);
        assertThat(WireCodec.getLongBE(frame, 5)).isZero();
        assertThat(new String(frame, java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("secret");

        byte[] forged = frame.clone();
        WireCodec.putLongBE(forged, 5, 1L << 40); // a sequence far ahead: authenticated data, so the tag fails
        assertThat(pair[1].open(forged, 0, forged.length, SALT)).isEqualTo(-1);
        assertThat(pair[1].dropReason()).isEqualTo(DropReason.DECRYPT_FAILED);

        int n = pair[1].open(frame, 0, frame.length, SALT);
        assertThat(n).isEqualTo(6);
        assertThat(new String(opened(pair[1], n), java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("secret");
        assertThat(pair[1].open(frame, 0, frame.length, SALT)).isEqualTo(-1);
        assertThat(pair[1].dropReason()).isEqualTo(DropReason.REPLAYED);

        // without keys an encrypted codec seals nothing and opens nothing
        FrameCodec keyless = new FrameCodec(true, PROTOCOL, 1200);
        assertThat(keyless.seal(d, Protocol.KEEPALIVE, SALT, HEAD, 0)).isEqualTo(-1);
        WireCodec.putLongBE(frame, 5, 0);
        assertThat(keyless.open(frame, 0, frame.length, SALT)).isEqualTo(-1);
        assertThat(keyless.dropReason()).isEqualTo(DropReason.DECRYPT_FAILED);
    }

    @Test
    void thePlainPathAllocatesNothingPerFrame() {
        FrameCodec sender = plain();
        FrameCodec receiver = plain();
        ByteBuffer direct = ByteBuffer.allocateDirect(1300);
        byte[] wire = new byte[1300];
        int body = 1000;
        // warm up (JIT), then count what 100,000 frames allocate on this thread
        long sum = exchange(sender, receiver, direct, wire, body, 20_000);
        long before = allocated();
        sum += exchange(sender, receiver, direct, wire, body, 100_000);
        long after = allocated();
        assertThat(sum).isEqualTo(120_000L * body);
        assertThat(after - before).as("bytes allocated by 100,000 plain seals and opens").isLessThan(1_000);
    }

    private static long exchange(FrameCodec sender, FrameCodec receiver, ByteBuffer d, byte[] wire, int body, int frames) {
        long sum = 0;
        for (int i = 0; i < frames; i++) {
            int n = sender.seal(d, Protocol.PAYLOAD, SALT, HEAD, body);
            d.get(0, wire, 0, n); // what the socket would carry
            sum += receiver.open(wire, 0, n, SALT);
        }
        return sum;
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }
}
