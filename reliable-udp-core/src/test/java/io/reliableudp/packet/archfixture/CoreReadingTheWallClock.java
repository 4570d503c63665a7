package io.reliableudp.packet.archfixture;

import java.time.Instant;

/**
 * A deliberately wrong class for {@code WallClockRuleTest}: core code reading the wall clock (a
 * timeout measured this way would fire or never fire when the clock jumps). A test class, so the real
 * scan never sees it.
 */
public final class CoreReadingTheWallClock {

    private CoreReadingTheWallClock() {
    }

    /** The wrong calls: wall-clock time where a monotonic clock ({@code System.nanoTime}) is needed. */
    static long elapsedSince(long startMillis) {
        return System.currentTimeMillis() - startMillis + Instant.now().getNano() * 0L;
    }
}
