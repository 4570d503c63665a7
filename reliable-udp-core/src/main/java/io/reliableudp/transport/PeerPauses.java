package io.reliableudp.transport;

import io.reliableudp.connection.Session;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The receive pauses of one peer ({@link Peer#pauseReceiving}), one bit per channel: the channels
 * paused on the peer (any thread, atomically), joined with those paused on the whole node, against
 * the ones its session was told of (under the peer's lock). A pause is told at once; a resume only on
 * the lane's thread, which then delivers the held messages in order with the rest.
 */
final class PeerPauses {

    /** Channels paused on this peer. Any thread. */
    private final AtomicLong paused = new AtomicLong();
    /** Channels paused on the whole node. */
    private final LongSupplier nodePaused;
    /** The paused channels the session knows of; under the peer's lock. */
    private long applied;

    PeerPauses(LongSupplier nodePaused) {
        this.nodePaused = nodePaused;
    }

    /** Pauses {@code bit}'s channel on the peer; returns whether that changed anything. Any thread. */
    boolean pause(long bit) {
        return (paused.getAndUpdate(m -> m | bit) & bit) == 0;
    }

    /** Resumes {@code bit}'s channel on the peer; returns whether that changed anything. Any thread. */
    boolean resume(long bit) {
        return (paused.getAndUpdate(m -> m & ~bit) & bit) != 0;
    }

    /** The channels paused on the peer or on the whole node. */
    private long wanted() {
        return paused.get() | nodePaused.getAsLong();
    }

    /** Whether {@code channel} is paused now (on the peer or the node). Any thread. */
    boolean paused(int channel) {
        return ((wanted() >>> channel) & 1) != 0;
    }

    /** Whether the session was told that {@code channel} is paused. Under the lock. */
    boolean applied(int channel) {
        return ((applied >>> channel) & 1) != 0;
    }

    /** Whether the session's pauses are not those wanted (two reads). Under the lock. */
    boolean outOfDate() {
        return wanted() != applied;
    }

    /**
     * Under the lock: tells {@code session} of the pauses it does not know yet, and of the resumes when
     * on the lane's thread ({@code ioThread}). Returns whether a resume is left for the lane's thread.
     */
    boolean apply(@Nullable Session session, boolean ioThread) {
        long want = wanted();
        long have = applied;
        if (want == have) {
            return false;
        }
        if (session == null) {
            return false; // applied once the connection has its message layer
        }
        long pause = want & ~have;
        for (long m = pause; m != 0; m &= m - 1) {
            session.pauseReceiving(Long.numberOfTrailingZeros(m));
        }
        long resume = have & ~want;
        if (resume != 0 && !ioThread) {
            applied = have | pause;
            return true;
        }
        applied = want;
        for (long m = resume; m != 0; m &= m - 1) {
            session.resumeReceiving(Long.numberOfTrailingZeros(m));
        }
        return false;
    }
}
