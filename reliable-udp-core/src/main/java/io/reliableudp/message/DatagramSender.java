package io.reliableudp.message;

/** Where a {@link MessageEndpoint} puts the packet-layer datagrams it wants on the wire. */
@FunctionalInterface
public interface DatagramSender {

    /**
     * Sends one datagram (packet header and message frames; the lower layers add their own framing).
     * The bytes are valid only during the call: copy them to keep them.
     *
     * @param data buffer holding the datagram
     * @param offset first byte
     * @param length number of bytes
     */
    void send(byte[] data, int offset, int length);
}
