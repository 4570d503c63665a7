package io.reliableudp.connection;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;

/**
 * The datagram size of one connection, and its discovery by SIZE probes, as RFC 8899's datagram
 * packetization-layer path-MTU discovery: the connection starts at the message layer's
 * {@code datagramBudget} (the base, which every path is assumed to carry); the transport says how large
 * the path may be ({@link #discover}); once the session asks for larger packets, keepalives padded to a
 * candidate size go ({@link #send}), and when the peer answers that it received that many bytes
 * ({@link #answered}), the budget grows to it and the search goes on upward. The SIZE answer to a
 * peer's probe goes from here too ({@link #answer}).
 *
 * <p>The search ({@link Phase}): the preferred size first (the Ethernet size off the host; the largest
 * one on this host), then the largest the path may carry, then a binary search between the largest size
 * confirmed and the smallest one that failed, until they are within {@value #GRANULARITY} bytes (on this
 * host only the preferred size: the path is known, a failure there is the peer's limit). A size
 * fails after {@value #TRIES} probes without an answer ({@value #INTERVAL} s apart). On a path that can
 * change (off the host: {@code watched}), a budget above the base falls back to the base at once when
 * the message layer sees large packets lost while smaller ones pass ({@link #blackHole}); the size that
 * was lost is then probed first (a loss that was not the path's comes back within a round trip), and a
 * search that completed below the largest size starts again after {@value #RAISE_INTERVAL} s
 * ({@link #raiseAt}, RFC 8899's PMTU_RAISE_TIMER). On this host the path is known and never watched.
 *
 * <p>Sends through the {@link FrameSender} it is given; the connection grows its datagram buffer and
 * tells its session when the budget changes. Time is in seconds. Not thread-safe.
 */
final class SizeProbe {

    /** Size probes a connection sends for one size before it gives the size up (RFC 8899 MAX_PROBES). */
    static final int TRIES = 3;

    /** Seconds between two tries of a size probe. */
    static final double INTERVAL = 0.2;

    /**
     * Seconds after a search that completed below the largest size before a watched connection searches
     * upward again (RFC 8899's PMTU_RAISE_TIMER, 600 s): a path's MTU rarely grows, and a failed probe
     * costs only three keepalives.
     */
    static final double RAISE_INTERVAL = 600;

    /** The search ends when the largest size confirmed and the smallest that failed are this close (bytes). */
    static final int GRANULARITY = 16;

    /** Where the search stands (RFC 8899, 5.2; its ERROR state has no use here: the base is assumed). */
    enum Phase {
        /** Nothing larger than the base to search for. */
        DISABLED,
        /** At the base, waiting for the session's first ask for larger packets. */
        BASE,
        /** Probing a size. */
        SEARCHING,
        /** No size left to probe; a watched connection searches again at {@link #raiseAt}. */
        SEARCH_COMPLETE
    }

    private static final System.Logger LOG = System.getLogger(SizeProbe.class.getName());

    /** The message layer's {@code datagramBudget}: where a connection starts and falls back to. */
    private final int base;
    private final int maxBudget;
    /** The largest datagram the connection sends now. */
    private int budget;
    private Phase phase = Phase.DISABLED;
    /** The largest size the path may carry, as the transport knows it. */
    private int max;
    /** The size probed first (after a black hole: the size that was lost). */
    private int preferred;
    /** The first size probed when a search starts from scratch (the transport's preferred size). */
    private int firstPreferred;
    /** Whether the path can change: large packets are watched for loss, and the search is raised again. */
    private boolean watched;
    /** The smallest size that failed (no answer to {@link #TRIES} probes), or {@code max + 1}. */
    private int failed;
    /** The size probed now (0: none). */
    private int target;
    /** Probes sent for {@link #target} so far; after {@link #TRIES} unanswered, it failed. */
    private int tries;
    /** When the next try (or the failure after the last) is due (+inf: none outstanding). */
    private double next = Double.POSITIVE_INFINITY;
    /** When a completed search starts again upward (+inf: never). */
    private double raiseAt = Double.POSITIVE_INFINITY;
    /** Whether the session asked for larger packets (a search started). */
    private boolean asked;
    private long sent;
    private long answered;
    private long blackHoles;

    /** Starts at {@code budget} bytes; never probes beyond {@code maxBudget}. */
    SizeProbe(int budget, int maxBudget) {
        this.base = budget;
        this.budget = budget;
        this.maxBudget = maxBudget;
    }

    /**
     * The path may carry up to {@code size} bytes and is known to (a peer on this host): probed once the
     * session asks for larger packets, never watched. Ignored when {@code size} is not above the current
     * budget; capped at {@code maxBudget}.
     */
    void discover(int size) {
        discover(size, size, false);
    }

    /**
     * The path may carry up to {@code size} bytes (capped at {@code maxBudget}); {@code preferred} is
     * probed first when it is smaller; {@code watched}: the path can change (large packets are watched
     * for loss, the search is raised again). Nothing to search when {@code size} is not above the budget.
     * Takes effect when no search runs (call before the session asks, or through {@link #restart}).
     */
    void discover(int size, int preferred, boolean watched) {
        this.max = Math.min(size, maxBudget);
        this.firstPreferred = Math.min(preferred, max);
        this.preferred = firstPreferred;
        this.watched = watched;
        this.failed = max + 1;
        this.phase = max > budget ? Phase.BASE : Phase.DISABLED;
    }

