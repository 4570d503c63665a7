package io.reliableudp.packet;

import java.nio.ByteBuffer;

/**
 * Receives every datagram a {@link ReliableEndpoint} sends: once for a regular packet, once per
 * fragment for a fragmented one (the reference {@code transmit_packet_function}). Regular packets of
 * {@link ReliableEndpoint#sendPacket(ByteBuffer, int, int)} (the in-place send) arrive through
 * {@link #transmit(int, ByteBuffer, int, int)}, everything else through the {@code byte[]} method.
 */
@FunctionalInterface
public interface PacketTransmitter {

    /**
     * Sends one datagram. The buffer belongs to the endpoint and is valid only during the call: copy
     * the bytes to keep them. Called on the thread that called {@link ReliableEndpoint#sendPacket};
     * an exception thrown here propagates to that caller.
     *
     * @param sequence the packet sequence (the same for every fragment of a packet)
     * @param data     buffer holding the datagram
     * @param offset   first byte of the datagram
     * @param length   datagram length in bytes
     */
    void transmit(int sequence, byte[] data, int offset, int length);

    /**
     * Sends one datagram that lies in the caller's own buffer: a regular packet written in place by
     * {@link ReliableEndpoint#sendPacket(ByteBuffer, int, int)}, its header right in front of the
     * payload. {@code offset} and {@code length} are absolute indexes into {@code buffer} (its position
     * and limit are not used); the bytes are valid only during the call. The buffer belongs to the
     * caller of {@code sendPacket}, who may have reserved room in front of {@code offset} for headers of
     * its own (a connection frame) and behind the datagram (an AEAD tag).
     *
     * <p>The default hands a heap buffer's array to {@link #transmit(int, byte[], int, int)} without a
     * copy, and copies a direct or read-only buffer's bytes into a new array (that allocates: a
     * transmitter that is given direct buffers overrides this).
     *
     * @param sequence the packet sequence
     * @param buffer   buffer holding the datagram
     * @param offset   index of the datagram's first byte
     * @param length   datagram length in bytes
     */
    default void transmit(int sequence, ByteBuffer buffer, int offset, int length) {
        if (buffer.hasArray()) {
            transmit(sequence, buffer.array(), buffer.arrayOffset() + offset, length);
        } else {
            byte[] copy = new byte[length];
            buffer.get(offset, copy);
            transmit(sequence, copy, 0, length);
        }
    }
}
