package io.reliableudp.message;

/**
 * The default {@link CongestionController} ({@link MessageConfig.CongestionControl#DELIVERY_RATE}):
 * driven by the delivery rate and the delay, as BBR is, not by a loss threshold.
 *
 * <p>The model of the path, taken from acks: the bottleneck bandwidth is the max of the delivery-rate
 * samples over the last {@value #BW_WINDOW_ROUNDS} rounds (a round: until a packet sent after the
 * round began is acknowledged), the min RTT the min of the RTT samples over 10-20 s. From them:
 * pacing rate = gain x bandwidth / (1 - random loss), never below one full packet per
 * {@value #MAX_PROBE_INTERVAL_SECONDS} s ({@link #minPacingRate()}), bytes in flight at most
 * {@value #CWND_GAIN} x bandwidth x (min RTT + the ack clock) / (1 - random loss), never below a
 * floor of full packets (so a loopback RTT of microseconds does not starve the sender).
 *
 * <p>The states: STARTUP (gain 2/ln 2, doubling per round) until three rounds in a row that were
 * not application-limited failed to raise the bandwidth by a quarter, or one lost over 30 %; DRAIN
 * (the inverse gain) until the bytes in flight fell to one bandwidth-delay product; then PROBE_BW, a
 * cycle of one round each at gains 1.25 (probe for more), 0.75 (drain what the probe queued) and six
 * times 1. A sender that is always application-limited stays in STARTUP, so it can always send what
 * it has at once and, after a pause or an outage, empties its backlog at a rate that grows per round.
 *
 * <p>Delay: when the smallest RTT sample of two cruise rounds in a row exceeds the min RTT by a
 * quarter plus one tick of ack delay, a queue is growing: the gain is held at 0.75 (and
 * {@link #congested()} is true) until the bytes in flight are down to one bandwidth-delay product.
 *
 * <p>Loss is not congestion by itself. The random loss rate is measured on packets sent in the 0.75
 * round, when this sender sends below the path's delivery rate, and trusted once the 1.25 round's
 * packets lost no more (random loss is the same at any rate: the {@link LossContrast} compares the
 * two rounds); the pacing rate and window are then
 * raised by 1 / (1 - that loss) (at most 1.43x), so random loss does not cut the rate. A policer
 * (drops above a rate, no queue) shows itself through the delivery rate: the estimate is what the
 * path delivers, so the sender cruises near the policed rate, and the probe round, sending faster than
 * the path delivers, loses markedly more than the 0.75 round. Then the loss is not compensated and
 * for {@value #POLICED_CYCLES} cycles the sender paces at what the path delivered over the last cycle,
 * without probing (as BBR's long-term bandwidth), since a token bucket lets bursts through after a
 * quiet spell and the windowed max of the samples overstates its rate.
 *
 * <p>Outages: the model is kept while no ack comes (rounds only end on acks), and when the window
 * is full and no ack came for a probe interval, one packet may go past it (the interval doubles up
 * to {@value #MAX_PROBE_INTERVAL_SECONDS} s), so the first ack after the path returns comes within
 * that time, declares everything older lost and the rate is at once what it was.
 */
final class DeliveryRateController implements CongestionController {

    static final double STARTUP_GAIN = 2.885;
    static final double DRAIN_GAIN = 1 / STARTUP_GAIN;
    static final double CWND_GAIN = 2.0;
    static final double PROBE_GAIN = 1.25;
    static final double PROBE_DOWN_GAIN = 0.75;
    static final int CYCLE_LENGTH = 8;
    static final int BW_WINDOW_ROUNDS = 10;
    static final double MIN_RTT_WINDOW_SECONDS = 10;
    static final double FULL_BW_GROWTH = 1.25;
    static final int FULL_BW_ROUNDS = 3;
    /** A round whose smallest RTT exceeds min RTT x this (plus one tick) has a queue behind it. */
    static final double QUEUE_RTT_FACTOR = 1.25;
    /** Rounds in a row with a queue before the controller drains. */
    static final int QUEUE_ROUNDS = 2;
    /** Packets a STARTUP round needs (twice this) before its loss can end STARTUP. */
    static final int MIN_LOSS_SAMPLES = 4;
    /** Cycles paced at the policed rate (gain 1, no probing) after a policer was found. */
    static final int POLICED_CYCLES = 4;
    /** A STARTUP round losing more than this share of its packets has overshot the path. */
    static final double STARTUP_LOSS_EXIT = 0.3;
    static final double MIN_PROBE_INTERVAL_SECONDS = 0.05;
    static final double MAX_PROBE_INTERVAL_SECONDS = 0.2;

