package io.reliableudp.packet;

import static io.reliableudp.internal.WireCodec.getU16LE;
import static io.reliableudp.internal.WireCodec.putU16LE;

/**
 * Encoder and decoder of the regular packet header of {@code reliable} 1.4.0 (4 to 9 bytes).
 *
 * <pre>
 * byte 0      prefix: bit 0 = 0 (regular packet); bits 1..4 = ack_bits byte 0..3 present
 *             (written only when that byte is not 0xFF); bit 5 = ack written as an 8-bit difference
 * bytes 1-2   sequence, little-endian
 * then        1 byte (sequence - ack) mod 65536 when bit 5 is set, else ack as 2 bytes little-endian
 * then        the present ack_bits bytes, low byte first (an absent byte reads as 0xFF)
 * </pre>
 *
 * <p>{@link #encode} writes the canonical (shortest) form; {@link #decode} accepts any well-formed
 * header, canonical or not, and ignores prefix bits 6-7, as the reference does. A decoder instance
 * keeps the fields of the last successful decode (a flyweight: no allocation per call); it is not
 * thread-safe. {@link #encode} is static and allocation-free. The 16-bit fields go through the core's
 * shared little-endian helpers ({@link io.reliableudp.internal.WireCodec}): plain byte shifts that the JIT
 * inlines, so the code that runs is the same as with the shifts written out here.
 */
final class PacketHeaderCodec {

    /** Longest regular header: prefix, sequence, 16-bit ack and four ack_bits bytes. */
    public static final int MAX_HEADER_BYTES = 9;

    /** Shortest regular header: prefix, sequence, 8-bit ack difference, no ack_bits byte. */
    public static final int MIN_HEADER_BYTES = 4;

    /** Length of the fragment header {@code [0x01][sequence u16][fragment id u8][fragments - 1 u8]}. */
    public static final int FRAGMENT_HEADER_BYTES = 5;

    private int sequence;
    private int ack;
    private int ackBits;

    /** Creates a decoder; its fields are 0 until the first successful {@link #decode}. */
    public PacketHeaderCodec() {
    }

    /**
     * Length of the canonical header for these fields, without writing it.
     *
     * @param sequence packet sequence, 0..65535
     * @param ack      newest sequence received, 0..65535
     * @param ackBits  32 ack bits
     * @return 4..9
     */
    public static int encodedLength(int sequence, int ack, int ackBits) {
        int length = ((sequence - ack) & 0xFFFF) <= 255 ? 4 : 5;
        for (int i = 0; i < 4; ++i) {
            if (((ackBits >>> (8 * i)) & 0xFF) != 0xFF) {
                length++;
            }
        }
        return length;
    }

    /**
     * The prefix byte of the canonical header for these fields. A header that {@link #decode}
     * accepted is byte for byte the canonical one exactly when its prefix byte is this value: the
     * prefix fixes the layout, and every other byte is then determined by the decoded fields.
     *
     * @param sequence packet sequence, 0..65535
     * @param ack      newest sequence received, 0..65535
     * @param ackBits  32 ack bits
     * @return the prefix byte, 0..63
     */
    static int canonicalPrefix(int sequence, int ack, int ackBits) {
        int prefix = ((sequence - ack) & 0xFFFF) <= 255 ? 1 << 5 : 0;
        for (int i = 0; i < 4; ++i) {
            if (((ackBits >>> (8 * i)) & 0xFF) != 0xFF) {
                prefix |= 2 << i;
            }
        }
        return prefix;
    }

