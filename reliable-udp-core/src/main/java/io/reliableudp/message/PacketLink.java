package io.reliableudp.message;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The packet layer as the message layer uses it: one {@code ReliableEndpoint} in production, a
 * double in some tests. Package-private: an implementation detail of {@link MessageEndpoint}.
 */
interface PacketLink {

    /** Sends one packet, copying its payload; returns the sequence used, or -1 when it was not sent. */
    int sendPacket(byte[] data, int offset, int length);

    /**
     * Sends one packet whose payload lies in {@code buffer[offset, offset+length)} with at least 9
     * bytes of header room in front: the header is written in place and the datagram handed to
     * {@link Hooks#transmit(ByteBuffer, int, int)} (a fragmented one goes through the copying path).
     * Returns the sequence used, or -1 when it was not sent.
     */
    int sendPacket(ByteBuffer buffer, int offset, int length);

    /** Feeds one received datagram; calls {@link Hooks#process} and {@link Hooks#acked} as it goes. */
    void receivePacket(byte[] data, int offset, int length);

    /**
     * The message layer's housekeeping update: advances the packet layer's clock; its statistics
     * (RTT spread, jitter, loss, bandwidths: read only by {@link #stats()}) may be computed then or
     * when they are read.
     */
    void update(double time);

    /** Advances the packet layer's clock only (send and ack stamps; no statistics). */
    void advanceTime(double time);

    /** Payloads up to this many bytes go as one packet, longer ones as fragments (a grown or fallen datagram budget). */
    void setRegularPayloadLimit(int bytes);

    /** The sequence the next {@link #sendPacket} will use. */
    int nextPacketSequence();

    /** A snapshot of the packet layer's own figures (on demand, not per packet). */
    MessageStats.PacketLayer stats();

    /** Sets (or clears, with null) the listener told about each RTT sample of the packet layer. */
    void setRttListener(@Nullable RttSampleListener listener);

    /** What the packet layer calls back. */
    interface Hooks {
        /** A datagram to put on the wire (valid during the call only). */
        void transmit(byte[] data, int offset, int length);

        /** A datagram written in place in the endpoint's datagram buffer (absolute indexes, valid during the call only). */
        void transmit(ByteBuffer buffer, int offset, int length);

        /** A received packet's payload; false rejects it (then it is not acknowledged). */
        boolean process(int sequence, byte[] data, int offset, int length);

        /** The peer acknowledged one of our packets (once per sequence). */
        void acked(int sequence);
    }

    /**
     * How the packet layer is sized by the message layer: {@code maxRegularPayload} at first,
     * {@code largestRegularPayload} the most it may grow to (what the receiving side accepts too).
     */
    record Sizing(int maxRegularPayload, int fragmentSize, int maxFragments, int sentPacketsBufferSize,
                  int largestRegularPayload) {

        /** Sizing that never grows. */
        Sizing(int maxRegularPayload, int fragmentSize, int maxFragments, int sentPacketsBufferSize) {
            this(maxRegularPayload, fragmentSize, maxFragments, sentPacketsBufferSize, maxRegularPayload);
        }
    }

    /** Creates the packet layer of one endpoint. */
    @FunctionalInterface
    interface Factory {
        PacketLink create(double time, Sizing sizing, Hooks hooks);
    }
}
