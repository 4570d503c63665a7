package io.reliableudp;

/**
 * The one varint codec of the project: unsigned LEB128 of a value 0..{@link Integer#MAX_VALUE}, 7 bits
 * per byte, low group first, high bit = another byte follows, at most {@link #MAX_BYTES} bytes. The
 * message layer's frame lengths are written with it (through the core's wire codec), and so are the
 * lengths and counts of the Spring module's message envelope, which is why it is public: the envelope
 * must not carry a second, subtly different varint.
 *
 * <p>The writer always produces the shortest form. The reader rejects a truncated varint, a sixth byte
 * and a value above {@code 2^31 - 1} (a fifth byte carrying more than bits 28..30), and accepts a
 * longer-than-shortest form of up to five bytes (such as {@code 80 00} for 0). Static, allocation-free,
 * no state; bounds are the caller's for the writer, and the reader never reads at or past {@code end}.
 */
public final class Varint {

    /** Longest varint: 5 bytes carry 31 bits. */
    public static final int MAX_BYTES = 5;

    /** What {@link #read} returns for a truncated or out-of-range varint. */
    public static final long INVALID = -1L;

    private Varint() {
    }

    /**
     * Bytes {@link #write} writes for a value.
     *
     * @param value 0..{@link Integer#MAX_VALUE}
     * @return 1..5
     */
    public static int size(int value) {
        if ((value & ~0x7F) == 0) {
            return 1;
        }
        if ((value & ~0x3FFF) == 0) {
            return 2;
        }
        if ((value & ~0x1FFFFF) == 0) {
            return 3;
        }
        if ((value & ~0xFFFFFFF) == 0) {
            return 4;
        }
        return 5;
    }

    /**
     * Writes the shortest varint of a value.
     *
     * @param buf destination, with {@link #size} bytes free from {@code pos}
     * @param pos where to write
     * @param value 0..{@link Integer#MAX_VALUE}
     * @return the position after the varint
     */
    public static int write(byte[] buf, int pos, int value) {
        while ((value & ~0x7F) != 0) {
            buf[pos++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[pos++] = (byte) value;
        return pos;
    }

    /**
     * Reads a varint from {@code buf[pos .. end)}. The result packs the bytes read and the value, so no
     * object is needed: take them apart with {@link #length} and {@link #value}.
     *
     * @param buf source
     * @param pos first byte of the varint
     * @param end first byte not to read
     * @return {@code bytesRead << 32 | value}, or {@link #INVALID} when the varint is truncated
     *     (reaches {@code end}), longer than 5 bytes or above {@link Integer#MAX_VALUE}
     */
    public static long read(byte[] buf, int pos, int end) {
        int value = 0;
        int p = pos;
        for (int shift = 0; shift < 35; shift += 7) {
            if (p >= end) {
                return INVALID;
            }
            int b = buf[p++] & 0xFF;
            if (shift == 28 && (b & 0xF8) != 0) {
                // a fifth byte may carry bits 28..30 only, and no continuation
                return INVALID;
            }
            value |= (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return (long) (p - pos) << 32 | value;
            }
        }
        return INVALID;
    }

    /**
     * The value of a valid {@link #read} result.
     *
     * @param result a result other than {@link #INVALID}
     * @return 0..{@link Integer#MAX_VALUE}
     */
    public static int value(long result) {
        return (int) result;
    }

    /**
     * The bytes read of a valid {@link #read} result.
     *
     * @param result a result other than {@link #INVALID}
     * @return 1..5
     */
    public static int length(long result) {
        return (int) (result >>> 32);
    }
}