    enum Mode { STARTUP, DRAIN, PROBE_BW }

    /** Tag of packets sent in the probe-down (0.75) phase: their loss is the random-loss sample. */
    static final int TAG_PROBE_DOWN = 3;
    private static final int TAG_STARTUP = 0;
    private static final int TAG_DRAIN = 1;
    private static final int TAG_CYCLE = 2; // + cycle index
    private static final int TAG_QUEUE = 12;
    private static final int TAG_POLICED = 13;

    private final PacketLog log;
    private final double sendRateHz;
    private long inflightFloor;
    private int packetBytes;
    private final double quantumSeconds;
    /** Full packets a send may run ahead of the pacing schedule at least ({@link #burstAllowance}). */
    static final int BURST_PACKETS = 2;
    private final double ackClockSeconds;

    private Mode mode = Mode.STARTUP;
    private int cycleIndex;
    private boolean queue;
    private long queueEpisodes;

    // bandwidth: max over the last rounds, one max per round in a ring
    private final double[] roundMax = new double[BW_WINDOW_ROUNDS];
    private final long[] roundOfMax = new long[BW_WINDOW_ROUNDS];
    private long lastSampleRound;
    private long round;
    private long nextRoundDelivered;
    private boolean roundHadLimitedSample;
    private double roundMinRtt = -1;
    private int queueRounds;
    private double fullBw;
    private int fullBwRounds;

    private final WindowedMin minRttFilter = new WindowedMin(MIN_RTT_WINDOW_SECONDS);

    /** The loss of the probe round against the probe-down round's: random, or growing with the rate. */
    private final LossContrast lossContrast = new LossContrast();
    private int downSent;
    private double policedRate;
    private long policedUntilRound;
    private int roundLost;
    private int roundResolved;
    private double cycleStartTime = -1;
    private long cycleStartDelivered;

    private long delivered;
    private boolean appLimited;
    private long appLimitedUntil;
    private boolean yesUnused;

    private double paceReadyAt = Double.NEGATIVE_INFINITY;
    private double lastAckTime;
    private double probeInterval = MIN_PROBE_INTERVAL_SECONDS;
    private double nextProbeTime;
    private boolean probeGranted;

    /**
     * @param time now
     * @param sendRateHz the tick rate of the tick-based composer
     * @param log the packet log (bytes in flight)
     * @param inflightFloor bytes in flight always allowed (a few full packets)
     * @param packetBytes the largest packet payload (the budget): the pacing floor is one per
     *     {@value #MAX_PROBE_INTERVAL_SECONDS} s
     * @param quantumSeconds how far ahead of the pacing schedule one send may run (the tick interval
     *     for the tick-based composer: a tick may send what the pacing rate allows until the next one)
     * @param ackClockSeconds delay the acks add to the path's RTT besides the wire (two ticks: the
     *     sender's and the peer's)
     */
    DeliveryRateController(double time, double sendRateHz, PacketLog log, long inflightFloor, int packetBytes,
            double quantumSeconds, double ackClockSeconds) {
        this.sendRateHz = sendRateHz;
        this.log = log;
        this.inflightFloor = inflightFloor;
        this.packetBytes = packetBytes;
        this.quantumSeconds = quantumSeconds;
        this.ackClockSeconds = ackClockSeconds;
        this.lastAckTime = time;
    }

    // ------------------------------------------------------------------------------------------
    // The sender asks

    @Override
    public boolean canSend(double time, int bytes) {
        noteAppLimited();
        if (paceReadyAt > time + burstAllowance()) {
            return false;
        }
        if (log.bytesInFlight() + bytes > cwnd()) {
            // window full: after a probe interval without an ack, one packet goes anyway (an outage ends
            // when one gets through)
            if (time - lastAckTime >= probeInterval && time >= nextProbeTime) {
                probeGranted = true;
                yesUnused = true;
                return true;
            }
            return false;
        }
        yesUnused = true;
        return true;
    }

    @Override
    public double nextSendTime(double time, int bytes) {
        if (log.bytesInFlight() + bytes > cwnd()) {
            return Math.max(time, Math.max(lastAckTime + probeInterval, nextProbeTime));
        }
        return Math.max(time, paceReadyAt - burstAllowance());
    }

