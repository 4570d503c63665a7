package io.reliableudp.message;

/**
 * The round-trip estimates taken from the acks of this end's data packets: the smoothed RTT and its
 * mean deviation (RFC 6298), the min RTT over the last 10 to 20 seconds and the longest recent round
 * trip. The {@link PacketLog} hands it each acknowledged data packet's wait ({@link #sample}) and, once
 * a received packet's ack header was taken, folds them in ({@link #takeSample}); the resend timer, the
 * loss detector and the congestion controllers read it.
 */
final class RttEstimator {

    private static final double RTT_ALPHA = 0.125;
    /** Gain of the RTT mean deviation (RFC 6298 beta). */
    private static final double RTT_BETA = 0.25;
    static final double MIN_RTT_WINDOW_SECONDS = 10.0;
    /** The longest round trip is the max over the last one to two of these windows ({@link #maxRttSeconds}). */
    static final double MAX_RTT_WINDOW_SECONDS = 5.0;

    private final WindowedMin minRtt = new WindowedMin(MIN_RTT_WINDOW_SECONDS);
    private final WindowedMax longestRtt = new WindowedMax(MAX_RTT_WINDOW_SECONDS);
    /** The longest wait for an ack among the packets the ack header being taken acknowledged, -1 for none. */
    private double pendingLongestSample = -1;
    private double pendingLongestTime;
    /** The ack header being taken came in the peer's packet right after the previous one it sent. */
    private boolean pendingInOrder;

    private double srttSeconds = -1;
    private double pendingRttSample = -1;
    private double rttVarSeconds;

    /** A data packet was acknowledged at {@code time}, {@code sample} seconds after it was sent. */
    void sample(double time, double sample) {
        // the smoothed RTT takes one sample per received ack header (takeSample), not one per
        // packet it acknowledges: the freshest, from the packet sent last
        pendingRttSample = pendingRttSample < 0 ? sample : Math.min(pendingRttSample, sample);
        if (sample > pendingLongestSample) {
            pendingLongestSample = sample;
            pendingLongestTime = time;
        }
        minRtt.sample(time, sample);
    }

    /**
     * Folds the RTT sample of the acks taken since the last call (one received packet's ack header)
     * into the smoothed RTT and its mean deviation (RFC 6298). One sample per header, the smallest
     * (from the packet sent last): a header acknowledging a whole burst would otherwise give many
     * near-equal samples that shrink the deviation towards 0 within one round trip, and the next ack
     * delayed by a peer's tick would then look like a loss to the resend timer.
     */
    void takeSample() {
        if (pendingLongestSample >= 0) {
            if (pendingInOrder) {
                longestRtt.sample(pendingLongestTime, pendingLongestSample);
            }
            pendingLongestSample = -1;
        }
        pendingInOrder = false;
        double sample = pendingRttSample;
        if (sample < 0) {
            return;
        }
        pendingRttSample = -1;
        if (srttSeconds < 0) {
            srttSeconds = sample;
            rttVarSeconds = sample / 2;
        } else {
            // RFC 6298 order: the deviation against the old mean, then the mean
            rttVarSeconds += (Math.abs(sample - srttSeconds) - rttVarSeconds) * RTT_BETA;
            srttSeconds += (sample - srttSeconds) * RTT_ALPHA;
        }
    }

    /**
     * The peer's packet whose ack header is taken next is the one right after the previous packet it
     * sent ({@code inOrder}), or not: one of its packets was lost or comes late. Only an in-order
     * header's waits enter {@link #maxRttSeconds}: behind a lost packet of the peer's, a late ack may
     * be one that the lost packet carried first, a loss rather than a slow round trip.
     */
    void peerPacketInOrder(boolean inOrder) {
        pendingInOrder = inOrder;
    }

    /**
     * The longest a data packet waited for its ack over the last 5 to 10 seconds (seconds; -1 before
     * any): the wait of the oldest packet each ack header acknowledged, from headers that came in
     * order ({@link #peerPacketInOrder}). Unlike the smoothed RTT, which takes each header's freshest
     * sample, it keeps a round trip the peer stretched (a descheduled receiver, a VM's steal) even when
     * the resend it provoked was acknowledged in the same header.
     */
    double maxRttSeconds() {
        return longestRtt.get();
    }

    /** Min RTT over the last 10 to 20 seconds (seconds), -1 before any sample. */
    double minRttSeconds() {
        return minRtt.get();
    }

    /** Smoothed RTT in seconds, or -1 before the first sample. */
    double srttSeconds() {
        return srttSeconds;
    }

    /** Smoothed mean deviation of the RTT in seconds (RFC 6298 RTTVAR), 0 before the first sample. */
    double rttVarSeconds() {
        return rttVarSeconds;
    }
}
