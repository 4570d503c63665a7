package io.reliableudp.message;

/**
 * The congestion-control seam: what the send side asks before a packet goes out, and what it tells
 * after. The {@link SendRound} asks {@link #canSend} before each packet, the {@link PacketComposer}
 * tells {@link #onPacketSent}; the {@link PacketLog} tells {@link #onAck} (with the packet's delivery-rate
 * sample and RTT) and {@link #onLoss} (one-direction evidence: a data packet of this side not
 * acknowledged while a later one was); the endpoint calls {@link #onUpdate} once per update.
 *
 * <p>The questions are per packet and per time ("may a packet of N bytes go at t?", "when may the
 * next one go?"), so a sender that transmits as soon as a message is queued can pace by
 * {@link #nextSendTime} ({@link ImmediateSchedule}); the {@link TickSchedule} also asks
 * {@link #sendRateHz} (its tick rate), and every send round asks {@link #packetsPerRound}. Implementations: {@link DeliveryRateController} (the default,
 * BBR-like), {@link GafferController} (the good/bad mode of the first milestone) and
 * {@link NoCongestionController}; {@link MessageConfig#congestionControl()} selects one.
 *
 * <p>Single-threaded (the endpoint's thread) and allocation-free: every call takes primitives.
 */
interface CongestionController {

    /** Tag bit of {@link #sendTag()}: the packet was sent while the sender was application-limited. */
    int TAG_APP_LIMITED = 1 << 8;

    /**
     * Whether a packet of {@code bytes} may go at {@code time}: within the cap on bytes in flight
     * and the pacing schedule.
     *
     * @param time now, seconds
     * @param bytes the packet's payload size (at most the packet budget)
     * @return true when it may go now
     */
    boolean canSend(double time, int bytes);

    /**
     * The earliest time at or after {@code time} at which a packet of {@code bytes} may go:
     * {@code time} itself when {@link #canSend} is true, the pacing time when only pacing holds it,
     * {@link Double#POSITIVE_INFINITY} when only an acknowledgement or a loss can open the window.
     */
    double nextSendTime(double time, int bytes);

    /** A data packet of {@code bytes} payload bytes was sent at {@code time}. */
    void onPacketSent(double time, int bytes);

    /**
     * A data packet was acknowledged.
     *
     * @param time now, seconds
     * @param bytes its payload size
     * @param rttSeconds its RTT sample (ack time - send time)
     * @param deliveryRate bytes acknowledged between its send and its ack, per second (0 when the
     *     interval was empty)
     * @param tag what {@link #sendTag()} was when it was sent
     * @param deliveredAtSend bytes acknowledged in total when it was sent
     * @param delivered bytes acknowledged in total, this packet included
     */
    void onAck(double time, int bytes, double rttSeconds, double deliveryRate, int tag, long deliveredAtSend,
            long delivered);

    /**
     * One-direction loss evidence: a data packet of {@code bytes} (sent with {@code tag}) was not
     * acknowledged although packets sent after it were.
     */
    void onLoss(double time, int bytes, int tag);

    /** Once per endpoint update. */
    void onUpdate(double time);

    /**
     * The controller's mark for packets sent now (kept per packet by the {@link PacketLog} and
     * handed back in {@link #onAck} and {@link #onLoss}): the phase it was sent in, and
     * {@link #TAG_APP_LIMITED}.
     */
    int sendTag();

    /** Send ticks per second of the {@link TickSchedule}. */
    double sendRateHz();

    /** Packets one tick's send round may carry, given the configured maximum. */
    int packetsPerRound(int maxPacketsPerUpdate);

    /** Whether the controller currently holds the rate down because of congestion (statistics). */
    boolean congested();

    /** Seconds of good conditions needed before the rate comes back (0 when there is no such penalty). */
    double penaltySeconds();

    /** Times the controller entered its congested state. */
    long episodes();

    /** The cap on bytes in flight, or -1 when there is none. */
    long inflightLimitBytes();

    /** The pacing rate in bytes per second, or {@link Double#POSITIVE_INFINITY} when sends are not paced. */
    double pacingRateBytesPerSecond();

    /**
     * The connection's packets may now be {@code packetBytes} long (its datagram budget changed):
     * controllers that pace or size a window in packets take the new size. The default ignores it.
     *
     * @param inflightFloor bytes in flight always allowed from now on
     * @param packetBytes the largest packet payload from now on
     */
    default void packetBudgetChanged(long inflightFloor, int packetBytes) {
    }
}