    /**
     * How far ahead of the pacing schedule a send may run (seconds): the quantum, and at least two full
     * packets at the pacing rate (as Linux's pacing and BBR's send quantum allow). Below that, a stream
     * that the application limits to about the pacing rate (a 60 Hz event stream, whose delivery rate is
     * what the controller measures) was held behind the schedule whenever a probe phase paced below 1x
     * or an extra packet (a resend, a catch-up) went out: its events waited milliseconds for nothing.
     */
    private double burstAllowance() {
        double rate = pacingRateBytesPerSecond();
        return rate == Double.POSITIVE_INFINITY ? quantumSeconds : Math.max(quantumSeconds, BURST_PACKETS * packetBytes / rate);
    }

    @Override
    public void onPacketSent(double time, int bytes) {
        yesUnused = false;
        if (mode == Mode.PROBE_BW && cycleIndex == 1 && !queue) {
            downSent++;
        }
        if (probeGranted) {
            probeGranted = false;
            nextProbeTime = time + probeInterval;
            probeInterval = Math.min(MAX_PROBE_INTERVAL_SECONDS, probeInterval * 2);
        }
        double rate = pacingRateBytesPerSecond();
        if (rate < Double.POSITIVE_INFINITY) {
            paceReadyAt = Math.max(paceReadyAt, time) + bytes / rate;
        }
    }

    /**
     * The configured maximum: pacing and the window limit the packets. A round that ends at this cap
     * is not application-limited (the sender had more), so its samples measure what the path (or
     * the cap) delivers.
     */
    @Override
    public int packetsPerRound(int maxPacketsPerUpdate) {
        noteAppLimited();
        return maxPacketsPerUpdate;
    }

    @Override
    public double sendRateHz() {
        return sendRateHz;
    }

    @Override
    public int sendTag() {
        int phase = switch (mode) {
            case STARTUP -> TAG_STARTUP;
            case DRAIN -> TAG_DRAIN;
            case PROBE_BW -> queue ? TAG_QUEUE : policed() ? TAG_POLICED : TAG_CYCLE + cycleIndex;
        };
        return appLimited ? phase | TAG_APP_LIMITED : phase;
    }

    /**
     * A "yes" the sender did not use (it had nothing more to send):
     * the packets from now on are application-limited until the bytes in flight now are delivered,
     * so their delivery-rate samples only count when they raise the estimate.
     */
    private void noteAppLimited() {
        if (yesUnused) {
            yesUnused = false;
            appLimited = true;
            appLimitedUntil = delivered + log.bytesInFlight();
        }
    }

    // ------------------------------------------------------------------------------------------
    // The path tells

    @Override
    public void onAck(double time, int bytes, double rttSeconds, double deliveryRate, int tag, long deliveredAtSend,
            long delivered) {
        this.delivered = delivered;
        lastAckTime = time;
        probeInterval = Math.min(MAX_PROBE_INTERVAL_SECONDS, Math.max(MIN_PROBE_INTERVAL_SECONDS,
                2 * Math.max(0, minRtt()) + ackClockSeconds));
        if (appLimited && delivered > appLimitedUntil) {
            appLimited = false;
        }
        minRttFilter.sample(time, rttSeconds);
        if (roundMinRtt < 0 || rttSeconds < roundMinRtt) {
            roundMinRtt = rttSeconds;
        }
        countForRandomLoss(tag, false);
        roundResolved++;
        if (deliveredAtSend >= nextRoundDelivered) {
            nextRoundDelivered = delivered;
            endRound(time);
        }
        boolean appLimited = (tag & TAG_APP_LIMITED) != 0;
        if (deliveryRate > 0 && (!appLimited || deliveryRate > bandwidth())) {
            int slot = (int) (round % BW_WINDOW_ROUNDS);
            if (roundOfMax[slot] != round) {
                roundOfMax[slot] = round;
                roundMax[slot] = 0;
            }
            roundMax[slot] = Math.max(roundMax[slot], deliveryRate);
            lastSampleRound = round;
        }
        if (!appLimited) {
            roundHadLimitedSample = true;
        }
        if (mode == Mode.DRAIN && log.bytesInFlight() <= bdp(1)) {
            mode = Mode.PROBE_BW;
            cycleIndex = 2; // cruise first: the next probe comes after the six 1.0 rounds
        } else if (mode == Mode.PROBE_BW && (queue || cycleIndex == 1 && downSent >= LossContrast.MIN_CONTRAST_SAMPLES)
                && log.bytesInFlight() <= bdp(1)) {
            // the queue is drained (the probe's, or one that grew while cruising): cruise again (as BBR
            // leaves its 0.75 phase), rather than leave the pipe short for the rest of the round
            cycleIndex = 2;
            queue = false;
            queueRounds = 0;
        }
    }

