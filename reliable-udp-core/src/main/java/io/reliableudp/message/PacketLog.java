package io.reliableudp.message;

/**
 * What each sent packet carried, by packet sequence: a ring of packet slots whose entries (one
 * {@code long} per message or slice) live in a circular log. Both start small and double while the
 * traffic needs more room (never in steady state): the ring up to the packet layer's sent ring, when
 * the next packet's slot still holds something the log needs (see {@link #begin}). Also the loss
 * estimate and the bytes in flight, the feed of the {@link RttEstimator} (each acknowledged data
 * packet's wait), and the source of the {@link CongestionController}'s events: each acknowledged data packet's
 * RTT and delivery-rate sample, and each loss the {@link LossDetector} declares from the acks. The
 * log decides no loss itself: it records the detector's one verdict per packet ({@link #declareLost}),
 * and the loss estimate, the bytes in flight, the controller and the resend marks all read it.
 *
 * <p>Entry layout: bits 0..15 message id, 16..21 channel, 22 slice flag, 23 copy flag (a redundant
 * copy of a message first sent in an earlier packet), 32..63 slice index.
 */
final class PacketLog {

    static final long SLICE_FLAG = 1L << 22;
    static final long COPY_FLAG = 1L << 23;
    /** The entry is a SKIP frame of the channel (its id: the ids before it are abandoned), not a message. */
    static final long SKIP_FLAG = 1L << 24;
    private static final int MAX_ENTRIES = 1 << 24;
    /** Slots a new log starts with (a connection that sends a few packets a second never needs more). */
    static final int INITIAL_SLOTS = 32;
    /** Entries a new log starts with. */
    static final int INITIAL_ENTRIES = 64;
    private static final double LOSS_ALPHA = 0.05;
    /** A data packet not acknowledged after this long (or twice the RTT, if longer) is declared lost if nothing declared it before. */
    static final double LOSS_TIMEOUT_SECONDS = 1.0;
    /** Bytes in flight may reach this many bandwidth-delay products. */
    static final double INFLIGHT_GAIN = 2.0;
    static final double BANDWIDTH_WINDOW_SECONDS = 1.0;

    /** Slots now: grows by doubling up to {@link #maxSize} while the traffic needs them. */
    private int size;
    private int mask;
    /** Slots at most: the packet layer's sent-packet ring, which decides which acks can be matched. */
    private final int maxSize;
    private int[] sequence;
    private boolean[] valid;
    private boolean[] acked;
    private boolean[] tracked;
    /** The packet carried a reliable message or slice (its ack must be matched: see {@link #slotBusy}). */
    private boolean[] holdsReliable;
    /** Declared lost by the loss detector (from the acks or at the loss timeout): the one loss verdict. */
    private boolean[] declaredLost;
    /**
     * Sent alone: long enough after the previous data packet that the peer acknowledges it at once
     * (its ack-only packets are rate-limited to one per ack delay), so its resend timer need not wait
     * out the peer's ack delay ({@link ResendTimer#resendIntervalAloneSeconds}).
     */
    private boolean[] alone;
    private double[] sendTime;
    private long[] start;
    private int[] count;

    private long[] entries = new long[INITIAL_ENTRIES];
    private long head;
    private int current = -1;
    private long ordinal;
    /** Start of the oldest live packet's entries: the log must keep everything from here. */
    private long floor;
    private long[] ordinalStart;

    private int[] bytes;
    private boolean[] outstanding;
    private boolean[] unsettled;
    private long[] deliveredAtSend;
    private double[] deliveredTimeAtSend;
    /** Send time of the newest acknowledged packet when this one was sent (the delivery rate's send interval). */
    private double[] firstSentAtSend;
    private int[] tag;
    private CongestionController controller = new NoCongestionController(1);
    private double newestAckedSendTime = -1;
    private long inflight;
    private long delivered;
    private double deliveredTime = -1;
    /** Delivery-rate samples (BBR style: bytes acknowledged between a packet's send and its ack, per second). */
    private final WindowedMax bandwidth = new WindowedMax(BANDWIDTH_WINDOW_SECONDS);
    private final RttEstimator rtt = new RttEstimator();
    private double loss;
    private long packetsLost;
    private long acksTaken;
    /**
     * Payload bytes above which a data packet counts as large: only a datagram budget grown by a size
     * probe off the host makes one ({@link Integer#MAX_VALUE}: none is watched).
     */
    private int largeAbove = Integer.MAX_VALUE;
    /** Large data packets declared lost since the last large one was acknowledged. */
    private int largeLostInRow;