    /**
     * The connection moved to another path: the budget is the base again, and the search starts over
     * with the new path's limits (at once when the session had asked for larger packets before).
     * Returns the new budget when it changed (the connection tells its session), else 0.
     */
    int restart(int size, int preferred, boolean watched, double now) {
        int before = budget;
        budget = base;
        target = 0;
        tries = 0;
        next = Double.POSITIVE_INFINITY;
        raiseAt = Double.POSITIVE_INFINITY;
        discover(size, preferred, watched);
        if (asked && phase == Phase.BASE) {
            search(now);
        }
        return before != base ? base : 0;
    }

    /** The largest datagram the connection sends now (bytes). */
    int budget() {
        return budget;
    }

    /** Where the search stands. */
    Phase phase() {
        return phase;
    }

    /** The size probed now (0: none). */
    int target() {
        return target;
    }

    /** Whether the budget is watched for large packets lost (a grown budget on a path that can change). */
    boolean watched() {
        return watched && budget > base;
    }

    /** Whether a search waits for the session's first ask for larger packets: the ask starts it. */
    boolean wanted() {
        return phase == Phase.BASE;
    }

    /** When the next try (or the failure after the last) is due; +inf when none is outstanding. */
    double next() {
        return next;
    }

    /** When a completed search starts again upward; +inf when it does not. */
    double raiseAt() {
        return raiseAt;
    }

    /** A completed search starts again upward, from the budget it has (the raise timer ran out). */
    void raise(double now) {
        if (phase == Phase.SEARCH_COMPLETE && now >= raiseAt) {
            raiseAt = Double.POSITIVE_INFINITY;
            failed = max + 1;
            search(now);
        }
    }

    private void search(double now) {
        phase = Phase.SEARCHING;
        target = candidate();
        tries = 0;
        if (target == 0) {
            complete(now);
        } else {
            next = now;
        }
    }

    /** The next size to probe above the budget, or 0 when none is left. */
    private int candidate() {
        int lo = budget;
        if (preferred > lo && preferred < failed) {
            return preferred;
        }
        if (max > lo && max < failed) {
            return max;
        }
        if (!watched) {
            return 0; // a known path: one size, no search below it
        }
        int hi = Math.min(failed, max + 1);
        return hi - lo > GRANULARITY ? lo + (hi - lo) / 2 : 0;
    }

    private void complete(double now) {
        phase = Phase.SEARCH_COMPLETE;
        target = 0;
        tries = 0;
        next = Double.POSITIVE_INFINITY;
        raiseAt = watched && budget < max ? now + RAISE_INTERVAL : Double.POSITIVE_INFINITY;
    }

    /**
     * What is due at {@code now}: the search starts (the session's first ask), the next try of the
     * target's size goes, or, after the last try's interval, the size failed and the next candidate's
     * first probe goes (or the search completes). A probe goes in a buffer of its own (the session's
     * packets stay where they are composed): the flags byte, then zeros to the size.
     */
    void send(FrameSender out, double now) {
        if (phase == Phase.BASE) {
            asked = true;
            search(now);
        }
        if (phase != Phase.SEARCHING) {
            next = Double.POSITIVE_INFINITY;
            return;
        }
        if (tries >= TRIES) {
            int size = target;
            LOG.log(Level.DEBUG, () -> "connection " + Integer.toHexString(out.salt()) + ": no answer to " + TRIES
                    + " size probes of " + size + " bytes; the datagram budget stays " + budget);
            failed = size;
            target = candidate();
            tries = 0;
            if (target == 0) {
                complete(now);
                return;
            }
        }
        int size = target;
        tries++;
        sent++;
        next = now + INTERVAL;
        ByteBuffer probe = FrameSender.buffer(out.encrypted(), size);
        probe.put(out.headroom(), (byte) Protocol.KEEPALIVE_SIZE_PROBE);
        out.frame(probe, Protocol.KEEPALIVE, out.headroom(), size - Protocol.frameOverhead(out.encrypted()));
    }

    /**
     * A SIZE answer at {@code now}: the peer received {@code size} bytes. When that is the size probed,
     * the budget grows to it, the next candidate is due at once ({@link #next}), and the new budget is
     * returned; else (a late answer to a size given up, or a peer's mistake) 0.
     */
    int answered(int size, double now) {
        int t = target;
        if (phase != Phase.SEARCHING || t == 0 || size != t || tries == 0) {
            return 0;
        }
        budget = t;
        search(now); // the next size up, or done
        return t;
    }

    /**
     * The message layer saw large packets lost while smaller ones pass: a watched budget above the base
     * falls back to the base at once, and the search starts again with the size that was lost, due at
     * once ({@link #next}). Returns the new budget, or 0 when nothing changed (not watched, or at the base).
     */
    int blackHole(double now) {
        if (!watched || budget <= base) {
            return 0;
        }
        int lost = budget;
        blackHoles++;
        LOG.log(Level.DEBUG, () -> "datagrams of " + lost + " bytes seem lost while smaller ones pass: the datagram budget"
                + " falls back to " + base + " and the size is probed again");
        budget = base;
        preferred = lost;
        raiseAt = Double.POSITIVE_INFINITY;
        search(now);
        return base;
    }

    /** The peer's SIZE probe arrived, {@code length} bytes long: the answer names that length. */
    void answer(FrameSender out, int length) {
        answered++;
        out.datagram().putInt(out.headroom() + 1, length); // big-endian, as every connection-layer field
        out.keepalive(Protocol.KEEPALIVE_SIZE_ANSWER, Protocol.KEEPALIVE_SIZE_ANSWER_BODY);
    }

    /** SIZE probes sent. */
    long sent() {
        return sent;
    }

    /** The peer's SIZE probes answered. */
    long answers() {
        return answered;
    }

    /** Times the budget fell back to the base because large packets seemed lost. */
    long blackHoles() {
        return blackHoles;
    }
}
