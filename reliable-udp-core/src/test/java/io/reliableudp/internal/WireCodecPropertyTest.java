package io.reliableudp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Properties of {@link WireCodec}: varints round-trip in their shortest form, the reader agrees with a
 * plain model on any bytes (so it rejects exactly the truncated, too long and out-of-range forms, and
 * keeps accepting over-long ones as the message layer always has), and the fixed-width fields have the
 * byte order {@link ByteBuffer} gives them.
 */
class WireCodecPropertyTest {

    private static final HexFormat HEX = HexFormat.of();

    /** The reader as the byte tables describe it, in longs so nothing can overflow. */
    static long model(byte[] b, int pos, int end) {
        long value = 0;
        for (int i = 0; i < WireCodec.MAX_VARINT_BYTES; i++) {
            if (pos + i >= end) {
                return WireCodec.VARINT_INVALID;
            }
            int x = b[pos + i] & 0xFF;
            value |= (long) (x & 0x7F) << (7 * i);
            if ((x & 0x80) == 0) {
                return value <= Integer.MAX_VALUE ? (long) (i + 1) << 32 | value : WireCodec.VARINT_INVALID;
            }
        }
        return WireCodec.VARINT_INVALID;
    }

    @Property
    void varintsRoundTripInTheAnnouncedSize(@ForAll @IntRange(min = 0) int value, @ForAll @IntRange(max = 7) int offset) {
        byte[] buf = new byte[offset + 5 + 3];
        Arrays.fill(buf, (byte) 0xA5);
        int end = WireCodec.writeVarint(buf, offset, value);
        assertThat(end - offset).isEqualTo(WireCodec.varintSize(value));
        // the bytes after the varint (0xA5: a continuation bit) are not read
        long r = WireCodec.readVarint(buf, offset, buf.length);
        assertThat(r).isNotEqualTo(WireCodec.VARINT_INVALID);
        assertThat(WireCodec.varintLength(r)).isEqualTo(end - offset);
        assertThat(WireCodec.varintValue(r)).isEqualTo(value);
        assertThat(buf[end]).isEqualTo((byte) 0xA5);
    }

    @Property
    void theWriterUsesTheShortestForm(@ForAll @IntRange(min = 0) int value) {
        byte[] buf = new byte[5];
        int length = WireCodec.writeVarint(buf, 0, value);
        int bits = 32 - Integer.numberOfLeadingZeros(value);
        assertThat(length).isEqualTo(Math.max(1, (bits + 6) / 7));
        for (int i = 0; i < length - 1; i++) {
            assertThat(buf[i] & 0x80).as("continuation bit of byte %d", i).isEqualTo(0x80);
        }
        assertThat(buf[length - 1] & 0x80).isZero();
        // shortest: the last group is not zero, except for the value 0 itself
        assertThat(buf[length - 1] == 0).isEqualTo(value == 0);
    }

    @Property(tries = 3000)
    void theReaderAgreesWithTheModelOnAnyBytes(@ForAll @Size(max = 8) byte[] bytes, @ForAll @IntRange(max = 8) int end) {
        int limit = Math.min(end, bytes.length);
        assertThat(WireCodec.readVarint(bytes, 0, limit)).isEqualTo(model(bytes, 0, limit));
    }

    @Property
    void aTruncatedVarintIsRejectedEvenWhenMoreBytesFollowTheEnd(@ForAll @IntRange(min = 128) int value) {
        byte[] buf = new byte[5];
        int length = WireCodec.writeVarint(buf, 0, value);
        for (int cut = 0; cut < length; cut++) {
            assertThat(WireCodec.readVarint(buf, 0, cut)).as("first %d of %d bytes", cut, length)
                    .isEqualTo(WireCodec.VARINT_INVALID);
        }
    }

