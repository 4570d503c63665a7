package io.reliableudp.message;

import static io.reliableudp.internal.WireCodec.getU16LE;
import static io.reliableudp.internal.WireCodec.putU16LE;
import static io.reliableudp.internal.WireCodec.varintSize;
import static io.reliableudp.internal.WireCodec.writeVarint;

import io.reliableudp.internal.WireCodec;

/**
 * The message frames inside one packet payload (see docs/messages.md for the byte tables).
 *
 * <p>Byte 0 of every frame is {@code type << 6 | low6}:
 * <ul>
 *   <li>{@code MSG} (0): low6 = channel; then message id (u16 little-endian), payload length (varint),
 *       payload.</li>
 *   <li>{@code NEXT} (1): the next message of the same channel as the frame just before it (which must
 *       be MSG or NEXT), with id = previous id + 1; low6 = payload length if 0..62, or 63 followed by a
 *       varint of (length - 63); then the payload.</li>
 *   <li>{@code SLICE} (2): low6 = channel; then message id (u16), total message length (varint),
 *       slice size (varint), slice index (varint), then the slice bytes: {@code min(sliceSize, total -
 *       index * sliceSize)} of them. A SLICE header whose total is 0 is an extension frame instead
 *       (protocol version 4): a varint kind follows; kind {@code 0} is SKIP (every id of the channel
 *       before {@code id} that the receiver has not received is abandoned: nothing follows), kind
 *       {@code 1} is AGE (the age in milliseconds the message is estimated to have on arrival, and its
 *       time-to-live in milliseconds, two varints; the next frame must be the MSG, LAST or SLICE frame
 *       of the same channel and id, which the reader hands out with them).</li>
 *   <li>{@code LAST} (3): a whole message that runs to the end of the packet: low6 = channel; then
 *       message id (u16), payload (every byte left). It saves the MSG frame's length byte in the last
 *       frame of a packet, which is the only frame of a packet that carries one event: the composer
 *       writes a packet's last MSG frame this way ({@link FrameWriter#finish}). Nothing may follow it.</li>
 * </ul>
 * Varints are unsigned LEB128, at most 5 bytes, value at most {@link Integer#MAX_VALUE}; they and the
 * 16-bit ids are read and written by {@link WireCodec}.
 */
final class Frames {

    static final int TYPE_MSG = 0;
    static final int TYPE_NEXT = 1;
    static final int TYPE_SLICE = 2;
    static final int TYPE_LAST = 3;
    /** Reader-only type of a SKIP extension frame (on the wire: a SLICE header with total 0, kind 0). */
    static final int TYPE_SKIP = 4;
    /** Extension kind of a SKIP frame. */
    static final int KIND_SKIP = 0;
    /** Extension kind of an AGE frame. */
    static final int KIND_AGE = 1;
    /** Size of a SKIP frame: type and channel, id, total 0, kind 0. */
    static final int SKIP_FRAME_SIZE = 5;

    /** Largest payload length written inline in a NEXT frame's first byte. */
    static final int NEXT_INLINE_MAX = 62;
    /** The low6 value of a NEXT frame whose length follows as a varint. */
    static final int NEXT_EXTENDED = 63;
    /** Most slices one message may have (slice indexes fit a varint of at most 3 bytes). */
    static final int MAX_SLICES = 1 << 20;

    private Frames() {
    }

    /** Size of a MSG frame carrying {@code length} payload bytes. */
    static int msgFrameSize(int length) {
        return 3 + varintSize(length) + length;
    }

    /** Size of a NEXT frame carrying {@code length} payload bytes. */
    static int nextFrameSize(int length) {
        return length <= NEXT_INLINE_MAX ? 1 + length : 1 + varintSize(length - NEXT_EXTENDED) + length;
    }

    /** Size of a SLICE frame header (without the slice bytes). */
    static int sliceHeaderSize(int total, int sliceSize, int index) {
        return 3 + varintSize(total) + varintSize(sliceSize) + varintSize(index);
    }

    /** Size of an AGE frame. */
    static int ageFrameSize(int ageMillis, int ttlMillis) {
        return 5 + varintSize(ageMillis) + varintSize(ttlMillis);
    }

    /** Writes a SKIP frame: ids of {@code channel} before {@code id} are abandoned; returns the position after it. */
    static int writeSkip(byte[] buf, int pos, int channel, int id) {
        pos = writeTypeChannelId(buf, pos, TYPE_SLICE, channel, id);
        buf[pos] = 0;
        buf[pos + 1] = KIND_SKIP;
        return pos + 2;
    }

