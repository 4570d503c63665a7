package io.reliableudp.connection;

import java.util.Arrays;

/**
 * The 256-entry replay window of netcode: a sequence is refused when it is older than the window or
 * already seen in its slot. Check with {@link #alreadyReceived} before decrypting, and call
 * {@link #advance} only after the packet authenticated (so forged sequences cannot move the window).
 */
final class ReplayWindow {

    /** Number of remembered sequences. */
    public static final int SIZE = 256;
    private static final long EMPTY = -1L;

    private final long[] received = new long[SIZE];
    private long mostRecent;

    /** An empty window. */
    public ReplayWindow() {
        Arrays.fill(received, EMPTY);
    }

    /** True when {@code sequence} must be dropped as a replay (or as too old to tell). */
    public boolean alreadyReceived(long sequence) {
        if (sequence < 0) {
            return true; // 2^63 packets never happen: treat as forged
        }
        if (sequence + SIZE <= mostRecent) {
            return true;
        }
        long slot = received[(int) (sequence & (SIZE - 1))];
        return slot != EMPTY && slot >= sequence;
    }

    /** Records an authenticated sequence. */
    public void advance(long sequence) {
        if (sequence > mostRecent) {
            mostRecent = sequence;
        }
        received[(int) (sequence & (SIZE - 1))] = sequence;
    }

    /** The highest sequence recorded. */
    public long mostRecent() {
        return mostRecent;
    }
}