    /** A log of up to {@code maxSize} packet slots (a power of two), starting with {@link #INITIAL_SLOTS}. */
    PacketLog(int maxSize) {
        this(maxSize, Math.min(maxSize, INITIAL_SLOTS));
    }

    /** A log of up to {@code maxSize} slots starting with {@code initialSize} (both powers of two). */
    PacketLog(int maxSize, int initialSize) {
        if (Integer.bitCount(maxSize) != 1 || Integer.bitCount(initialSize) != 1 || initialSize > maxSize) {
            throw new IllegalArgumentException("sizes must be powers of two, initial <= max: " + initialSize + ", " + maxSize);
        }
        this.maxSize = maxSize;
        allocate(initialSize);
    }

    private void allocate(int slots) {
        this.size = slots;
        this.mask = slots - 1;
        this.sequence = new int[slots];
        this.valid = new boolean[slots];
        this.acked = new boolean[slots];
        this.tracked = new boolean[slots];
        this.holdsReliable = new boolean[slots];
        this.declaredLost = new boolean[slots];
        this.alone = new boolean[slots];
        this.sendTime = new double[slots];
        this.start = new long[slots];
        this.count = new int[slots];
        this.ordinalStart = new long[slots];
        this.bytes = new int[slots];
        this.outstanding = new boolean[slots];
        this.unsettled = new boolean[slots];
        this.deliveredAtSend = new long[slots];
        this.deliveredTimeAtSend = new double[slots];
        this.firstSentAtSend = new double[slots];
        this.tag = new int[slots];
    }

    /** Slots the log has now (tests watch it grow). */
    int capacity() {
        return size;
    }

    /**
     * Doubles the ring: every recorded packet moves to the slot of its sequence in the larger ring
     * (distinct, since the recorded sequences differ modulo the old size), and the entry starts of the
     * packets committed last move with their ordinals; the older ordinals the larger ring now covers
     * take the current floor, which is at most the start of any packet still recorded.
     */
    private void growRing() {
        int oldSize = size;
        int oldMask = mask;
        int[] oSequence = sequence;
        boolean[] oValid = valid;
        boolean[] oAcked = acked;
        boolean[] oTracked = tracked;
        boolean[] oHoldsReliable = holdsReliable;
        boolean[] oDeclaredLost = declaredLost;
        boolean[] oAlone = alone;
        double[] oSendTime = sendTime;
        long[] oStart = start;
        int[] oCount = count;
        long[] oOrdinalStart = ordinalStart;
        int[] oBytes = bytes;
        boolean[] oOutstanding = outstanding;
        boolean[] oUnsettled = unsettled;
        long[] oDeliveredAtSend = deliveredAtSend;
        double[] oDeliveredTimeAtSend = deliveredTimeAtSend;
        double[] oFirstSentAtSend = firstSentAtSend;
        int[] oTag = tag;
        allocate(oldSize * 2);
        for (int o = 0; o < oldSize; o++) {
            if (!oValid[o]) {
                continue;
            }
            int n = oSequence[o] & mask;
            sequence[n] = oSequence[o];
            valid[n] = true;
            acked[n] = oAcked[o];
            tracked[n] = oTracked[o];
            holdsReliable[n] = oHoldsReliable[o];
            declaredLost[n] = oDeclaredLost[o];
            alone[n] = oAlone[o];
            sendTime[n] = oSendTime[o];
            start[n] = oStart[o];
            count[n] = oCount[o];
            bytes[n] = oBytes[o];
            outstanding[n] = oOutstanding[o];
            unsettled[n] = oUnsettled[o];
            deliveredAtSend[n] = oDeliveredAtSend[o];
            deliveredTimeAtSend[n] = oDeliveredTimeAtSend[o];
            firstSentAtSend[n] = oFirstSentAtSend[o];
            tag[n] = oTag[o];
        }
        // the ordinals of the packets before the one being begun: the old ring held the last oldSize
        // of them; the older ones the new ring covers were forgotten, and the floor bounds their starts
        for (long k = 1; k <= size - 1; k++) {
            long o = ordinal - k;
            if (o < 0) {
                break;
            }
            ordinalStart[(int) (o & mask)] = k <= oldSize - 1 ? oOrdinalStart[(int) (o & oldMask)] : floor;
        }
    }

