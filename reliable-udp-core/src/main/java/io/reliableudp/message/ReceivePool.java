package io.reliableudp.message;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The receive memory of many endpoints (the connections of one node) against one shared limit:
 * every byte an endpoint holds for its peer (reassembly, early arrivals of ordered channels, messages
 * held for paused channels) is counted here as well as against the endpoint's own
 * {@link MessageConfig#receiveMemoryLimit()}. An endpoint reserves the bytes a packet would add before
 * it accepts the packet, so the sum never passes the limit; a packet that does not fit is refused
 * (not acknowledged) and counted in {@link #refusals()}. Thread-safe (the endpoints of a node run on
 * several threads); lock-free, allocation-free.
 *
 * <p>The last {@code reserve} bytes of the limit are kept for packets that move a channel's window
 * (the next expected message of a reliable channel that is not paused): a pool full of later messages
 * still takes the one they wait for, so no channel deadlocks on the limit.
 */
public final class ReceivePool {

    private final long limit;
    private final long reserve;
    private final AtomicLong held = new AtomicLong();
    private final LongAdder refusals = new LongAdder();

    /**
     * A pool of {@code limitBytes}, keeping {@code reserveBytes} of it for packets that move a window.
     *
     * @param limitBytes most bytes held by all endpoints of the pool together (at least 1)
     * @param reserveBytes bytes of the limit only a window-moving packet may use (0..limitBytes)
     */
    public ReceivePool(long limitBytes, long reserveBytes) {
        if (limitBytes < 1) {
            throw new IllegalArgumentException("limitBytes must be >= 1, was " + limitBytes);
        }
        if (reserveBytes < 0 || reserveBytes > limitBytes) {
            throw new IllegalArgumentException("reserveBytes must be within 0..limitBytes, was " + reserveBytes);
        }
        this.limit = limitBytes;
        this.reserve = reserveBytes;
    }

    /** A pool without a shared limit (each endpoint's own limit still applies). */
    public static ReceivePool unlimited() {
        return new ReceivePool(Long.MAX_VALUE / 4, 0);
    }

    /** The shared limit, in bytes. */
    public long limitBytes() {
        return limit;
    }

    /** Bytes the endpoints of this pool hold now. */
    public long heldBytes() {
        return held.get();
    }

    /** Packets the endpoints of this pool refused because they would have passed a receive memory limit (theirs or this one). */
    public long refusals() {
        return refusals.sum();
    }

    /**
     * Takes {@code bytes} when they fit: within the limit less the reserve, or within the whole limit
     * for a packet that moves a window. The transport takes room here for what it holds itself (the
     * datagrams one I/O thread hands to another), with {@code movesWindow} false, and gives it back
     * with {@link #release}.
     *
     * @param bytes bytes to take
     * @param movesWindow whether the reserve may be used
     * @return whether they were taken
     */
    public boolean tryReserve(long bytes, boolean movesWindow) {
        long max = movesWindow ? limit : limit - reserve;
        while (true) {
            long h = held.get();
            if (h + bytes > max) {
                return false;
            }
            if (held.compareAndSet(h, h + bytes)) {
                return true;
            }
        }
    }

    /** Adds (or, negative, gives back) bytes whose room was already there (no limit check). */
    void add(long bytes) {
        if (bytes != 0) {
            held.addAndGet(bytes);
        }
    }

    /**
     * Gives back bytes taken by {@link #tryReserve}.
     *
     * @param bytes bytes no longer held
     */
    public void release(long bytes) {
        add(-bytes);
    }

    void refused() {
        refusals.increment();
    }
}