    /** Writes an AGE frame for the message frame that follows it; returns the position after it. */
    static int writeAge(byte[] buf, int pos, int channel, int id, int ageMillis, int ttlMillis) {
        pos = writeTypeChannelId(buf, pos, TYPE_SLICE, channel, id);
        buf[pos] = 0;
        buf[pos + 1] = KIND_AGE;
        return writeVarint(buf, writeVarint(buf, pos + 2, ageMillis), ttlMillis);
    }

    /** Longest frame header (a SLICE frame's: type, id, three 5-byte varints). */
    static final int MAX_HEADER = 3 + 3 * WireCodec.MAX_VARINT_BYTES;

    /** Writes the first three bytes of a MSG, SLICE or LAST frame (type and channel, id); returns the position after them. */
    private static int writeTypeChannelId(byte[] buf, int pos, int type, int channel, int id) {
        buf[pos] = (byte) (type << 6 | channel);
        putU16LE(buf, pos + 1, id);
        return pos + 3;
    }

    /** Writes a MSG frame's header (type and channel, id, payload length); returns the position after it. */
    static int writeMsgHeader(byte[] buf, int pos, int channel, int id, int length) {
        return writeVarint(buf, writeTypeChannelId(buf, pos, TYPE_MSG, channel, id), length);
    }

    /** Size of a LAST frame carrying {@code length} payload bytes. */
    static int lastFrameSize(int length) {
        return 3 + length;
    }

    /** Writes a LAST frame's header (type and channel, id); returns the position after it. */
    static int writeLastHeader(byte[] buf, int pos, int channel, int id) {
        return writeTypeChannelId(buf, pos, TYPE_LAST, channel, id);
    }

    static int writeLast(byte[] buf, int pos, int channel, int id, byte[] payload, int offset, int length) {
        pos = writeLastHeader(buf, pos, channel, id);
        System.arraycopy(payload, offset, buf, pos, length);
        return pos + length;
    }

    /** Writes a NEXT frame's header (type and inline or extended length); returns the position after it. */
    static int writeNextHeader(byte[] buf, int pos, int length) {
        if (length <= NEXT_INLINE_MAX) {
            buf[pos] = (byte) (TYPE_NEXT << 6 | length);
            return pos + 1;
        }
        buf[pos] = (byte) (TYPE_NEXT << 6 | NEXT_EXTENDED);
        return writeVarint(buf, pos + 1, length - NEXT_EXTENDED);
    }

    /** Writes a SLICE frame's header (type and channel, id, total, slice size, index); returns the position after it. */
    static int writeSliceHeader(byte[] buf, int pos, int channel, int id, int total, int sliceSize, int index) {
        pos = writeVarint(buf, writeTypeChannelId(buf, pos, TYPE_SLICE, channel, id), total);
        pos = writeVarint(buf, pos, sliceSize);
        return writeVarint(buf, pos, index);
    }

    static int writeMsg(byte[] buf, int pos, int channel, int id, byte[] payload, int offset, int length) {
        pos = writeMsgHeader(buf, pos, channel, id, length);
        System.arraycopy(payload, offset, buf, pos, length);
        return pos + length;
    }

    static int writeNext(byte[] buf, int pos, byte[] payload, int offset, int length) {
        pos = writeNextHeader(buf, pos, length);
        System.arraycopy(payload, offset, buf, pos, length);
        return pos + length;
    }

    static int writeSlice(byte[] buf, int pos, int channel, int id, int total, int sliceSize, int index,
            byte[] payload, int offset, int length) {
        pos = writeSliceHeader(buf, pos, channel, id, total, sliceSize, index);
        System.arraycopy(payload, offset, buf, pos, length);
        return pos + length;
    }

    /** Number of slices of a message of {@code total} bytes. */
    static int sliceCount(int total, int sliceSize) {
        return (int) (((long) total + sliceSize - 1) / sliceSize);
    }

    /**
     * A reusable cursor over the frames of one packet payload. It checks only the framing itself
     * (bounds, varints, the NEXT chaining, slice geometry); the endpoint checks channels and windows.
     */
    static final class Reader {
        /** {@link #next()} result: a frame was read. */
        static final int FRAME = 1;
        /** {@link #next()} result: no more frames. */
        static final int END = 0;
        /** {@link #next()} result: the payload is malformed. */
        static final int MALFORMED = -1;

        private byte[] buf = new byte[0];
        private int pos;
        private int end;
        private boolean chain;

        int type;
        int channel;
        int id;
        /** Offset and length of the frame's data (message payload or slice bytes). */
        int dataOffset;
        int dataLength;
        /** SLICE only. */
        int total;
        int sliceSize;
        int sliceIndex;
        /** MSG, LAST and SLICE: whether an AGE frame came just before (then {@link #ageMillis} and {@link #ttlMillis} are its). */
        boolean hasAge;
        int ageMillis;
        int ttlMillis;
        /** An AGE frame was read: the next frame must be its message's. */
        private boolean agePending;

