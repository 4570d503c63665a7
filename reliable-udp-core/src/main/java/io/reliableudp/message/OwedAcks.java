package io.reliableudp.message;

/**
 * What this end owes the peer: the data packets (and the reliable frames in them) received since this
 * end last sent a packet, by when an acknowledgement is due, and whether this end's packet sequence
 * has fallen behind the peer's. Sends nothing: the send schedule reads it to decide when an ack-only
 * packet goes, and the {@link SendRound} clears it when a packet carried the acks.
 */
final class OwedAcks {

    /** After this many received data packets without sending one, an ack-only packet goes out at once (both modes). */
    static final int ACK_EVERY_PACKETS = 16;
    /**
     * Most packets this end's sequence may be behind the newest one received for ack-only packets to
     * catch it up ({@link SendRound#sendAckOnly}): one. Further behind, the peer sends in bursts or loses
     * several in a row, and the catch-up (one ack-only packet per step) is likely to be undone before it pays.
     */
    static final int MAX_CATCH_UP = 1;
    /**
     * Highest estimated loss of the peer's packets at which an ack-only packet catches this end's sequence
     * up: a catch-up costs one ack-only packet (37 bytes on IPv4) and saves a byte in each packet of ours
     * until the sequence falls behind again, about {@code 1 / loss} packets later.
     */
    static final double CATCH_UP_MAX_LOSS = 0.02;
    /** Weight of one received packet in the estimate of the peer's packets missing per packet received. */
    static final double INCOMING_LOSS_WEIGHT = 1.0 / 128;

    private int dataPacketsSinceSend;
    /** Reliable frames (messages and slices) in the data packets received since this end last sent a packet. */
    private int reliableFramesSinceSend;
    /** When received data must be acknowledged by (+inf: no deadline; only the immediate schedule sets one). */
    private double deadline = Double.POSITIVE_INFINITY;
    /** Newest packet sequence received from the peer (0xFFFF before any: its first packet is 0). */
    private int highestReceived = 0xFFFF;
    /** Smoothed count of the peer's sequences skipped per newer packet received (its packets lost or late). */
    private double incomingLoss;
    private boolean receivedAny;
    /** Whether the packet last received was newer than the next expected sequence. */
    private boolean gap;

    /**
     * The packet layer accepted packet {@code sequence} of the peer (a data packet when {@code data},
     * else ack-only; {@code reliableFrames} reliable messages and slices in it).
     *
     * @return whether the packet is the one right after the newest received before (none lost or late between)
     */
    boolean received(int sequence, boolean data, int reliableFrames) {
        int ahead = (sequence - highestReceived) & 0xFFFF;
        boolean newer = ahead != 0 && ahead < 0x8000;
        gap = newer && ahead > 1;
        if (newer) {
            incomingLoss += (Math.min(ahead - 1, 64) - incomingLoss) * INCOMING_LOSS_WEIGHT;
            highestReceived = sequence;
            receivedAny = true;
        }
        if (data) {
            dataPacketsSinceSend++;
            reliableFramesSinceSend += reliableFrames;
        }
        return newer && !gap;
    }

    /** Whether the packet last received was newer than the next expected one: a packet before it was lost or is late. */
    boolean gap() {
        return gap;
    }

    /** Data packets received since this end last sent a packet that carried the acks. */
    int dataPacketsSinceSend() {
        return dataPacketsSinceSend;
    }

    /** Reliable frames in the data packets received since this end last sent a packet that carried the acks. */
    int reliableFramesSinceSend() {
        return reliableFramesSinceSend;
    }

    /** When the acknowledgement is due (+inf: none is). */
    double deadline() {
        return deadline;
    }

    /** The acknowledgement is due at {@code time}. */
    void dueAt(double time) {
        deadline = time;
    }

    /** No acknowledgement is due now (one went, or trying again at once would loop). */
    void noDeadline() {
        deadline = Double.POSITIVE_INFINITY;
    }

    /** A packet carrying the acks went: nothing received is owed any more. */
    void acksSent() {
        dataPacketsSinceSend = 0;
        reliableFramesSinceSend = 0;
    }

    /**
     * How many ack-only packets to add so that the sequence of this end's last packet is not behind the
     * newest sequence received (0: none), given this end's {@code nextPacketSequence}. The packet layer
     * writes the ack as an 8-bit difference {@code sequence - ack} when that is 0..255 and as 16 bits
     * otherwise ({@code reliable} 1.4.0), so an end whose sequence is behind the peer's by even one pays
     * a byte in every packet from then on until it sends more packets than the peer: on a stream
     * answered by one ack-only packet per data packet, for good after the first lost data packet or the
     * first two acknowledged by one packet. A catch-up costs one ack-only packet each (and protects the
     * acknowledgement it repeats against the loss of the first copy); it pays when the sequence then
     * stays caught up for more than about 37 packets, so only while the peer's packets are rarely lost
     * ({@link #CATCH_UP_MAX_LOSS}) and only for a lag of one ({@link #MAX_CATCH_UP}).
     */
    int catchUpDue(int nextPacketSequence) {
        if (!receivedAny || incomingLoss >= CATCH_UP_MAX_LOSS) {
            return 0;
        }
        // the peer's next packet will be one newer than the newest received, and so will our answer to
        // it: our packet just sent must not be behind the newest received
        int behind = (highestReceived - (nextPacketSequence - 1)) & 0xFFFF;
        return behind <= MAX_CATCH_UP ? behind : 0;
    }
}
