package io.reliableudp.link;

/** Receives the datagrams a {@link LinkConditioner} lets through when they are due. */
@FunctionalInterface
public interface DatagramConsumer {

    /**
     * One datagram. The bytes are valid only during the call: copy them to keep them.
     *
     * @param data buffer holding the datagram
     * @param offset first byte
     * @param length number of bytes
     */
    void accept(byte[] data, int offset, int length);
}
