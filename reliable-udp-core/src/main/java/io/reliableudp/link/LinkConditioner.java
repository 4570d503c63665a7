package io.reliableudp.link;

import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A seeded simulator of one direction of a network link: fixed latency, uniform jitter, random loss
 * and Gilbert-Elliott bursty loss, duplication, reordering (an extra delay for some datagrams) and a
 * bandwidth cap with a bottleneck queue that drops when full.
 *
 * <p>Use it anywhere datagrams flow: {@link #submit} copies a datagram into a pooled slot and decides
 * its fate (lost, delayed, duplicated) at once; {@link #poll} hands the datagrams that are due to a
 * consumer, earliest first (ties in submission order). Between two in-memory endpoints, one
 * conditioner per direction; in front of a socket, submit what you would have sent and send what
 * {@code poll} returns. The same seed and the same calls give the same fates. Not thread-safe; no
 * allocation in steady state (the pool only grows when more datagrams are in flight than ever before).
 */
public final class LinkConditioner {

    private final SplittableRandom random;
    private LinkConditionerConfig config;
    private double latency;
    private double jitter;
    private double reorderDelay;

    private byte[][] slotData = new byte[16][];
    private int[] slotLength = new int[16];
    private double[] slotDue = new double[16];
    private long[] slotOrder = new long[16];
    private int[] free = new int[16];
    private int freeCount;
    private int slotsUsed;
    private int[] heap = new int[16];
    private int heapSize;
    private long order;

    private boolean burst;
    private double linkFreeAt = Double.NEGATIVE_INFINITY;

    private long submitted;
    private long delivered;
    private long lost;
    private long lostInBurst;
    private long duplicated;
    private long reordered;
    private long droppedQueueFull;
    private long deliveredBytes;

    /** Creates a conditioner with the given settings (its seed fixes every random choice). */
    public LinkConditioner(LinkConditionerConfig config) {
        this.random = new SplittableRandom(config.seed());
        reconfigure(config);
    }

    /** The current settings. */
    public LinkConditionerConfig config() {
        return config;
    }

    /**
     * Changes the link's conditions from now on (datagrams already in flight keep their fate; the
     * random sequence continues; the seed of {@code config} is ignored). For tests and demos that
     * vary the network over time.
     */
    public void reconfigure(LinkConditionerConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.latency = config.latencyMillis() / 1000.0;
        this.jitter = config.jitterMillis() / 1000.0;
        this.reorderDelay = config.reorderDelayMillis() / 1000.0;
    }

    /**
     * Offers one datagram to the link at time {@code now} (seconds). The bytes are copied.
     *
     * @return true when at least one copy will be delivered, false when it was lost or dropped
     */
    public boolean submit(byte[] data, int offset, int length, double now) {
        Objects.checkFromIndexSize(offset, length, data.length);
        submitted++;
        // Gilbert-Elliott two-state loss model: state change first, then the state's loss probability
        if (burst) {
            if (random.nextDouble() < config.burstExitProbability()) {
                burst = false;
            }
        } else if (config.burstEnterProbability() > 0 && random.nextDouble() < config.burstEnterProbability()) {
            burst = true;
        }
        double lossProbability = burst ? config.burstLossProbability() : config.lossProbability();
        if (lossProbability > 0 && random.nextDouble() < lossProbability) {
            lost++;
            if (burst) {
                lostInBurst++;
            }
            return false;
        }
        double departure = now;
        if (config.bandwidthBytesPerSecond() > 0) {
            double bw = config.bandwidthBytesPerSecond();
            double queuedBytes = Math.max(0, linkFreeAt - now) * bw;
            if (queuedBytes + length > config.queueLimitBytes()) {
                droppedQueueFull++;
                return false;
            }
            linkFreeAt = Math.max(linkFreeAt, now) + length / bw;
            departure = linkFreeAt;
        }
        enqueue(data, offset, length, departure + delay());
        if (config.duplicateProbability() > 0 && random.nextDouble() < config.duplicateProbability()) {
            duplicated++;
            enqueue(data, offset, length, departure + delay());
        }
        return true;
    }

    private double delay() {
        double d = latency;
        if (jitter > 0) {
            d += random.nextDouble() * jitter;
        }
        if (config.reorderProbability() > 0 && random.nextDouble() < config.reorderProbability()) {
            reordered++;
            d += reorderDelay;
        }
        return d;
    }

    /**
     * Hands every datagram due at or before {@code now} to {@code out}, earliest first. The consumer
     * may submit to this conditioner again.
     *
     * @return the number of datagrams delivered
     */
    public int poll(double now, DatagramConsumer out) {
        int n = 0;
        while (heapSize > 0 && slotDue[heap[0]] <= now) {
            int slot = popHeap();
            byte[] data = slotData[slot];
            int length = slotLength[slot];
            delivered++;
            deliveredBytes += length;
            n++;
            try {
                out.accept(data, 0, length);
            } finally {
                free[freeCount++] = slot;
            }
        }
        return n;
    }

    /** When the earliest pending datagram is due, or {@link Double#POSITIVE_INFINITY} when none is. */
    public double nextDueTime() {
        return heapSize == 0 ? Double.POSITIVE_INFINITY : slotDue[heap[0]];
    }

    /** Datagrams waiting to be delivered. */
    public int pending() {
        return heapSize;
    }

    /** Datagrams offered. */
    public long submitted() {
        return submitted;
    }

    /** Datagrams delivered (duplicates included). */
    public long delivered() {
        return delivered;
    }

    /** Bytes delivered. */
    public long deliveredBytes() {
        return deliveredBytes;
    }

    /** Datagrams lost to random or burst loss. */
    public long lost() {
        return lost;
    }

    /** Datagrams lost while in the burst (bad) state; part of {@link #lost()}. */
    public long lostInBurst() {
        return lostInBurst;
    }

    /** Extra copies made. */
    public long duplicated() {
        return duplicated;
    }

    /** Copies given the extra reorder delay. */
    public long reordered() {
        return reordered;
    }

    /** Datagrams dropped because the bandwidth cap's queue was full. */
    public long droppedQueueFull() {
        return droppedQueueFull;
    }

    @Override
    public String toString() {
        return "LinkConditioner[submitted=" + submitted + ", delivered=" + delivered + ", lost=" + lost
                + " (burst " + lostInBurst + "), duplicated=" + duplicated + ", reordered=" + reordered
                + ", droppedQueueFull=" + droppedQueueFull + ", pending=" + heapSize + "]";
    }

    private void enqueue(byte[] data, int offset, int length, double due) {
        int slot = allocateSlot();
        byte[] buf = slotData[slot];
        if (buf == null || buf.length < length) {
            buf = new byte[Math.max(length, 64)];
            slotData[slot] = buf;
        }
        System.arraycopy(data, offset, buf, 0, length);
        slotLength[slot] = length;
        slotDue[slot] = due;
        slotOrder[slot] = order++;
        pushHeap(slot);
    }

    private int allocateSlot() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (slotsUsed == slotData.length) {
            int n = slotData.length * 2;
            slotData = java.util.Arrays.copyOf(slotData, n);
            slotLength = java.util.Arrays.copyOf(slotLength, n);
            slotDue = java.util.Arrays.copyOf(slotDue, n);
            slotOrder = java.util.Arrays.copyOf(slotOrder, n);
            free = java.util.Arrays.copyOf(free, n);
            heap = java.util.Arrays.copyOf(heap, n);
        }
        return slotsUsed++;
    }

    private boolean before(int a, int b) {
        double da = slotDue[a];
        double db = slotDue[b];
        return da < db || (da == db && slotOrder[a] < slotOrder[b]);
    }

    private void pushHeap(int slot) {
        int i = heapSize++;
        heap[i] = slot;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!before(heap[i], heap[parent])) {
                break;
            }
            int t = heap[i];
            heap[i] = heap[parent];
            heap[parent] = t;
            i = parent;
        }
    }

    private int popHeap() {
        int top = heap[0];
        int last = heap[--heapSize];
        int i = 0;
        heap[0] = last;
        while (true) {
            int l = 2 * i + 1;
            if (l >= heapSize) {
                break;
            }
            int r = l + 1;
            int c = r < heapSize && before(heap[r], heap[l]) ? r : l;
            if (!before(heap[c], heap[i])) {
                break;
            }
            int t = heap[i];
            heap[i] = heap[c];
            heap[c] = t;
            i = c;
        }
        return top;
    }
}
