package io.reliableudp.connection;

import java.nio.ByteBuffer;

/**
 * The send side of one connection: its one datagram buffer, the frames framed and sealed in it, the
 * {@link Connection.Transmitter} they go to, and the connection's clock and send counts.
 *
 * <p>Frames are composed in place: a body is written (by the message layer, or by this layer for a
 * keepalive or disconnect) behind {@link #headroom()} bytes of the buffer, and {@link #frame} writes the
 * frame header in front of it and, in encrypted mode, seals it where it lies with the
 * {@link FrameCodec} ({@link FrameCodec#seal}). The buffer is direct in plain mode (a socket sends it
 * without a copy of its own) and a heap buffer in encrypted mode: the JDK's ChaCha20-Poly1305 seals a
 * {@code byte[]} in place, but copies a direct buffer through a new array, in and out, on every call
 * (see docs/architecture.md, "One datagram's buffer"). Sending allocates nothing.
 *
 * <p>The clock ({@link #now()}) is the time of the connection's current call, set by the connection at
 * each of its entry points, so that the parts that send from a callback of the message layer stamp
 * their frames with it. Not thread-safe; knows nothing of the connection's state.
 */
final class FrameSender {

    private final boolean encrypted;
    private final FrameCodec frames;
    private final Connection.Transmitter transmitter;
    /** The connection's one datagram buffer: frames are composed, framed and sealed in it. */
    private ByteBuffer datagram;
    /** The connection salt every frame header carries (0 while a client has no challenge yet). */
    private int salt;
    private double now;
    private double lastSend = Double.NEGATIVE_INFINITY;
    private long datagramsSent;
    private long bytesSent;

    /** A sender whose buffer holds {@code capacity} bytes; the clock starts at {@code now}. */
    FrameSender(boolean encrypted, FrameCodec frames, Connection.Transmitter transmitter, int capacity, double now) {
        this.encrypted = encrypted;
        this.frames = frames;
        this.transmitter = transmitter;
        this.datagram = buffer(encrypted, capacity);
        this.now = now;
    }

    /**
     * A buffer frames are composed and sent from: direct in plain mode (the socket sends it without a
     * copy of its own), heap in encrypted mode (sealed in place through its array).
     */
    static ByteBuffer buffer(boolean encrypted, int capacity) {
        return encrypted ? ByteBuffer.allocate(capacity) : ByteBuffer.allocateDirect(capacity);
    }

    /** Sets the clock: the time of the connection's current call (seconds). */
    void at(double time) {
        this.now = time;
    }

    /** The time of the connection's current call (seconds). */
    double now() {
        return now;
    }

    /** Whether frames are sealed (encrypted mode). */
    boolean encrypted() {
        return encrypted;
    }

    /** The datagram buffer: bodies are written behind {@link #headroom()} bytes of it. */
    ByteBuffer datagram() {
        return datagram;
    }

    /** The bytes in front of every body: the frame header. */
    int headroom() {
        return FrameCodec.HEADER;
    }

    /** Replaces the datagram buffer by a larger one of {@code capacity} bytes (a size probe was answered). */
    void grow(int capacity) {
        datagram = buffer(encrypted, capacity);
    }

    /** The connection salt frames carry. */
    int salt() {
        return salt;
    }

    /** Sets the connection salt (a challenge brought it, or a handshake starts over with 0). */
    void salt(int value) {
        this.salt = value;
    }

    /** When the last frame (or accept) went out; -inf before the first. */
    double lastSend() {
        return lastSend;
    }

    /** Datagrams sent (handshake packets and frames). */
    long datagramsSent() {
        return datagramsSent;
    }

    /** Bytes sent, as on the wire. */
    long bytesSent() {
        return bytesSent;
    }

    /** The TOS byte of the frames sent from now on ({@link Connection.Transmitter#trafficClass}). */
    void trafficClass(int tos) {
        transmitter.trafficClass(tos);
    }

    /** A keepalive with an empty body (no flags). */
    void keepalive() {
        frame(Protocol.KEEPALIVE, FrameCodec.HEADER, 0);
    }

    /** A keepalive whose body is the one flags byte {@code flags}. */
    void keepalive(int flags, int bodyLen) {
        datagram.put(FrameCodec.HEADER, (byte) flags);
        frame(Protocol.KEEPALIVE, FrameCodec.HEADER, bodyLen);
    }

    /**
     * Frames the body at {@code datagram[bodyOff, bodyOff+bodyLen)} in place and transmits the frame:
     * the header goes right in front of the body (type, salt, sequence), and in encrypted mode the body
     * is sealed where it lies, its tag after it ({@link FrameCodec#seal}). Encrypted without keys yet,
     * nothing goes (no frame goes before the handshake brought them).
     */
    void frame(byte type, int bodyOff, int bodyLen) {
        frame(datagram, type, bodyOff, bodyLen);
    }

    /** {@link #frame(byte, int, int)} from a buffer of the caller's (a size probe). */
    void frame(ByteBuffer d, byte type, int bodyOff, int bodyLen) {
        int total = frames.seal(d, type, salt, bodyOff, bodyLen);
        if (total < 0) {
            return;
        }
        lastSend = now;
        datagramsSent++;
        bytesSent += total;
        transmitter.transmit(d, bodyOff - FrameCodec.HEADER, total);
    }

    /** A PATH_CHALLENGE or PATH_RESPONSE frame whose body is {@code data[offset, offset + PATH_DATA_BYTES)}. */
    void pathFrame(byte type, byte[] data, int offset) {
        datagram.put(FrameCodec.HEADER, data, offset, Protocol.PATH_DATA_BYTES);
        frame(type, FrameCodec.HEADER, Protocol.PATH_DATA_BYTES);
    }

    /** {@link #pathFrame(byte, byte[], int)} from the start of {@code data}. */
    void pathFrame(byte type, byte[] data) {
        pathFrame(type, data, 0);
    }

    /** A handshake packet: counted, but not a frame, so the keepalive schedule does not move. */
    void handshake(byte[] packet, int length) {
        datagramsSent++;
        bytesSent += length;
        transmitter.transmit(packet, 0, length);
    }

    /** A server's accept: it confirms the connection, so it counts as the last send as a frame does. */
    void accept(byte[] packet) {
        lastSend = now;
        datagramsSent++;
        bytesSent += packet.length;
        transmitter.transmit(packet, 0, packet.length);
    }
}
