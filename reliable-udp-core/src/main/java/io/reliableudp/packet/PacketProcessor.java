package io.reliableudp.packet;

/**
 * Receives the payload of every new packet (the reference {@code process_packet_function}): once per
 * packet, after duplicate and stale packets were dropped and fragments reassembled.
 */
@FunctionalInterface
public interface PacketProcessor {

    /**
     * Handles a payload. The buffer belongs to the endpoint (or to the caller of
     * {@link ReliableEndpoint#receivePacket}) and is valid only during the call.
     *
     * @param sequence the packet sequence
     * @param data     buffer holding the payload
     * @param offset   first payload byte
     * @param length   payload length (0 for a header-only packet)
     * @return true to accept the packet; false to reject it: it is then not recorded as received, not
     *         acked, and processed again if it arrives again
     */
    boolean process(int sequence, byte[] data, int offset, int length);
}
