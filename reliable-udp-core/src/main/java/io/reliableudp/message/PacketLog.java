package io.reliableudp.message;

/**
 * What each sent packet carried, by packet sequence: a preallocated ring of packet slots whose
 * entries (one {@code long} per message or slice) live in a circular log that only grows while the
 * traffic needs more room (never in steady state). Also the RTT and loss estimates taken from acks.
 *
 * <p>Entry layout: bits 0..15 message id, 16..21 channel, 22 slice flag, 32..63 slice index.
 */
final class PacketLog {

    static final long SLICE_FLAG = 1L << 22;
    private static final int MAX_ENTRIES = 1 << 24;
    private static final double RTT_ALPHA = 0.125;
    private static final double LOSS_ALPHA = 0.05;
    /** A data packet not acknowledged after this long (or twice the RTT, if longer) counts as lost. */
    static final double LOSS_TIMEOUT_SECONDS = 1.0;

    private final int size;
    private final int mask;
    private final int[] sequence;
    private final boolean[] valid;
    private final boolean[] acked;
    private final boolean[] tracked;
    private final double[] sendTime;
    private final long[] start;
    private final int[] count;

    private long[] entries = new long[1024];
    private long head;
    private int current = -1;
    private long ordinal;
    private final long[] ordinalStart;

    private double srttSeconds = -1;
    private double loss;
    private int lossCursor;
    private boolean lossCursorSet;
    private long packetsLost;

    PacketLog(int size) {
        this.size = size;
        this.mask = size - 1;
        this.sequence = new int[size];
        this.valid = new boolean[size];
        this.acked = new boolean[size];
        this.tracked = new boolean[size];
        this.sendTime = new double[size];
        this.start = new long[size];
        this.count = new int[size];
        this.ordinalStart = new long[size];
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

    static boolean isSlice(long entry) {
        return (entry & SLICE_FLAG) != 0;
    }

    static int sliceOf(long entry) {
        return (int) (entry >>> 32);
    }

    /** Starts recording the packet that will be sent with {@code seq}. */
    void begin(int seq, double time) {
        int slot = seq & mask;
        current = slot;
        sequence[slot] = seq;
        valid[slot] = false;
        acked[slot] = false;
        tracked[slot] = false;
        sendTime[slot] = time;
        start[slot] = head;
        count[slot] = 0;
        ordinalStart[(int) (ordinal & mask)] = head;
    }

    void add(long e) {
        int slot = current;
        long floor = oldestLiveStart();
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

    /** The packet was sent; {@code carriesData} tells whether it counts for RTT and loss. */
    void commit(boolean carriesData) {
        valid[current] = true;
        tracked[current] = carriesData;
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
        if (tracked[slot]) {
            double sample = Math.max(0, time - sendTime[slot]);
            srttSeconds = srttSeconds < 0 ? sample : srttSeconds + (sample - srttSeconds) * RTT_ALPHA;
        }
        return slot;
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
     * Walks the packets older than the loss timeout: an unacked data packet counts as lost. The loss
     * estimate is an exponential average over packets (5% weight each).
     */
    void updateLoss(double time, int nextSequence) {
        double timeout = Math.max(LOSS_TIMEOUT_SECONDS, 2 * Math.max(0, srttSeconds) + 0.1);
        if (!lossCursorSet) {
            lossCursor = nextSequence;
            lossCursorSet = true;
            return;
        }
        int behind = (nextSequence - lossCursor) & 0xFFFF;
        if (behind > size) {
            lossCursor = (nextSequence - size) & 0xFFFF;
        }
        while (lossCursor != nextSequence) {
            int slot = lossCursor & mask;
            if (valid[slot] && sequence[slot] == lossCursor) {
                if (time - sendTime[slot] < timeout) {
                    break;
                }
                if (tracked[slot]) {
                    boolean lost = !acked[slot];
                    if (lost) {
                        packetsLost++;
                    }
                    loss += ((lost ? 1.0 : 0.0) - loss) * LOSS_ALPHA;
                }
            }
            lossCursor = (lossCursor + 1) & 0xFFFF;
        }
    }

    /** Smoothed RTT in seconds, or -1 before the first sample. */
    double srttSeconds() {
        return srttSeconds;
    }

    /** Loss estimate, 0..1. */
    double loss() {
        return loss;
    }

    long packetsLost() {
        return packetsLost;
    }
}
