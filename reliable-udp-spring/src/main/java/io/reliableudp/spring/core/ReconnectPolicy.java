package io.reliableudp.spring.core;

import java.time.Duration;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * How named peers are connected again after a failed connect or a lost connection: exponential backoff
 * from {@code initialBackoff}, multiplied by {@code multiplier} per failed attempt, capped at
 * {@code maxBackoff}, each wait moved by a random jitter ({@link #start()}). Sends to a peer inside its backoff window fail at once with
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
     * A new sequence of waits for one peer: Spring's {@link ExponentialBackOff} over these values, with
     * a jitter of half the initial backoff (scaled with the multiplier), so that peers that lost a server
     * at the same moment do not retry in lockstep when it comes back. The sequence never stops.
     *
     * @return the waits, in milliseconds, one per failed attempt
     */
    public BackOffExecution start() {
        ExponentialBackOff b = new ExponentialBackOff(Math.max(1, initialBackoff.toMillis()), multiplier);
        b.setMaxInterval(Math.max(1, maxBackoff.toMillis()));
        b.setJitter(Math.max(1, initialBackoff.toMillis() / 2));
        return b.start();
    }

    /**
     * The wait before an attempt, without jitter (the middle of the range {@link #start()} draws from).
     *
     * @param failures failed attempts so far (at least 1)
     * @return the backoff
     */
    public Duration backoff(int failures) {
        double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, failures - 1));
        return nanos >= maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos((long) nanos);
    }
}
