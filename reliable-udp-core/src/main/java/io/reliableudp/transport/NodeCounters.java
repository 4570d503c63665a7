package io.reliableudp.transport;

import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one node (datagrams and bytes each way, drops by reason, handshake failures by
 * reason, connections opened, listener and send errors), updated from any thread without locks, and
 * their {@link NodeStats} snapshot. Drops of datagrams that are not ours (malformed, too large, from
 * an unknown sender, over the handshake budget) are also logged, rate-limited: one line per
 * {@link #REPORT_INTERVAL_NANOS} at most with the counts since the last one (WARNING from
 * {@link #FLOOD_REPORT_MIN} on, DEBUG below), so a flood is visible in
 * the log without one line (or one allocation) per datagram.
 */
final class NodeCounters {

    private static final System.Logger LOG = System.getLogger(NodeCounters.class.getName());

    final LongAdder datagramsSent = new LongAdder();
    final LongAdder datagramsReceived = new LongAdder();
    final LongAdder bytesSent = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder connectionsOpened = new LongAdder();
    final LongAdder listenerErrors = new LongAdder();
    final LongAdder sendErrors = new LongAdder();
    /** Datagrams of a peer read by another lane's socket than the peer's own (io-threads above 1). */
    final LongAdder otherLane = new LongAdder();
    /** Connections moved to a new, validated address of their peer. */
    final LongAdder migrations = new LongAdder();
    /** Path validations that got no answer (the connection went back to its validated address). */
    final LongAdder pathValidationsFailed = new LongAdder();
    /** Datagrams not sent to an address being validated because of the amplification limit. */
    final LongAdder amplificationLimited = new LongAdder();
    private final AtomicLongArray drops = new AtomicLongArray(DropReason.values().length);
    /** Rate limit of the drop report. */
    static final long REPORT_INTERVAL_NANOS = 10_000_000_000L;
    /** Foreign drops in one report from which it is a WARNING. */
    static final long FLOOD_REPORT_MIN = 100;
    private final AtomicLong nextReport = new AtomicLong(System.nanoTime());
    /** The drop counts at the last report. */
    private final long[] reported = new long[DropReason.values().length];
    private final AtomicLongArray handshakeFailures = new AtomicLongArray(HandshakeFailure.values().length);

    void received(int length) {
        datagramsReceived.increment();
        bytesReceived.add(length);
    }

    void sent(int length) {
        datagramsSent.increment();
        bytesSent.add(length);
    }

    void drop(DropReason reason) {
        drops.incrementAndGet(reason.ordinal());
        if (LOG.isLoggable(Level.TRACE)) {
            // not a supplier lambda: capturing the reason would allocate one for every garbage datagram
            LOG.log(Level.TRACE, "dropped a datagram: " + reason.key());
        }
        if (foreign(reason)) {
            long now = System.nanoTime();
            long next = nextReport.get();
            if (now - next >= 0 && nextReport.compareAndSet(next, now + REPORT_INTERVAL_NANOS)) {
                report();
            }
        }
    }

    /** Drops of datagrams that are not (or not yet) a peer's: what a flood produces. */
    private static boolean foreign(DropReason reason) {
        return switch (reason) {
            case MALFORMED, TOO_LARGE, UNKNOWN_SENDER, RATE_LIMITED, SOURCE_RATE_LIMITED -> true;
            default -> false;
        };
    }

    /** One WARNING with the foreign drops since the last one (the caller won the rate limit's CAS). */
    private synchronized void report() {
        StringBuilder b = new StringBuilder("dropped datagrams that are not ours since the last report:");
        long total = 0;
        for (DropReason r : DropReason.values()) {
            if (!foreign(r)) {
                continue;
            }
            long now = drops.get(r.ordinal());
            long delta = now - reported[r.ordinal()];
            reported[r.ordinal()] = now;
            if (delta > 0) {
                b.append(' ').append(r.key()).append('=').append(delta);
                total += delta;
            }
        }
        if (total > 0) {
            // a stray late datagram is normal; a hundred in one interval is someone else's traffic
            LOG.log(total >= FLOOD_REPORT_MIN ? Level.WARNING : Level.DEBUG,
                    b.append(" (next report in 10 s at the earliest; counts in NodeStats.dropped)").toString());
        }
    }

    void failure(HandshakeFailure failure) {
        handshakeFailures.incrementAndGet(failure.ordinal());
        LOG.log(Level.DEBUG, () -> "handshake failed: " + failure.key());
    }

    NodeStats snapshot(int peers, io.reliableudp.message.ReceivePool pool) {
        Map<String, Long> dropped = new LinkedHashMap<>();
        for (DropReason r : DropReason.values()) {
            long v = drops.get(r.ordinal());
            if (v > 0) {
                dropped.put(r.key(), v);
            }
        }
        Map<String, Long> failures = new LinkedHashMap<>();
        for (HandshakeFailure f : HandshakeFailure.values()) {
            long v = handshakeFailures.get(f.ordinal());
            if (v > 0) {
                failures.put(f.key(), v);
            }
        }
        return new NodeStats(datagramsSent.sum(), datagramsReceived.sum(), bytesSent.sum(), bytesReceived.sum(),
                Map.copyOf(dropped), Map.copyOf(failures), peers, connectionsOpened.sum(), listenerErrors.sum(),
                pool.heldBytes(), pool.refusals(), migrations.sum(), pathValidationsFailed.sum());
    }
}
