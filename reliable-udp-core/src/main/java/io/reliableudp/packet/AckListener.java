package io.reliableudp.packet;

/**
 * Told about every packet of ours the peer acknowledged, once per packet, in the order the acks are
 * found (the same order as {@link ReliableEndpoint#ack(int)}: for each received header, newest first).
 */
@FunctionalInterface
public interface AckListener {

    /**
     * A packet we sent was acknowledged for the first time. Called during
     * {@link ReliableEndpoint#receivePacket}, on its thread.
     *
     * @param sequence the acknowledged sequence
     */
    void acked(int sequence);
}