    @Property
    void overLongFormsUpToFiveBytesAreAcceptedAndLongerOnesRejected(@ForAll @IntRange(min = 0, max = 1 << 21) int value,
            @ForAll @IntRange(min = 1, max = 4) int padding) {
        byte[] buf = new byte[10];
        int length = WireCodec.writeVarint(buf, 0, value);
        // pad with zero groups: set the continuation bit on the last byte, then add 0x80 .. 0x00
        buf[length - 1] |= (byte) 0x80;
        for (int i = 0; i < padding - 1; i++) {
            buf[length + i] = (byte) 0x80;
        }
        buf[length + padding - 1] = 0;
        int total = length + padding;
        long r = WireCodec.readVarint(buf, 0, buf.length);
        if (total <= WireCodec.MAX_VARINT_BYTES) {
            assertThat(WireCodec.varintValue(r)).isEqualTo(value);
            assertThat(WireCodec.varintLength(r)).isEqualTo(total);
        } else {
            assertThat(r).isEqualTo(WireCodec.VARINT_INVALID);
        }
    }

    @Property
    void aFifthByteAboveThirtyOneBitsIsRejected(@ForAll @Size(4) byte[] low, @ForAll @IntRange(min = 0x08, max = 0xFF) int fifth) {
        byte[] buf = new byte[5];
        for (int i = 0; i < 4; i++) {
            buf[i] = (byte) (low[i] | 0x80);
        }
        buf[4] = (byte) fifth;
        assertThat(WireCodec.readVarint(buf, 0, 5)).isEqualTo(WireCodec.VARINT_INVALID);
        buf[4] = (byte) (fifth & 0x07);
        assertThat(WireCodec.readVarint(buf, 0, 5)).isNotEqualTo(WireCodec.VARINT_INVALID);
    }

    @Example
    void knownEncodings() {
        assertThat(encode(0)).isEqualTo("00");
        assertThat(encode(127)).isEqualTo("7f");
        assertThat(encode(128)).isEqualTo("8001");
        assertThat(encode(300)).isEqualTo("ac02");
        assertThat(encode(Integer.MAX_VALUE)).isEqualTo("ffffffff07");
        assertThat(read("8000")).isEqualTo(2L << 32);
        assertThat(read("ffffffff07")).isEqualTo(5L << 32 | Integer.MAX_VALUE);
        assertThat(read("ffffffff08")).isEqualTo(WireCodec.VARINT_INVALID);
        assertThat(read("8080808080")).isEqualTo(WireCodec.VARINT_INVALID);
        assertThat(read("")).isEqualTo(WireCodec.VARINT_INVALID);
    }

    @Property
    void fixedWidthFieldsHaveTheirByteOrder(@ForAll int i, @ForAll long l, @ForAll @IntRange(max = 5) int offset) {
        byte[] buf = new byte[offset + 8];
        ByteBuffer be = ByteBuffer.wrap(buf).order(ByteOrder.BIG_ENDIAN);
        ByteBuffer le = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);

        WireCodec.putIntBE(buf, offset, i);
        assertThat(be.getInt(offset)).isEqualTo(i);
        assertThat(WireCodec.getIntBE(buf, offset)).isEqualTo(i);

        WireCodec.putLongBE(buf, offset, l);
        assertThat(be.getLong(offset)).isEqualTo(l);
        assertThat(WireCodec.getLongBE(buf, offset)).isEqualTo(l);

        WireCodec.putU16BE(buf, offset, i);
        assertThat(be.getShort(offset) & 0xFFFF).isEqualTo(i & 0xFFFF);
        assertThat(WireCodec.getU16BE(buf, offset)).isEqualTo(i & 0xFFFF);

        WireCodec.putU16LE(buf, offset, i);
        assertThat(le.getShort(offset) & 0xFFFF).isEqualTo(i & 0xFFFF);
        assertThat(WireCodec.getU16LE(buf, offset)).isEqualTo(i & 0xFFFF);
    }

    private static String encode(int value) {
        byte[] buf = new byte[5];
        return HEX.formatHex(buf, 0, WireCodec.writeVarint(buf, 0, value));
    }

    private static long read(String hex) {
        byte[] b = HEX.parseHex(hex);
        return WireCodec.readVarint(b, 0, b.length);
    }
}