        /** Why the last {@link #MALFORMED} happened (for logs and tests). */
        String error = "";

        void reset(byte[] data, int offset, int length) {
            this.buf = data;
            this.pos = offset;
            this.end = offset + length;
            this.chain = false;
            this.agePending = false;
            this.hasAge = false;
            this.error = "";
        }

        int next() {
            boolean aged = agePending;
            agePending = false;
            hasAge = aged;
            if (pos >= end) {
                return aged ? malformed("AGE frame at the end of the packet") : END;
            }
            int ageChannel = channel;
            int ageId = id;
            int b0 = buf[pos++] & 0xFF;
            type = b0 >>> 6;
            int low = b0 & 0x3F;
            if (type != TYPE_NEXT) { // MSG, SLICE and LAST start with the channel and the id
                if (end - pos < 2) {
                    return malformed(type == TYPE_SLICE ? "truncated slice id" : "truncated message id");
                }
                channel = low;
                id = getU16LE(buf, pos);
                pos += 2;
            }
            if (aged && (type == TYPE_NEXT || channel != ageChannel || id != ageId)) {
                return malformed("AGE frame not followed by its message's frame");
            }
            switch (type) {
                case TYPE_MSG -> {
                    int length = readVarint();
                    if (length < 0) {
                        return malformed("bad message length");
                    }
                    if (length > end - pos) {
                        return malformed("message longer than the packet");
                    }
                    dataOffset = pos;
                    dataLength = length;
                    pos += length;
                    chain = true;
                    return FRAME;
                }
                case TYPE_NEXT -> {
                    if (!chain) {
                        return malformed("NEXT frame without a preceding message frame");
                    }
                    int length = low;
                    if (low == NEXT_EXTENDED) {
                        int extra = readVarint();
                        if (extra < 0 || extra > Integer.MAX_VALUE - NEXT_EXTENDED) {
                            return malformed("bad NEXT length");
                        }
                        length = NEXT_EXTENDED + extra;
                    }
                    if (length > end - pos) {
                        return malformed("message longer than the packet");
                    }
                    id = (id + 1) & 0xFFFF;
                    dataOffset = pos;
                    dataLength = length;
                    pos += length;
                    return FRAME;
                }
                case TYPE_SLICE -> {
                    chain = false;
                    total = readVarint();
                    if (total == 0) {
                        return aged ? malformed("AGE frame not followed by its message's frame") : extension();
                    }
                    sliceSize = readVarint();
                    sliceIndex = readVarint();
                    if (total < 1 || sliceSize < 1 || sliceIndex < 0) {
                        return malformed("bad slice header");
                    }
                    int count = sliceCount(total, sliceSize);
                    if (count > MAX_SLICES) {
                        return malformed("too many slices");
                    }
                    if (sliceIndex >= count) {
                        return malformed("slice index out of range");
                    }
                    long start = (long) sliceIndex * sliceSize;
                    int length = (int) Math.min(sliceSize, total - start);
                    if (length > end - pos) {
                        return malformed("slice longer than the packet");
                    }
                    dataOffset = pos;
                    dataLength = length;
                    pos += length;
                    return FRAME;
                }
                default -> { // TYPE_LAST
                    dataOffset = pos;
                    dataLength = end - pos;
                    pos = end;
                    chain = true; // nothing can follow
                    return FRAME;
                }
            }
        }

        /** A SLICE header with total 0: SKIP (returned as {@link #TYPE_SKIP}) or AGE (read, then the frame it prefixes). */
        private int extension() {
            int kind = readVarint();
            if (kind == KIND_SKIP) {
                type = TYPE_SKIP;
                dataOffset = pos;
                dataLength = 0;
                return FRAME;
            }
            if (kind != KIND_AGE) {
                return malformed(kind < 0 ? "truncated extension frame" : "unknown extension frame kind " + kind);
            }
            int age = readVarint();
            int ttl = readVarint();
            if (age < 0 || ttl < 1) {
                return malformed("bad AGE frame");
            }
            ageMillis = age;
            ttlMillis = ttl;
            agePending = true;
            return next();
        }

        private int malformed(String why) {
            error = why;
            pos = end;
            return MALFORMED;
        }

        /** Reads a varint ({@link WireCodec#readVarint}) and moves past it; -1 when truncated or out of range. */
        private int readVarint() {
            long r = WireCodec.readVarint(buf, pos, end);
            if (r == WireCodec.VARINT_INVALID) {
                pos = end;
                return -1;
            }
            pos += WireCodec.varintLength(r);
            return WireCodec.varintValue(r);
        }
    }
}