    /**
     * Whether the slot may take a new packet without forgetting anything the log still needs below its
     * largest size: it is empty, or its data packet was settled by the loss walk (acknowledged or
     * declared lost, older than the loss timeout), or its ack-only packet was acknowledged or is older
     * than the loss timeout; and it does not hold reliable content still waiting for its ack.
     */
    private boolean reusable(int slot, double time) {
        if (!valid[slot]) {
            return true;
        }
        if (holdsReliable[slot] && !acked[slot] && !declaredLost[slot]) {
            return false;
        }
        if (tracked[slot]) {
            return !unsettled[slot];
        }
        return acked[slot] || time - sendTime[slot] >= lossTimeout();
    }

    /** How long a data packet may stay unacknowledged before the loss walk declares it lost. */
    double lossTimeout() {
        return Math.max(LOSS_TIMEOUT_SECONDS, 2 * Math.max(0, rtt.srttSeconds()) + 0.1);
    }

    /** The controller told of acks and loss evidence, and asked for each data packet's tag. */
    void setController(CongestionController controller) {
        this.controller = controller;
    }

    static long entry(int channel, int id) {
        return (long) channel << 16 | id;
    }

    static long sliceEntry(int channel, int id, int slice) {
        return (long) slice << 32 | SLICE_FLAG | (long) channel << 16 | id;
    }

    static int channelOf(long entry) {
        return (int) (entry >>> 16) & 0x3F;
    }

    static int idOf(long entry) {
        return (int) entry & 0xFFFF;
    }

    static boolean isCopy(long entry) {
        return (entry & COPY_FLAG) != 0;
    }

    static long skipEntry(int channel, int id) {
        return SKIP_FLAG | (long) channel << 16 | id;
    }

    static boolean isSkip(long entry) {
        return (entry & SKIP_FLAG) != 0;
    }

    /** Whether the data packet {@code seq} may still be acknowledged: in the log, neither acknowledged nor declared lost. */
    boolean inFlight(int seq) {
        int slot = slotOf(seq);
        return slot >= 0 && !acked[slot] && !declaredLost[slot];
    }

    static boolean isSlice(long entry) {
        return (entry & SLICE_FLAG) != 0;
    }

    static int sliceOf(long entry) {
        return (int) (entry >>> 32);
    }

    /**
     * Whether sending packet {@code seq} now would reuse the slot of a packet with reliable content still
     * waiting for its acknowledgement (not acked, not yet found lost): its ack could then no longer be matched, and its
     * messages would wait for their resend timer although they arrived. The {@link SendRound} holds the next data
     * packet back instead, so at most one ring of data packets is in flight. Below its largest size the
     * ring grows instead ({@link #begin}), so this holds back only at the largest size.
     */
    boolean slotBusy(int seq) {
        if (size < maxSize) {
            return false;
        }
        int slot = seq & mask;
        return valid[slot] && holdsReliable[slot] && !acked[slot] && !declaredLost[slot];
    }

    /** Starts recording the packet that will be sent with {@code seq} (growing the ring first if its slot is still needed). */
    void begin(int seq, double time) {
        while (size < maxSize && !reusable(seq & mask, time)) {
            growRing();
        }
        int slot = seq & mask;
        current = slot;
        if (valid[slot]) {
            // reused before the loss walk reached it: the packet layer can no longer ack it either, so
            // the verdict cannot wait (declared lost here if unacknowledged, as the walk would have)
            if (tracked[slot] && unsettled[slot] && !acked[slot]) {
                declareLost(slot, time, false);
            }
            settle(slot);
        }
        sequence[slot] = seq;
        valid[slot] = false;
        acked[slot] = false;
        tracked[slot] = false;
        holdsReliable[slot] = false;
        declaredLost[slot] = false;
        alone[slot] = false;
        sendTime[slot] = time;
        start[slot] = head;
        count[slot] = 0;
        ordinalStart[(int) (ordinal & mask)] = head;
        floor = oldestLiveStart();
    }

    /** The packet being composed carries a reliable message or slice. */
    void markReliable() {
        holdsReliable[current] = true;
    }

    /** The packet being composed goes alone (see {@link #sentAlone}). */
    void markAlone() {
        alone[current] = true;
    }

    /**
     * Whether packet {@code seq}, sent or being composed, went alone: long enough after the previous
     * data packet that the peer acknowledges it at once. False when the log no longer holds it.
     */
    boolean sentAlone(int seq) {
        int slot = seq & mask;
        return sequence[slot] == seq && (valid[slot] || slot == current) && alone[slot];
    }

