package io.reliableudp.transport;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * When each peer of one node next wants its message layer updated ({@code IMMEDIATE} send mode:
 * resend deadlines, the ack delay, pacing): a binary min-heap of peers keyed by deadline
 * (System.nanoTime), each peer knowing its index, so a change costs O(log n) and the I/O loop finds
 * the earliest deadline of all peers in O(1), however many peers the node has. I/O thread only;
 * allocation-free except when it grows.
 */
final class PeerTimers<T extends PeerTimers.Entry> {

    /**
     * What the heap keeps per entry, in the entry itself (so the heap allocates nothing per entry): its
     * index in the heap and its deadline. A peer is one (its message-layer deadline), and so is its
     * housekeeping slot in the lane's second heap.
     */
    abstract static class Entry {
        private int timerIndex = -1;
        private long deadlineNanos = Long.MAX_VALUE;

        /** Index in the heap, -1 when not in it. */
        final int timerIndex() {
            return timerIndex;
        }

        final void timerIndex(int index) {
            timerIndex = index;
        }

        /** The deadline (System.nanoTime) while in the heap. */
        final long deadlineNanos() {
            return deadlineNanos;
        }

        final void deadlineNanos(long deadline) {
            deadlineNanos = deadline;
        }
    }

    private Entry[] heap = new Entry[16];
    private int size;

    /** Sets (or, with Long.MAX_VALUE, clears) {@code peer}'s deadline. */
    void schedule(T peer, long deadline) {
        int i = peer.timerIndex();
        if (deadline == Long.MAX_VALUE) {
            if (i >= 0) {
                removeAt(i);
            }
            return;
        }
        if (i < 0) {
            if (size == heap.length) {
                heap = Arrays.copyOf(heap, size * 2);
            }
            peer.deadlineNanos(deadline);
            heap[size] = peer;
            peer.timerIndex(size);
            up(size++);
            return;
        }
        long old = peer.deadlineNanos();
        peer.deadlineNanos(deadline);
        if (deadline - old < 0) {
            up(i);
        } else if (deadline != old) {
            down(i);
        }
    }

    /** The earliest deadline, or Long.MAX_VALUE when no peer has one. */
    long earliest() {
        return size == 0 ? Long.MAX_VALUE : heap[0].deadlineNanos();
    }

    /** Removes and returns the peer with the earliest deadline when it is at or before {@code now}, else null. */
    @Nullable T pollDue(long now) {
        if (size == 0 || heap[0].deadlineNanos() - now > 0) {
            return null;
        }
        @SuppressWarnings("unchecked")
        T p = (T) heap[0];
        removeAt(0);
        return p;
    }

    int size() {
        return size;
    }

    private void removeAt(int i) {
        Entry gone = heap[i];
        gone.timerIndex(-1);
        int last = --size;
        if (i != last) {
            Entry moved = heap[last];
            heap[i] = moved;
            moved.timerIndex(i);
            heap[last] = null;
            up(i);
            down(moved.timerIndex());
        } else {
            heap[last] = null;
        }
    }

    private void up(int i) {
        Entry p = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Entry q = heap[parent];
            if (p.deadlineNanos() - q.deadlineNanos() >= 0) {
                break;
            }
            heap[i] = q;
            q.timerIndex(i);
            i = parent;
        }
        heap[i] = p;
        p.timerIndex(i);
    }

    private void down(int i) {
        Entry p = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].deadlineNanos() - heap[child].deadlineNanos() < 0) {
                child = right;
            }
            Entry c = heap[child];
            if (p.deadlineNanos() - c.deadlineNanos() <= 0) {
                break;
            }
            heap[i] = c;
            c.timerIndex(i);
            i = child;
        }
        heap[i] = p;
        p.timerIndex(i);
    }
}
