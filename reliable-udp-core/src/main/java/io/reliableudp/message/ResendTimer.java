package io.reliableudp.message;

/**
 * How long a sent reliable message (or slice) waits for its acknowledgement before it is resent: the
 * resend interval from the {@link PacketLog}'s RTT estimates and the peer's ack delay, and its
 * backoff while nothing is acknowledged. Decides no resend itself: the {@link PacketComposer} asks it
 * for each message it looks at.
 *
 * <p>Two intervals per send round: one for a message whose last packet went within a stream (the
 * peer's ack may wait out its ack delay) and one for a message whose last packet went alone
 * ({@link PacketLog#sentAlone}: the peer acknowledges it at once, so the interval allows for no ack
 * delay). Only the {@link ImmediateSchedule} sends packets alone.
 */
final class ResendTimer {

    /** Resend interval base before the first RTT sample. */
    static final double INITIAL_RTT_SECONDS = 0.1;
    /** Mean deviations of the RTT added to the smoothed RTT for the resend interval (RFC 6298 K). */
    static final double RTT_VAR_FACTOR = 4.0;
    /** Smallest bound of the peer's ack delay in the resend interval (RFC 6298's G, clock granularity). */
    static final double MIN_ACK_DELAY_BOUND_SECONDS = 0.001;
    /**
     * The longest recent round trip ({@link RttEstimator#maxRttSeconds}) takes the smoothed RTT's place in
     * the resend interval when longer, but lengthens it by at most the larger of itself and this (2 ms).
     */
    static final double LONGEST_RTT_STALL_SECONDS = 0.002;
    /** Largest backoff exponent: the interval stops doubling here, if the max did not stop it before. */
    static final int MAX_BACKOFF = 16;

    private final MessageConfig config;
    private final PacketLog log;
    private final boolean everyPacket;
    private double peerAckDelayBound;

    /**
     * @param peerAckDelayBound the longest the peer is taken to wait before acknowledging a data packet
     *     until {@link #peerAcksWithin} says otherwise (the send schedule's default)
     */
    ResendTimer(MessageConfig config, PacketLog log, double peerAckDelayBound) {
        this.config = config;
        this.log = log;
        this.everyPacket = config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET;
        this.peerAckDelayBound = Math.max(MIN_ACK_DELAY_BOUND_SECONDS, peerAckDelayBound);
    }

    /**
     * The current resend interval (seconds; 0 under EVERY_PACKET), before backoff, of a reliable message
     * whose last packet went within a stream: the peer's ack may wait out its ack delay.
     */
    double resendIntervalSeconds() {
        return resendInterval(peerAckDelayBound, config.ackDelaySeconds());
    }

    /**
     * The current resend interval, before backoff, of a reliable message whose last packet went alone
     * ({@link PacketLog#sentAlone}): the peer acknowledges it at once, so the interval allows for no ack
     * delay, only for the clock's granularity ({@link #MIN_ACK_DELAY_BOUND_SECONDS}).
     */
    double resendIntervalAloneSeconds() {
        return resendInterval(MIN_ACK_DELAY_BOUND_SECONDS, 0);
    }

    /** The resend interval when the peer acks within {@code ackBound} and this end adds {@code extraDelay}. */
    private double resendInterval(double ackBound, double extraDelay) {
        if (everyPacket) {
            return 0;
        }
        double srtt = log.rtt().srttSeconds();
        // Before the first sample: the factor times a guessed RTT. After (RFC 6298, with QUIC's ack
        // delay term, RFC 9002): the smoothed RTT plus four mean deviations plus the ack delay, or the
        // factor times the smoothed RTT, whichever is longer. The deviation term is at least what the
        // peer's ack delay may still add on top of the smoothed RTT: its bound minus the part the
        // smoothed RTT already holds above the path's minimum (RFC 6298's clock granularity G: the
        // first samples may not show the peer's tick, and steady samples must not shrink the deviation
        // below it). Within the configured bounds (the lower one 1 ms by default, no longer 20 ms).
        double interval;
        if (srtt < 0) {
            interval = INITIAL_RTT_SECONDS * config.resendRttFactor();
        } else {
            double heldAboveMin = Math.max(0, srtt - Math.max(0, log.rtt().minRttSeconds()));
            double granularity = Math.max(RTT_VAR_FACTOR * log.rtt().rttVarSeconds(), ackBound - heldAboveMin);
            interval = Math.max(srtt * config.resendRttFactor(), srtt + granularity + extraDelay);
            // The same margin over the longest recent round trip rather than the smoothed one, if that is
            // later, but lengthened by at most the larger of itself and 2 ms (a host's stalls are
            // scheduling delays of a few milliseconds, whatever the path's RTT): the deviation forgets a
            // stall within a few samples, and the next stall would cost a resend (and its ack) of a
            // packet that arrived. Where round trips do not stall, the longest is about the smoothed one.
            double longest = log.rtt().maxRttSeconds();
            if (longest > srtt) {
                double most = interval + Math.max(interval, LONGEST_RTT_STALL_SECONDS);
                interval = Math.min(interval + (longest - srtt), most);
            }
        }
        return Math.min(config.maxResendIntervalSeconds(), Math.max(config.minResendIntervalSeconds(), interval));
    }

    /**
     * The longest the peer may wait before acknowledging a data packet (at least 1 ms). Under the tick
     * schedule the receiver acknowledges on its own send tick (or after {@link OwedAcks#ACK_EVERY_PACKETS}
     * packets), so that is one send interval of the configured rate, the default there; a schedule
     * whose acks leave within {@link MessageConfig#ackDelaySeconds()} sets that with
     * {@link #peerAcksWithin}.
     */
    double peerAckDelayBound() {
        return peerAckDelayBound;
    }

    /** The peer acknowledges a data packet within {@code seconds} (see {@link #peerAckDelayBound()}). */
    void peerAcksWithin(double seconds) {
        peerAckDelayBound = Math.max(MIN_ACK_DELAY_BOUND_SECONDS, seconds);
    }

    /**
     * The resend interval after {@code timeouts} timeouts in a row, the last one when the log's ack
     * count was {@code ackMark}: doubled each time, capped by the max, while no packet was acknowledged
     * since (an outage: the path carries nothing, so resending faster only floods it); back to the
     * plain interval once something was (random loss: the path works, the message was unlucky).
     */
    double backedOff(double interval, int timeouts, int ackMark) {
        int exponent = backoffExponent(timeouts, ackMark);
        if (exponent == 0) {
            return interval;
        }
        return Math.min(Math.max(interval, config.maxResendIntervalSeconds()), interval * (1 << exponent));
    }

    /**
     * The timeouts in a row to record after one more timer resend of a message that had {@code timeouts},
     * the last one at ack count {@code ackMark} (the new mark is the log's ack count now).
     */
    byte timedOut(int timeouts, int ackMark) {
        return (byte) Math.min(MAX_BACKOFF, backoffExponent(timeouts, ackMark) + 1);
    }

    private int backoffExponent(int timeouts, int ackMark) {
        return timeouts != 0 && ackMark == (int) log.acksTaken() ? timeouts : 0;
    }
}
