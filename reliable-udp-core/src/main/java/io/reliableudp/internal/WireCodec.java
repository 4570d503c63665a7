package io.reliableudp.internal;

import io.reliableudp.Varint;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The one codec of the core's wire integers: unsigned LEB128 varints (message frames), little-endian
 * 16-bit fields (packet and message layers, as {@code reliable} writes them) and big-endian 16/32/64-bit
 * fields (connection layer). Static, allocation-free, no state; every layer uses it instead of its own
 * shifts. The byte tables that say which field uses which are in {@code docs/messages.md},
 * {@code docs/connection.md} and {@code docs/protocol.md}.
 *
 * <p>Varints are {@link Varint}'s (the one varint codec, public in the root package because the Spring
 * envelope uses it too): 7 bits per byte, low group first, high bit = another byte follows; at most
 * {@link #MAX_VARINT_BYTES} bytes and a value of at most {@link Integer#MAX_VALUE}. The reader accepts a
 * longer-than-shortest form of up to five bytes (such as {@code 80 00} for 0), exactly as the message
 * layer always has: tightening that would be a wire change.
 *
 * <p>Bounds are the caller's: the fixed-width accessors assume the bytes are there (an
 * {@link IndexOutOfBoundsException} is a bug of the caller), the varint reader never reads at or past
 * {@code end}.
 */
public final class WireCodec {

    /** Longest varint: 5 bytes carry 31 bits. */
    public static final int MAX_VARINT_BYTES = Varint.MAX_BYTES;

    /** What {@link #readVarint} returns for a truncated or out-of-range varint. */
    public static final long VARINT_INVALID = Varint.INVALID;

    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private WireCodec() {
    }

    // ---- varints

    /**
     * Bytes {@link #writeVarint} writes for a value ({@link Varint#size}).
     *
     * @param value 0..{@link Integer#MAX_VALUE}
     * @return 1..5
     */
    public static int varintSize(int value) {
        return Varint.size(value);
    }

    /**
     * Writes the shortest varint of a value ({@link Varint#write}).
     *
     * @param buf destination, with {@link #varintSize} bytes free from {@code pos}
     * @param pos where to write
     * @param value 0..{@link Integer#MAX_VALUE}
     * @return the position after the varint
     */
    public static int writeVarint(byte[] buf, int pos, int value) {
        return Varint.write(buf, pos, value);
    }

    /**
     * Reads a varint from {@code buf[pos .. end)} ({@link Varint#read}).
     *
     * @param buf source
     * @param pos first byte of the varint
     * @param end first byte not to read
     * @return {@code bytesRead << 32 | value}, or {@link #VARINT_INVALID} when the varint is truncated
     *     (reaches {@code end}), longer than 5 bytes or above {@link Integer#MAX_VALUE}
     */
    public static long readVarint(byte[] buf, int pos, int end) {
        return Varint.read(buf, pos, end);
    }

    /**
     * The value of a valid {@link #readVarint} result.
     *
     * @param result a result other than {@link #VARINT_INVALID}
     * @return 0..{@link Integer#MAX_VALUE}
     */
    public static int varintValue(long result) {
        return Varint.value(result);
    }

    /**
     * The bytes read of a valid {@link #readVarint} result.
     *
     * @param result a result other than {@link #VARINT_INVALID}
     * @return 1..5
     */
    public static int varintLength(long result) {
        return Varint.length(result);
    }

    // ---- little-endian (packet and message layers)

    /**
     * Reads an unsigned 16-bit little-endian field.
     *
     * @param b source
     * @param off first byte
     * @return 0..65535
     */
    public static int getU16LE(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8;
    }

    /**
     * Writes the low 16 bits of a value little-endian.
     *
     * @param b destination
     * @param off first byte
     * @param v the value (bits above 15 are ignored)
     */
    public static void putU16LE(byte[] b, int off, int v) {
        b[off] = (byte) v;
        b[off + 1] = (byte) (v >>> 8);
    }

    // ---- big-endian (connection layer)

    /**
     * Reads an unsigned 16-bit big-endian field.
     *
     * @param b source
     * @param off first byte
     * @return 0..65535
     */
    public static int getU16BE(byte[] b, int off) {
        return (b[off] & 0xFF) << 8 | (b[off + 1] & 0xFF);
    }

    /**
     * Writes the low 16 bits of a value big-endian.
     *
     * @param b destination
     * @param off first byte
     * @param v the value (bits above 15 are ignored)
     */
    public static void putU16BE(byte[] b, int off, int v) {
        b[off] = (byte) (v >>> 8);
        b[off + 1] = (byte) v;
    }

    /**
     * Reads a 32-bit big-endian field.
     *
     * @param b source
     * @param off first byte
     * @return the value
     */
    public static int getIntBE(byte[] b, int off) {
        return (int) INT_BE.get(b, off);
    }

    /**
     * Writes a 32-bit value big-endian.
     *
     * @param b destination
     * @param off first byte
     * @param v the value
     */
    public static void putIntBE(byte[] b, int off, int v) {
        INT_BE.set(b, off, v);
    }

    /**
     * Reads a 64-bit big-endian field.
     *
     * @param b source
     * @param off first byte
     * @return the value
     */
    public static long getLongBE(byte[] b, int off) {
        return (long) LONG_BE.get(b, off);
    }

    /**
     * Writes a 64-bit value big-endian.
     *
     * @param b destination
     * @param off first byte
     * @param v the value
     */
    public static void putLongBE(byte[] b, int off, long v) {
        LONG_BE.set(b, off, v);
    }
}
