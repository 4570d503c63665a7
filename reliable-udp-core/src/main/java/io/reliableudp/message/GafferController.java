package io.reliableudp.message;

/**
 * Gaffer's good/bad congestion mode (seed 002) with the bandwidth estimate's cap on bytes in flight:
 * the {@link CongestionController} of the first milestone, kept and selected with
 * {@link MessageConfig.CongestionControl#GAFFER}. It sets the send tick rate and packets per tick;
 * the endpoint feeds it once per {@code update} from the {@link PacketLog}'s RTT, loss and
 * delivery-rate estimates. It does not pace within a tick and ignores the per-packet events.
 *
 * <p>The rate is Gaffer's binary congestion avoidance: a good mode at the configured rate and a bad mode at a third
 * of it (at least 1 Hz, one packet per tick). The connection turns bad at once when the smoothed RTT
 * reaches the RTT threshold or the loss estimate reaches the loss threshold. It returns to good only
 * after conditions stayed good for the penalty time. A relapse within 10 s of returning to good
 * doubles the penalty; every 10 s spent in good mode halves it; it stays within 1..60 s (initially 4 s).
 * In bad mode one packet goes out per tick.
 *
 * <p>The in-flight cap (with bandwidth estimation on): twice the estimated bandwidth-delay product
 * ({@link PacketLog#inflightLimit}), never below a floor of a few full packets.
 */
final class GafferController implements CongestionController {

    static final double INITIAL_PENALTY_SECONDS = 4;
    static final double MIN_PENALTY_SECONDS = 1;
    static final double MAX_PENALTY_SECONDS = 60;
    static final double RELAPSE_WINDOW_SECONDS = 10;
    static final double HALVING_PERIOD_SECONDS = 10;
    static final double BAD_RATE_DIVISOR = 3;

    private final boolean enabled;
    private final double goodRateHz;
    private final double badRateHz;
    private final double rttThresholdMillis;
    private final double lossThresholdPercent;
    private final PacketLog log;
    private final boolean bandwidthEstimation;
    private final long inflightFloor;

    private boolean bad;
    private double penaltySeconds = INITIAL_PENALTY_SECONDS;
    private double goodSince;
    private double lastHalving;
    private double lastCongested;
    private long badEpisodes;

    GafferController(boolean enabled, double goodRateHz, double rttThresholdMillis, double lossThresholdPercent,
            double time, PacketLog log, boolean bandwidthEstimation, long inflightFloor) {
        this.enabled = enabled;
        this.log = log;
        this.bandwidthEstimation = bandwidthEstimation;
        this.inflightFloor = inflightFloor;
        this.goodRateHz = goodRateHz;
        this.badRateHz = Math.max(1, goodRateHz / BAD_RATE_DIVISOR);
        this.rttThresholdMillis = rttThresholdMillis;
        this.lossThresholdPercent = lossThresholdPercent;
        this.goodSince = time - RELAPSE_WINDOW_SECONDS;
        this.lastHalving = time;
    }

    /** Takes in the current RTT and loss estimates of the packet log (once per endpoint update). */
    @Override
    public void onUpdate(double time) {
        double srtt = log.rtt().srttSeconds();
        update(time, srtt < 0 ? 0 : srtt * 1000, log.loss() * 100);
    }

    /** Takes in one reading of the smoothed RTT (ms) and the loss estimate (percent). */
    void update(double time, double rttMillis, double lossPercent) {
        if (!enabled) {
            return;
        }
        boolean congestedNow = rttMillis >= rttThresholdMillis || lossPercent >= lossThresholdPercent;
        if (!bad) {
            if (congestedNow) {
                bad = true;
                badEpisodes++;
                lastCongested = time;
                if (time - goodSince < RELAPSE_WINDOW_SECONDS) {
                    penaltySeconds = Math.min(MAX_PENALTY_SECONDS, penaltySeconds * 2);
                }
            } else if (time - lastHalving >= HALVING_PERIOD_SECONDS) {
                penaltySeconds = Math.max(MIN_PENALTY_SECONDS, penaltySeconds / 2);
                lastHalving = time;
            }
        } else if (congestedNow) {
            lastCongested = time;
        } else if (time - lastCongested >= penaltySeconds) {
            bad = false;
            goodSince = time;
            lastHalving = time;
        }
    }

    @Override
    public int packetsPerRound(int maxPacketsPerUpdate) {
        return bad ? 1 : maxPacketsPerUpdate;
    }

    /** Whether the bytes in flight reached the cap (never, with bandwidth estimation off). */
    boolean windowFull() {
        return bandwidthEstimation && log.bytesInFlight() >= inflightLimit();
    }

    /** Any packet while the bytes in flight are below the cap: the tick schedule does the rest. */
    @Override
    public boolean canSend(double time, int bytes) {
        return !windowFull();
    }

    @Override
    public double nextSendTime(double time, int bytes) {
        return windowFull() ? Double.POSITIVE_INFINITY : time;
    }

    @Override
    public void onPacketSent(double time, int bytes) {
    }

    @Override
    public void onAck(double time, int bytes, double rttSeconds, double deliveryRate, int tag, long deliveredAtSend,
            long delivered) {
    }

    @Override
    public void onLoss(double time, int bytes, int tag) {
    }

    @Override
    public int sendTag() {
        return 0;
    }

    /** The cap on bytes in flight, or -1 when bandwidth estimation is off. */
    @Override
    public long inflightLimitBytes() {
        return bandwidthEstimation ? inflightLimit() : -1;
    }

    @Override
    public double pacingRateBytesPerSecond() {
        return Double.POSITIVE_INFINITY;
    }

    private long inflightLimit() {
        return log.inflightLimit(1.0 / goodRateHz, inflightFloor);
    }

    @Override
    public boolean congested() {
        return bad;
    }

    @Override
    public double sendRateHz() {
        return bad ? badRateHz : goodRateHz;
    }

    @Override
    public double penaltySeconds() {
        return penaltySeconds;
    }

    @Override
    public long episodes() {
        return badEpisodes;
    }
}
