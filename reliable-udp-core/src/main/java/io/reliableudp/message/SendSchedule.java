package io.reliableudp.message;

/**
 * When packets go: the message layer's side of {@link MessageConfig#sendMode()}, chosen once when the
 * endpoint is built ({@link #of}) and asked by the {@link MessageEndpoint} at each of its events. It
 * decides when a send round runs and when an ack-only packet goes; the {@link SendRound} runs them and
 * the {@link PacketComposer} fills the packets. {@link ImmediateSchedule}: as soon as there is
 * something to send, within the congestion controller's pacing, acks within the ack delay.
 * {@link TickSchedule}: rounds on a tick at the controller's send rate, acks on the ticks.
 *
 * <p>Single-threaded (the endpoint's thread) and allocation-free.
 */
interface SendSchedule {

    /** The schedule of {@link MessageConfig#sendMode()}: the one place the message layer reads the send mode. */
    static Kind of(MessageConfig config) {
        return switch (config.sendMode()) {
            case IMMEDIATE -> ImmediateSchedule.KIND;
            case TICK -> TickSchedule.KIND;
        };
    }

    /**
     * What a send mode decides before the endpoint's parts exist (the congestion controller's and the
     * resend timer's settings that follow from when packets and acks go), and the schedule it makes.
     */
    interface Kind {

        /** The congestion controller's pacing quantum: how long a burst of packets may go at once (seconds). */
        double pacingQuantumSeconds(MessageConfig config);

        /** How much later than the path's round trip an ack may come back, for the controller's window (seconds). */
        double ackAllowanceSeconds(MessageConfig config);

        /** The longest the peer (on the same schedule) waits before acknowledging a data packet (seconds). */
        double peerAckDelayBoundSeconds(MessageConfig config);

        /** The schedule of one endpoint, starting at {@code time}. */
        SendSchedule create(MessageConfig config, double time, SendRound round, OwedAcks owed,
                CongestionController congestion, SendQueue queue);
    }

    /** The endpoint's update at {@code now}: runs what is due (a send round, an ack-only packet). */
    void update(double now);

    /** Sends what is queued now, or as soon as the congestion controller's pacing allows. */
    void flush(double now);

    /**
     * Right after a received packet was taken (its acks and losses too): what must go at once, which
     * the schedule's next update would be late for.
     */
    void afterReceive(double now);

    /** When this endpoint wants its next update (seconds; {@code now} or earlier: at once; +inf: only when something happens). */
    double nextDeadline(double now);

    /**
     * Whether everything queued went out, no acknowledgement is owed and no round is wanted, so that all
     * the endpoint still waits for are the resend timers of messages in flight (and whatever arrives).
     */
    boolean writtenOut();

    /** A message was queued. */
    void offered();

    /** A packet of ours was acknowledged: bytes in flight fell and windows may have opened. */
    void acked();

    /**
     * The packet layer accepted packet {@code sequence} of the peer (a data packet when {@code data},
     * else ack-only; {@code reliableFrames} reliable messages and slices in it) at {@code now}: a data
     * packet wants an acknowledgement, on this schedule.
     *
     * @return whether the packet is the one right after the newest received before (none lost or late between)
     */
    boolean packetReceived(int sequence, boolean data, int reliableFrames, double now);

    /**
     * Whether the update at {@code now} also runs the housekeeping (the packet layer's statistics, the
     * loss timeout, the congestion controller's update), which runs at most at the configured send rate.
     */
    boolean housekeepingDue(double now);
}
