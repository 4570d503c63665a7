package io.reliableudp.packet;

/**
 * Counters of a {@link ReliableEndpoint}, read with {@link ReliableEndpoint#counter(PacketCounter)}.
 * The first 11 constants are the reference counters, in the reference order (their ordinal is the
 * reference index, {@link #referenceName()} the reference name); the others are ours
 * ({@link #isReference()} false) and count what the reference treats as a caller error or does not
 * count.
 */
public enum PacketCounter {
    /** Packets sent (a fragmented packet counts once). */
    NUM_PACKETS_SENT("num_packets_sent", true),
    /** Regular packets received, including reassembled ones, before any validation but the size. */
    NUM_PACKETS_RECEIVED("num_packets_received", true),
    /** Packets of ours newly acknowledged by the peer. */
    NUM_PACKETS_ACKED("num_packets_acked", true),
    /** Received packets older than the received window. */
    NUM_PACKETS_STALE("num_packets_stale", true),
    /** Received regular packets whose header could not be read. */
    NUM_PACKETS_INVALID("num_packets_invalid", true),
    /** Payloads refused by {@code sendPacket} for their size. */
    NUM_PACKETS_TOO_LARGE_TO_SEND("num_packets_too_large_to_send", true),
    /** Datagrams, or payloads, too large to receive. */
    NUM_PACKETS_TOO_LARGE_TO_RECEIVE("num_packets_too_large_to_receive", true),
    /** Fragments sent. */
    NUM_FRAGMENTS_SENT("num_fragments_sent", true),
    /** Fragments stored for reassembly. */
    NUM_FRAGMENTS_RECEIVED("num_fragments_received", true),
    /** Fragments rejected (bad header, bad size, count mismatch, stale). */
    NUM_FRAGMENTS_INVALID("num_fragments_invalid", true),
    /** Regular packets received again. */
    NUM_PACKETS_DUPLICATE("num_packets_duplicate", true),

    /** Not in the reference: 0-byte payloads refused by {@code sendPacket} (the reference asserts). */
    NUM_EMPTY_PAYLOADS_NOT_SENT("num_empty_payloads_not_sent", false),
    /** Not in the reference: 0-byte datagrams dropped by {@code receivePacket} (the reference asserts). */
    NUM_EMPTY_DATAGRAMS_RECEIVED("num_empty_datagrams_received", false),
    /** Not in the reference: packets the {@link PacketProcessor} rejected. */
    NUM_PACKETS_REJECTED_BY_PROCESSOR("num_packets_rejected_by_processor", false),
    /** Not in the reference: acks left out of the full ack list (see {@link ReliableEndpoint#ack(int)}). */
    NUM_ACKS_NOT_LISTED("num_acks_not_listed", false);

    /** Number of reference counters (11): the first constants of this enum. */
    public static final int REFERENCE_COUNT = 11;

    private final String referenceName;
    private final boolean reference;

    PacketCounter(String referenceName, boolean reference) {
        this.referenceName = referenceName;
        this.reference = reference;
    }

    /**
     * The snake_case name: the reference's for reference counters (as in the conformance vectors).
     *
     * @return the name
     */
    public String referenceName() {
        return referenceName;
    }

    /**
     * Whether the reference library has this counter.
     *
     * @return true for the first 11 constants
     */
    public boolean isReference() {
        return reference;
    }
}
