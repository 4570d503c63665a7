package io.reliableudp.spring.core;

import java.time.Duration;

/**
 * How named peers are connected again after a failed connect or a lost connection: exponential backoff
 * from {@code initialBackoff}, multiplied by {@code multiplier} per failed attempt, capped at
 * {@code maxBackoff}. Sends to a peer inside its backoff window fail at once with
 * {@link io.reliableudp.message.DeliveryFailure#NOT_CONNECTED} instead of starting handshakes.
 *
 * @param initialBackoff wait before the first retry
 * @param maxBackoff longest wait between attempts
 * @param multiplier growth factor per failed attempt (at least 1)
 */
public record ReconnectPolicy(Duration initialBackoff, Duration maxBackoff, double multiplier) {

    /** 200 ms, doubling, at most 10 s. */
    public static final ReconnectPolicy DEFAULT = new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0);

    /** Validates the values. */
    public ReconnectPolicy {
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException("initialBackoff must be > 0, was " + initialBackoff);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff must be >= initialBackoff, was " + maxBackoff);
        }
        if (!(multiplier >= 1 && multiplier <= 100)) {
            throw new IllegalArgumentException("multiplier must be within 1..100, was " + multiplier);
        }
    }

    /**
     * The wait before an attempt.
     *
     * @param failures failed attempts so far (at least 1)
     * @return the backoff
     */
    public Duration backoff(int failures) {
        double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, failures - 1));
        return nanos >= maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos((long) nanos);
    }
}
