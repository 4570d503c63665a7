package io.reliableudp.packet;

/**
 * What {@link ReliableEndpoint#receivePacket} did with a datagram. The constants mirror the outcomes
 * of the conformance vectors ({@link #referenceName()}); those marked "ours" are outcomes the
 * vectors do not name.
 */
public enum ReceiveOutcome {
    /** Regular packet processed and recorded (so acked by our next packets). */
    DELIVERED("delivered"),
    /** Regular packet the {@link PacketProcessor} rejected: not recorded, not acked. */
    REJECTED_BY_PROCESS_CALLBACK("rejected_by_process_callback"),
    /** Regular packet whose header could not be read. */
    INVALID_PACKET_HEADER("invalid_packet_header"),
    /** Regular packet older than the received window. */
    STALE("stale"),
    /** Regular packet received before. */
    DUPLICATE("duplicate"),
    /** Datagram longer than {@code maxPacketSize + 14}. */
    TOO_LARGE_TO_RECEIVE_DATAGRAM("too_large_to_receive_datagram"),
    /** Regular packet whose payload is longer than {@code maxPacketSize}. */
    TOO_LARGE_TO_RECEIVE_PAYLOAD("too_large_to_receive_payload"),
    /** Fragment rejected: bad header or size, fragment count mismatch, or stale. */
    FRAGMENT_INVALID("fragment_invalid"),
    /** Fragment stored; its packet still misses fragments. */
    FRAGMENT_STORED_REASSEMBLY_INCOMPLETE("fragment_stored_reassembly_incomplete"),
    /** Last missing fragment stored; the packet was reassembled, processed and recorded. */
    FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED("fragment_stored_packet_reassembled_and_delivered"),
    /** Last missing fragment stored; the reassembled packet is too large to receive. */
    FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_TOO_LARGE_TO_RECEIVE(
            "fragment_stored_packet_reassembled_but_too_large_to_receive"),
    /** Ours: last missing fragment stored; the {@link PacketProcessor} rejected the reassembled packet. */
    FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_REJECTED_BY_PROCESS_CALLBACK(
            "fragment_stored_packet_reassembled_but_rejected_by_process_callback"),
    /**
     * Ours: last missing fragment stored; the reassembled packet was then dropped as stale or
     * duplicate (not reachable with a consistent configuration; kept so every path has an outcome).
     */
    FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_DISCARDED("fragment_stored_packet_reassembled_but_discarded"),
    /** Fragment of a packet already received, or fragment already stored: dropped, not counted. */
    FRAGMENT_IGNORED_SILENTLY("fragment_ignored_silently"),
    /** Ours: 0-byte datagram, dropped and counted (the reference asserts: recorded as {@code assert}). */
    EMPTY_DATAGRAM("empty_datagram");

    private final String referenceName;

    ReceiveOutcome(String referenceName) {
        this.referenceName = referenceName;
    }

    /**
     * The snake_case name of the outcome, as the conformance vectors write it.
     *
     * @return the name
     */
    public String referenceName() {
        return referenceName;
    }

    /**
     * Whether a packet reached the {@link PacketProcessor} and was accepted.
     *
     * @return true for {@link #DELIVERED} and {@link #FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED}
     */
    public boolean isDelivered() {
        return this == DELIVERED || this == FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED;
    }
}