    @Override
    public void onLoss(double time, int bytes, int tag) {
        countForRandomLoss(tag, true);
        roundResolved++;
        roundLost++;
    }

    @Override
    public void onUpdate(double time) {
        noteAppLimited();
    }

    private void countForRandomLoss(int tag, boolean lost) {
        int phase = tag & ~TAG_APP_LIMITED;
        if (phase == TAG_CYCLE) {
            lossContrast.probeResolved(lost);
        } else if (phase == TAG_PROBE_DOWN) {
            lossContrast.probeDownResolved(lost);
        }
    }

    /**
     * At the start of each cycle: compare the loss of the packets sent in the probe round (1.25) with
     * those of the probe-down round (0.75). Random loss is the same at any rate; loss that grows
     * with the rate means this sender is sending faster than the path delivers (a policer, or a
     * queue that overflows): then the loss is not compensated and the bandwidth estimate becomes
     * what the path delivered over the last cycle.
     */
    private void newCycle(double time) {
        double cycleRate = cycleStartTime >= 0 && time > cycleStartTime
                ? (delivered - cycleStartDelivered) / (time - cycleStartTime) : 0;
        cycleStartTime = time;
        cycleStartDelivered = delivered;
        if (policed()) {
            return;
        }
        if (lossContrast.lossGrowsWithRate() && cycleRate > 0) {
            // as BBR's long-term bandwidth: pace at what the path delivered for a few cycles, without
            // probing (a token bucket lets bursts through after a quiet spell, so the windowed max
            // of the samples overstates the policed rate)
            policedRate = cycleRate;
            policedUntilRound = round + (long) POLICED_CYCLES * CYCLE_LENGTH;
        }
    }

