package io.reliableudp.packet;

/**
 * Receives every datagram a {@link ReliableEndpoint} sends: once for a regular packet, once per
 * fragment for a fragmented one (the reference {@code transmit_packet_function}).
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
}
