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
 * Absolute indexes only: the buffer's position and limit are left alone (the limit must stay at the
 * capacity, which {@link #begin} restores). Allocation-free.
 */
final class FrameWriter {

    private final ByteBuffer buffer;
    private final int start;
    private final int budget;
    private final byte[] header = new byte[Frames.MAX_HEADER];
    private int pos;

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
        put(Frames.writeMsgHeader(header, 0, channel, id, length), payload, offset, length);
    }

    /** A NEXT frame: the next id of the channel of the frame just written (the caller checked it fits). */
    void next(byte[] payload, int offset, int length) {
        put(Frames.writeNextHeader(header, 0, length), payload, offset, length);
    }

    /** A SLICE frame (the caller checked it fits). */
    void slice(int channel, int id, int total, int sliceSize, int index, byte[] payload, int offset, int length) {
        put(Frames.writeSliceHeader(header, 0, channel, id, total, sliceSize, index), payload, offset, length);
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