    /**
     * Writes the canonical header at {@code buffer[offset]}.
     *
     * @param buffer   destination, with at least {@link #MAX_HEADER_BYTES} bytes from {@code offset}
     *                 (or at least {@link #encodedLength})
     * @param offset   where to write
     * @param sequence packet sequence, 0..65535
     * @param ack      newest sequence received, 0..65535
     * @param ackBits  32 ack bits: bit n set when packet {@code ack - n} was received
     * @return the number of bytes written, 4..9
     */
    public static int encode(byte[] buffer, int offset, int sequence, int ack, int ackBits) {
        int prefix = 0;
        int b0 = ackBits & 0xFF;
        int b1 = (ackBits >>> 8) & 0xFF;
        int b2 = (ackBits >>> 16) & 0xFF;
        int b3 = ackBits >>> 24;
        if (b0 != 0xFF) {
            prefix |= 1 << 1;
        }
        if (b1 != 0xFF) {
            prefix |= 1 << 2;
        }
        if (b2 != 0xFF) {
            prefix |= 1 << 3;
        }
        if (b3 != 0xFF) {
            prefix |= 1 << 4;
        }
        int difference = (sequence - ack) & 0xFFFF;
        boolean shortAck = difference <= 255;
        if (shortAck) {
            prefix |= 1 << 5;
        }
        int p = offset;
        buffer[p++] = (byte) prefix;
        putU16LE(buffer, p, sequence);
        p += 2;
        if (shortAck) {
            buffer[p++] = (byte) difference;
        } else {
            putU16LE(buffer, p, ack);
            p += 2;
        }
        if (b0 != 0xFF) {
            buffer[p++] = (byte) b0;
        }
        if (b1 != 0xFF) {
            buffer[p++] = (byte) b1;
        }
        if (b2 != 0xFF) {
            buffer[p++] = (byte) b2;
        }
        if (b3 != 0xFF) {
            buffer[p++] = (byte) b3;
        }
        return p - offset;
    }

    /**
     * Reads a regular header from {@code buffer[offset .. offset+length)}. On success the fields are
     * available from {@link #sequence()}, {@link #ack()} and {@link #ackBits()}; on failure they keep
     * their previous values. Never throws for any content (the bounds must be valid).
     *
     * @param buffer source
     * @param offset first byte of the header
     * @param length bytes available from {@code offset}
     * @return the header length (4..9), or -1 when the bytes are not a regular header: shorter than
     *         its prefix requires, or prefix bit 0 set
     */
    public int decode(byte[] buffer, int offset, int length) {
        if (length < 3) {
            return -1;
        }
        int prefix = buffer[offset] & 0xFF;
        if ((prefix & 1) != 0) {
            return -1;
        }
        int seq = getU16LE(buffer, offset + 1);
        int p = offset + 3;
        int a;
        if ((prefix & (1 << 5)) != 0) {
            if (length < 4) {
                return -1;
            }
            a = (seq - (buffer[p++] & 0xFF)) & 0xFFFF;
        } else {
            if (length < 5) {
                return -1;
            }
            a = getU16LE(buffer, p);
            p += 2;
        }
        int expected = Integer.bitCount(prefix & 0x1E);
        if (length < (p - offset) + expected) {
            return -1;
        }
        int bits = 0xFFFFFFFF;
        if ((prefix & (1 << 1)) != 0) {
            bits = (bits & 0xFFFFFF00) | (buffer[p++] & 0xFF);
        }
        if ((prefix & (1 << 2)) != 0) {
            bits = (bits & 0xFFFF00FF) | (buffer[p++] & 0xFF) << 8;
        }
        if ((prefix & (1 << 3)) != 0) {
            bits = (bits & 0xFF00FFFF) | (buffer[p++] & 0xFF) << 16;
        }
        if ((prefix & (1 << 4)) != 0) {
            bits = (bits & 0x00FFFFFF) | (buffer[p++] & 0xFF) << 24;
        }
        this.sequence = seq;
        this.ack = a;
        this.ackBits = bits;
        return p - offset;
    }

    /**
     * Sequence of the last decoded header.
     *
     * @return 0..65535
     */
    public int sequence() {
        return sequence;
    }

    /**
     * Ack of the last decoded header.
     *
     * @return 0..65535
     */
    public int ack() {
        return ack;
    }

    /**
     * Ack bits of the last decoded header (absent bytes read as 0xFF).
     *
     * @return the 32 ack bits
     */
    public int ackBits() {
        return ackBits;
    }
}