    void add(long e) {
        int slot = current;
        if (head - floor >= entries.length) {
            grow(floor);
        }
        entries[(int) (head & (entries.length - 1))] = e;
        head++;
        count[slot]++;
    }

    /** Drops the entries recorded since {@link #begin} (the packet was not sent). */
    void abort() {
        if (current >= 0) {
            head = start[current];
            count[current] = 0;
            valid[current] = false;
            current = -1;
        }
    }

    /**
     * The packet was sent; {@code carriesData} tells whether it counts for RTT, loss and bytes in
     * flight; {@code length} is its payload size.
     */
    void commit(boolean carriesData, int length) {
        int slot = current;
        valid[slot] = true;
        tracked[slot] = carriesData;
        if (carriesData) {
            bytes[slot] = length;
            unsettled[slot] = true;
            outstanding[slot] = true;
            inflight += length;
            if (deliveredTime < 0) {
                deliveredTime = sendTime[slot];
            }
            deliveredAtSend[slot] = delivered;
            deliveredTimeAtSend[slot] = deliveredTime;
            firstSentAtSend[slot] = newestAckedSendTime < 0 ? sendTime[slot] : newestAckedSendTime;
            tag[slot] = controller.sendTag();
        }
        current = -1;
        ordinal++;
    }

    private long oldestLiveStart() {
        // live packets: the size-1 sent before the current one, and the current one
        long oldest = ordinal - (size - 1);
        return oldest <= 0 ? 0 : ordinalStart[(int) (oldest & mask)];
    }

    private void grow(long floor) {
        int newLength = entries.length * 2;
        if (newLength > MAX_ENTRIES) {
            // drop the oldest packets' entries instead of growing further: they will be resent by timer
            return;
        }
        long[] grown = new long[newLength];
        for (long p = floor; p < head; p++) {
            grown[(int) (p & (newLength - 1))] = entries[(int) (p & (entries.length - 1))];
        }
        entries = grown;
    }

    /**
     * Marks the packet {@code seq} acknowledged. Returns its slot, or -1 when unknown or already acked.
     * Takes an RTT sample for packets that carried data.
     */
    int ack(int seq, double time) {
        int slot = seq & mask;
        if (!valid[slot] || sequence[slot] != seq || acked[slot]) {
            return -1;
        }
        acked[slot] = true;
        acksTaken++;
        if (tracked[slot]) {
            if (bytes[slot] > largeAbove) {
                largeLostInRow = 0;
            }
            double sample = Math.max(0, time - sendTime[slot]);
            rtt.sample(time, sample);
            if (outstanding[slot]) {
                outstanding[slot] = false;
                inflight -= bytes[slot];
            }
            delivered += bytes[slot];
            deliveredTime = time;
            double interval = time - deliveredTimeAtSend[slot];
            if (interval > 0) {
                bandwidth.sample(time, (delivered - deliveredAtSend[slot]) / interval);
            }
            // the controller's sample also spans the send interval (BBR: max of the send and ack
            // intervals), so acks bunched by the peer's tick do not make the path look faster
            double span = Math.max(interval, sendTime[slot] - firstSentAtSend[slot]);
            double rate = span > 0 ? (delivered - deliveredAtSend[slot]) / span : 0;
            if (sendTime[slot] > newestAckedSendTime) {
                newestAckedSendTime = sendTime[slot];
            }
            controller.onAck(time, bytes[slot], sample, rate, tag[slot], deliveredAtSend[slot], delivered);
        }
        return slot;
    }

    /** Payload bytes of acknowledged data packets since the start. */
    long delivered() {
        return delivered;
    }

    /** The slot of the sent packet {@code seq}, or -1 when the log does not hold it (never sent, or overwritten). */
    int slotOf(int seq) {
        int slot = seq & mask;
        return valid[slot] && sequence[slot] == seq ? slot : -1;
    }

    /** Whether the packet in {@code slot} was acknowledged. */
    boolean isAcked(int slot) {
        return acked[slot];
    }

    /** Whether the packet in {@code slot} carried messages (not an ack-only packet). */
    boolean carriesData(int slot) {
        return tracked[slot];
    }

    /** When the packet in {@code slot} was sent. */
    double sendTimeOf(int slot) {
        return sendTime[slot];
    }

