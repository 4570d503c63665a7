package io.reliableudp.transport;

/**
 * When a peer's queued work goes out, on the I/O side: the one seam between the two send modes
 * ({@link NodeConfig#sendMode()}), chosen once when the node starts ({@link DatagramNode}) and made
 * once per lane. {@link ImmediateLaneSchedule} ({@code IMMEDIATE}): a send marks its peer for the lane's
 * thread, which writes it in its next turn (or the sender writes it itself when the loop is idle), and
 * the lane wakes for each peer's next message-layer deadline. {@link TickLaneSchedule} ({@code TICK}): the
 * lane's tick, at the send rate, updates every peer, and a caller's {@code flush} writes on its own
 * thread. The transport reads the send mode nowhere else; the message layer has its own side of it.
 */
interface LaneSchedule {

    /** A send mode's schedule, chosen once per node. */
    interface Factory {
        /** The lane's tick interval in seconds, given the connection's handshake retry interval. */
        double tickSeconds(NodeConfig config, double handshakeResendSeconds);

        /**
         * The schedule of one lane: its {@code loop}, its listener calls ({@code events}), the node's
         * {@code peers} (of which {@code lane}'s are this schedule's), clock and conditioner setting.
         */
        LaneSchedule create(PeerDriver.Lane lane, IoLoop loop, NodeEvents events, PeerTable peers, NodeClock clock,
                            ConditionerSetting conditioning);
    }

    /**
     * A message was queued on {@code peer} (an application thread, under the peer's lock). Returns
     * whether the lane must still be asked to write it ({@link #ask}, after the lock is released).
     */
    boolean queued(PeerDriver peer);

    /** {@code peer} has queued work for the lane's thread (any thread, not under the peer's lock). */
    void ask(PeerDriver peer);

    /** {@link Peer#flush()}: what is queued on {@code peer} goes out now (an application thread). */
    void flush(PeerDriver peer);

    /** A resume of paused channels on {@code peer} is left for the lane's thread (any thread). */
    void resumeLeft(PeerDriver peer);

    /** A new peer of the lane (any thread). */
    void adopt(PeerDriver peer);

    /** After a call into {@code peer}'s connection: its message layer's next deadline (seconds on the node's clock). */
    void deadline(PeerDriver peer, double next);

    /** The lane's tick (the lane's thread): the peers' connection timers. */
    void tick(double now);

    /** The end of the lane's turn, after the listener calls (the lane's thread): writes and deadlines. */
    void turn();

    /** The lane's next deadline (System.nanoTime; Long.MAX_VALUE for none), for the loop's wait. */
    long nextDeadline();

    /** Heap entries the ticks visited (due or gone peers): the tick's cost, for tests. */
    long housekeepingVisits();
}