    /** A round ended (a packet sent after the last round's start was acknowledged). */
    private void endRound(double time) {
        double minRtt = minRtt();
        boolean queueNow = roundMinRtt >= 0 && minRtt >= 0
                && roundMinRtt > minRtt * QUEUE_RTT_FACTOR + ackClockSeconds / 2;
        boolean limited = roundHadLimitedSample;
        boolean overshot = roundResolved >= MIN_LOSS_SAMPLES * 2 && roundLost > STARTUP_LOSS_EXIT * roundResolved;
        roundLost = 0;
        roundResolved = 0;
        roundMinRtt = -1;
        roundHadLimitedSample = false;
        round++;

        switch (mode) {
            case STARTUP -> {
                // the pipe is full after three rounds in a row that pressed against it (not
                // application-limited) without a quarter more bandwidth; an application-limited round
                // in between starts the count again, so the odd round paced by one large resend packet
                // does not end STARTUP for a sender that is really application-limited
                double bw = bandwidth();
                if (overshot && limited) {
                    // a policer's bucket (or a short queue) let the first bursts through: the pipe is full
                    mode = Mode.DRAIN;
                } else if (!limited) {
                    fullBwRounds = 0;
                } else if (bw >= fullBw * FULL_BW_GROWTH) {
                    fullBw = bw;
                    fullBwRounds = 0;
                } else if (++fullBwRounds >= FULL_BW_ROUNDS) {
                    mode = Mode.DRAIN;
                }
            }
            case DRAIN -> {
                // left in onAck once the bytes in flight are down to one bandwidth-delay product
            }
            case PROBE_BW -> {
                // the probe round queues on purpose and the 0.75 round drains that: only a queue that
                // outlives them, two cruise rounds in a row, is someone else's (or a slower path)
                queueRounds = queueNow && limited && (queue || cycleIndex >= 2) ? queueRounds + 1 : 0;
                if (queueRounds >= QUEUE_ROUNDS) {
                    if (!queue) {
                        queue = true;
                        queueEpisodes++;
                    }
                } else if (queue) {
                    queue = false;
                    cycleIndex = 2;
                } else {
                    cycleIndex = (cycleIndex + 1) % CYCLE_LENGTH;
                    downSent = 0;
                    if (cycleIndex == 0) {
                        newCycle(time);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // The model

    /**
     * Bottleneck bandwidth estimate, bytes per second (0 before any sample): the max of the samples
     * of the last {@value #BW_WINDOW_ROUNDS} rounds that had one taken. As in BBR's filter, old maxima
     * only expire when newer samples come, so neither an outage (no acks, no rounds) nor an
     * application-limited stretch (whose lower samples are not taken) forgets the path.
     */
    double bandwidth() {
        double max = 0;
        for (int i = 0; i < BW_WINDOW_ROUNDS; i++) {
            if (lastSampleRound - roundOfMax[i] < BW_WINDOW_ROUNDS) {
                max = Math.max(max, roundMax[i]);
            }
        }
        return max;
    }

    /** Min RTT over the last 10-20 s, seconds (-1 before any sample). */
    double minRtt() {
        return minRttFilter.get();
    }

    /** The random loss rate compensated for (0..{@value LossContrast#MAX_RANDOM_LOSS}). */
    double randomLoss() {
        return lossContrast.randomLoss();
    }

    Mode mode() {
        return mode;
    }

    /** Times the loss was found to grow with the send rate (a policer or an overflowing queue). */
    long policerEpisodes() {
        return lossContrast.policerEpisodes();
    }

    /** Whether the sender paces at a policer's rate found in the last cycles. */
    private boolean policed() {
        return round < policedUntilRound;
    }

    private double pacingGain() {
        return switch (mode) {
            case STARTUP -> STARTUP_GAIN;
            case DRAIN -> DRAIN_GAIN;
            case PROBE_BW -> queue ? PROBE_DOWN_GAIN : policed() ? 1.0
                    : cycleIndex == 0 ? PROBE_GAIN : cycleIndex == 1 ? PROBE_DOWN_GAIN : 1.0;
        };
    }

    /** What random loss takes away, given back: only in PROBE_BW without a queue or a policer. */
    private double lossCompensation() {
        return mode == Mode.PROBE_BW && !queue && !policed() ? 1 / (1 - lossContrast.randomLoss()) : 1;
    }

    /** The bandwidth the sender works with: the estimate, or the policed rate while one holds. */
    private double modelBandwidth() {
        double bw = bandwidth();
        return policed() ? Math.min(bw, policedRate) : bw;
    }

    private double bdp(double gain) {
        double bw = modelBandwidth();
        double rtt = minRtt();
        if (bw <= 0 || rtt < 0) {
            return inflightFloor;
        }
        return gain * bw * (rtt + ackClockSeconds);
    }

    private long cwnd() {
        double bw = modelBandwidth();
        if (bw <= 0 || minRtt() < 0) {
            return inflightFloor;
        }
        // the same gain in STARTUP (as BBRv2): 2.885 x BDP in flight would overflow a queue of one BDP
        return Math.max(inflightFloor, (long) Math.min(Long.MAX_VALUE / 4, bdp(CWND_GAIN) * lossCompensation()));
    }

    /**
     * Pacing rate, bytes per second: gain x model bandwidth x loss compensation, never below
     * {@link #minPacingRate()} (infinite before the first sample).
     */
    @Override
    public double pacingRateBytesPerSecond() {
        double bw = modelBandwidth();
        return bw <= 0 ? Double.POSITIVE_INFINITY : Math.max(minPacingRate(), pacingGain() * bw * lossCompensation());
    }

    /**
     * The floor of the pacing rate: one full packet per longest probe interval
     * ({@value #MAX_PROBE_INTERVAL_SECONDS} s; 6 KB/s at the default 1,200-byte budget), so pacing
     * never holds a packet longer than that after the last one. Without it a model collapsed by a hostile or stalled path (RTT samples of
     * tens of seconds give delivery rates of tens of bytes a second) paced each packet tens of
     * seconds after the last, and with nothing in flight no ack came to raise the rate again: a
     * reliable message sat queued for 100 s on a path that delivered everything (found by
     * {@code DeliveryFuzzTest}). The floor is the rate of the outage probe (one packet per probe
     * interval past a full window), far below what the window's floor of full packets allows per RTT.
     */
    double minPacingRate() {
        return packetBytes / MAX_PROBE_INTERVAL_SECONDS;
    }

    @Override
    public long inflightLimitBytes() {
        return cwnd();
    }

    @Override
    public boolean congested() {
        return queue;
    }

    @Override
    public double penaltySeconds() {
        return 0;
    }

    @Override
    public long episodes() {
        return queueEpisodes;
    }

    @Override
    public void packetBudgetChanged(long inflightFloor, int packetBytes) {
        this.inflightFloor = inflightFloor;
        this.packetBytes = packetBytes;
    }
}