    /**
     * Records the loss verdict on the data packet in {@code slot} (the {@link LossDetector} decides; the
     * log only decides for a slot reused before the verdict, see {@link #begin}): it leaves the bytes
     * in flight, and when the acks showed it ({@code fromAcks}) the congestion controller is told, once,
     * with its tag. The loss estimate counts it when the packet is settled, unless it was acknowledged
     * by then (a spurious loss). Returns false, doing nothing, when the packet is acknowledged, already
     * declared lost or not a data packet.
     */
    boolean declareLost(int slot, double time, boolean fromAcks) {
        if (!tracked[slot] || acked[slot] || declaredLost[slot]) {
            return false;
        }
        declaredLost[slot] = true;
        if (bytes[slot] > largeAbove) {
            largeLostInRow++;
        }
        if (outstanding[slot]) {
            outstanding[slot] = false;
            inflight -= bytes[slot];
        }
        if (fromAcks) {
            controller.onLoss(time, bytes[slot], tag[slot]);
        }
        return true;
    }

    /**
     * Watches data packets of more than {@code above} payload bytes ({@link Integer#MAX_VALUE}: none)
     * for {@link #largeLostInRow}, which starts again at 0.
     */
    void watchLarge(int above) {
        largeAbove = above;
        largeLostInRow = 0;
    }

    /** Whether the packet {@code seq} is in the log and was a watched large one ({@link #watchLarge}). */
    boolean sentLarge(int seq) {
        int slot = slotOf(seq);
        return slot >= 0 && tracked[slot] && bytes[slot] > largeAbove;
    }

    /** Large data packets ({@link #watchLarge}) declared lost since the last large one was acknowledged. */
    int largeLostInRow() {
        return largeLostInRow;
    }

    /** Whether the loss detector declared the packet in {@code slot} lost. */
    boolean isDeclaredLost(int slot) {
        return declaredLost[slot];
    }

    /** Number of entries of the packet in {@code slot}, or 0 when they were overwritten. */
    int entryCount(int slot) {
        long s = start[slot];
        if (head - s > entries.length) {
            return 0;
        }
        return count[slot];
    }

    long entryAt(int slot, int i) {
        return entries[(int) ((start[slot] + i) & (entries.length - 1))];
    }

    /**
     * Settles a data packet once, when the loss walk ({@link LossDetector#onTimer}) reaches it or its
     * slot is reused first (more packets in flight than the ring holds): it leaves the bytes in flight
     * and enters the loss estimate (an exponential average over packets, 5% weight each) as lost when
     * it was declared lost and not acknowledged after all.
     */
    void settle(int slot) {
        if (!unsettled[slot]) {
            return;
        }
        unsettled[slot] = false;
        if (outstanding[slot]) {
            outstanding[slot] = false;
            inflight -= bytes[slot];
        }
        boolean lost = declaredLost[slot] && !acked[slot];
        if (lost) {
            packetsLost++;
        }
        loss += ((lost ? 1.0 : 0.0) - loss) * LOSS_ALPHA;
    }

    /** Max delivery rate over the last one to two seconds (bytes per second), 0 before any sample. */
    double bandwidthEstimate() {
        return Math.max(0, bandwidth.get());
    }

    /** Payload bytes of data packets sent and neither acknowledged nor counted lost. */
    long bytesInFlight() {
        return inflight;
    }

    /**
     * The cap on bytes in flight: twice the estimated bandwidth-delay product (delivery rate times
     * the min RTT plus two send ticks), never below {@code floorBytes}.
     */
    long inflightLimit(double tickSeconds, long floorBytes) {
        double bw = bandwidthEstimate();
        if (bw <= 0) {
            return floorBytes;
        }
        // the pipe as this layer sees it: min RTT plus a send tick here and an ack tick at the peer
        double pipe = Math.max(0, rtt.minRttSeconds()) + 2 * tickSeconds;
        return Math.max(floorBytes, (long) Math.min(Long.MAX_VALUE / 4, INFLIGHT_GAIN * bw * pipe));
    }

    /** The round-trip estimates, from the acks this log takes. */
    RttEstimator rtt() {
        return rtt;
    }

    /** Loss estimate, 0..1. */
    double loss() {
        return loss;
    }

    /** Packets acknowledged so far (each once): the resend backoff restarts when this moves. */
    long acksTaken() {
        return acksTaken;
    }

    long packetsLost() {
        return packetsLost;
    }
}
