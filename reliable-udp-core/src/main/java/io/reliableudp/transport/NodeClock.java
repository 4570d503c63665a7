package io.reliableudp.transport;

/**
 * A node's clock: seconds (and milliseconds) since the node started, on {@link System#nanoTime()}.
 * The connections, the lanes' deadlines and the acceptor's cookies all read this one clock; a
 * deadline in its seconds turns back into a {@code System.nanoTime} value with {@link #deadlineNanos}.
 * Immutable, so any thread reads it.
 */
final class NodeClock {

    private final long startNanos = System.nanoTime();

    /** Seconds since the node started. */
    double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** Milliseconds since the node started. */
    long nowMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    /** The clock's origin (System.nanoTime at start). */
    long startNanos() {
        return startNanos;
    }

    /**
     * A deadline in seconds on this clock as System.nanoTime, rounded up; Long.MAX_VALUE for none
     * (+inf, NaN, or beyond ~290 years).
     */
    long deadlineNanos(double deadline) {
        if (deadline == Double.POSITIVE_INFINITY || Double.isNaN(deadline)) {
            return Long.MAX_VALUE;
        }
        double offset = Math.max(0, deadline) * 1e9;
        return offset >= 9.0e18 ? Long.MAX_VALUE : startNanos + (long) Math.ceil(offset);
    }
}
