package io.reliableudp.message;

import java.nio.ByteBuffer;

/**
 * Writes the message frames of one packet into the connection's datagram buffer, starting at a fixed
 * index that leaves room in front for the headers of the layers below (the packet header, at most 9
 * bytes, and the sender's own {@link DatagramSender#headroom()}), so that those layers write their
 * headers in place and no layer copies the frames again. The composer's buffer handling, kept apart
 * from its scheduling (what goes into which packet, and when).
 *
 * <p>Each frame's header (1 to 18 bytes) is encoded by {@link Frames} into a small scratch array and
 * put in front of the payload, which is copied once, from the message into the datagram buffer.
 * {@link #finish} turns the packet's last frame, when it is a MSG, into a LAST frame (no length byte):
 * its payload moves back by the length's bytes, at most 1,186 bytes in place.
 * Absolute indexes only: the buffer's position and limit are left alone (the limit must stay at the
 * capacity, which {@link #begin} restores). Allocation-free.
 */
final class FrameWriter {

    private final ByteBuffer buffer;
    private final int start;
    private final int budget;
    private final byte[] header = new byte[Frames.MAX_HEADER];
    private int pos;
    /** Index of the last frame written when it is a MSG frame, else -1. */
    private int lastMsg = -1;
    /** That MSG frame's length varint size. */
    private int lastMsgLengthBytes;

    /**
     * @param buffer the datagram buffer (heap or direct, writable)
     * @param start  index of the first frame byte: the room every lower layer's header needs
     * @param budget most frame bytes of one packet
     */
    FrameWriter(ByteBuffer buffer, int start, int budget) {
        if (buffer.isReadOnly() || buffer.capacity() < start + budget) {
            throw new IllegalArgumentException("the datagram buffer must be writable and hold " + start
                    + " bytes of header room and " + budget + " bytes of frames; capacity " + buffer.capacity()
                    + (buffer.isReadOnly() ? ", read-only" : ""));
        }
        this.buffer = buffer;
        this.start = start;
        this.budget = budget;
        this.pos = start;
    }

    /** Starts a new packet (its frames replace the last packet's). */
    void begin() {
        buffer.clear();
        pos = start;
        lastMsg = -1;
    }

    /**
     * Ends the packet: when its last frame is a MSG, rewrites it as a LAST frame (same channel and id,
     * no length: the payload runs to the packet's end), one to five bytes shorter. Returns the frame
     * bytes of the packet ({@link #length}); no frame may be added after it.
     */
    int finish() {
        int m = lastMsg;
        if (m >= 0) {
            ByteBuffer b = buffer;
            int k = lastMsgLengthBytes;
            int payloadAt = m + 3 + k;
            b.put(m, (byte) (Frames.TYPE_LAST << 6 | (b.get(m) & 0x3F)));
            b.put(m + 3, b, payloadAt, pos - payloadAt); // overlapping: copies as if through a temporary
            pos -= k;
            lastMsg = -1;
        }
        return pos - start;
    }

    /** The buffer the frames are in. */
    ByteBuffer buffer() {
        return buffer;
    }

    /** Index of the first frame byte. */
    int start() {
        return start;
    }

    /** Frame bytes written since {@link #begin}. */
    int length() {
        return pos - start;
    }

    /** Frame bytes the packet still has room for. */
    int room() {
        return budget - (pos - start);
    }

    /** A MSG frame (the caller checked it fits). */
    void msg(int channel, int id, byte[] payload, int offset, int length) {
        int at = pos;
        int headerBytes = Frames.writeMsgHeader(header, 0, channel, id, length);
        put(headerBytes, payload, offset, length);
        lastMsg = at;
        lastMsgLengthBytes = headerBytes - 3;
    }

    /** A NEXT frame: the next id of the channel of the frame just written (the caller checked it fits). */
    void next(byte[] payload, int offset, int length) {
        lastMsg = -1;
        put(Frames.writeNextHeader(header, 0, length), payload, offset, length);
    }

    /** A SLICE frame (the caller checked it fits). */
    void slice(int channel, int id, int total, int sliceSize, int index, byte[] payload, int offset, int length) {
        lastMsg = -1;
        put(Frames.writeSliceHeader(header, 0, channel, id, total, sliceSize, index), payload, offset, length);
    }

    /** An AGE frame, which the caller follows with its message's MSG or SLICE frame (the caller checked both fit). */
    void age(int channel, int id, int ageMillis, int ttlMillis) {
        lastMsg = -1;
        int n = Frames.writeAge(header, 0, channel, id, ageMillis, ttlMillis);
        buffer.put(pos, header, 0, n);
        pos += n;
    }

    /** A SKIP frame (the caller checked it fits). */
    void skip(int channel, int id) {
        lastMsg = -1;
        int n = Frames.writeSkip(header, 0, channel, id);
        buffer.put(pos, header, 0, n);
        pos += n;
    }

    private void put(int headerBytes, byte[] payload, int offset, int length) {
        ByteBuffer b = buffer;
        int p = pos;
        if (headerBytes == 1) {
            b.put(p, header[0]);
        } else {
            b.put(p, header, 0, headerBytes);
        }
        b.put(p + headerBytes, payload, offset, length);
        pos = p + headerBytes + length;
    }
}
