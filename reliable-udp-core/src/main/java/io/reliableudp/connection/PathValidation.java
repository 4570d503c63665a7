package io.reliableudp.connection;

import java.security.SecureRandom;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The validation of one new path of a connection (spec 3.7a), as QUIC's (RFC 9000, 8.2): a
 * PATH_CHALLENGE of {@value Protocol#PATH_DATA_BYTES} random bytes, sent again up to {@value #TRIES}
 * times one interval apart, and validated by a PATH_RESPONSE that echoes them; unanswered one interval
 * after the last try, the validation failed. The bytes travel sealed, so only the holder of the
 * session keys who received the challenge can answer it. Knows nothing of addresses: the transport
 * moves the connection and decides what to do with the outcome. Not thread-safe.
 */
final class PathValidation {

    /** Challenges sent for one path before it is given up. */
    static final int TRIES = 3;

    private static final SecureRandom RANDOM = new SecureRandom();

    private final double interval;
    private final byte[] data = new byte[Protocol.PATH_DATA_BYTES];
    private boolean pending;
    private int sent;
    private double nextAt = Double.POSITIVE_INFINITY;

    /** Challenges {@code interval} seconds apart. */
    PathValidation(double interval) {
        this.interval = interval;
    }

    /** Starts a validation (forgetting one in progress): fresh bytes; the caller sends the first challenge. */
    byte[] start(double now) {
        RANDOM.nextBytes(data);
        pending = true;
        sent = 1;
        nextAt = now + interval;
        return data;
    }

    /** Stops a validation in progress without an outcome (the connection went back to a validated path). */
    void abandon() {
        pending = false;
        nextAt = Double.POSITIVE_INFINITY;
    }

    boolean pending() {
        return pending;
    }

    /** When {@link #due} has something to do (+inf: nothing pending). */
    double next() {
        return nextAt;
    }

    /** What is due at {@code now}: null, the bytes to send again, or {@link #FAILED} (the validation ended). */
    byte @Nullable [] due(double now) {
        if (!pending || now < nextAt) {
            return null;
        }
        if (sent >= TRIES) {
            abandon();
            return FAILED;
        }
        sent++;
        nextAt = now + interval;
        return data;
    }

    /** The answer of {@link #due} when the last challenge went unanswered. */
    static final byte[] FAILED = new byte[0];

    /** A PATH_RESPONSE body: true (and the validation done) when it echoes the pending challenge. */
    boolean answered(byte[] body, int offset, int length) {
        if (!pending || length < Protocol.PATH_DATA_BYTES
                || !Arrays.equals(body, offset, offset + Protocol.PATH_DATA_BYTES, data, 0, Protocol.PATH_DATA_BYTES)) {
            return false;
        }
        abandon();
        return true;
    }
}
