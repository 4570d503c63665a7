package io.reliableudp.transport;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The peers of one node that have something to send, for the I/O thread to write ({@code IMMEDIATE}
 * send mode): any thread marks a peer, the I/O thread takes them all at once. Lock-free and
 * allocation-free: an intrusive stack through {@link PeerDriver#nextDirty}, a peer in it at most once
 * (its {@link PeerDriver#dirty} flag), so a burst of sends to one peer costs one push and one write.
 */
final class DirtyPeers {

    private final AtomicReference<@Nullable PeerDriver> head = new AtomicReference<>();

    /**
     * Marks {@code peer} (any thread). Returns true when the caller must wake the I/O thread: the peer
     * was not marked yet, or only quietly ({@link #markQuietly}); false when it already waits for the
     * I/O thread, which was asked.
     */
    boolean mark(PeerDriver peer) {
        if (peer.dirty.get() || !peer.dirty.compareAndSet(false, true)) {
            // marked already: the I/O thread was asked, unless the mark was a quiet one
            if (peer.quietMark) {
                peer.quietMark = false;
                return true;
            }
            return false;
        }
        push(peer);
        return true;
    }

    /**
     * Marks {@code peer} for the I/O thread's next turn without asking for a wake-up (its caller wrote
     * what was queued and leaves only timers that turn takes over; under the peer's lock). The quiet flag
     * goes first: a {@link #mark} that then finds the peer marked sees it and wakes the thread after all.
     */
    void markQuietly(PeerDriver peer) {
        peer.quietMark = true;
        if (!peer.dirty.get() && peer.dirty.compareAndSet(false, true)) {
            push(peer);
        }
    }

    private void push(PeerDriver peer) {
        PeerDriver h;
        do {
            h = head.get();
            peer.nextDirty = h;
        } while (!head.compareAndSet(h, peer));
    }

    /** Whether a peer is marked (a cheap look before {@link #drain}). */
    boolean isEmpty() {
        return head.get() == null;
    }

    /**
     * I/O thread: hands every marked peer to {@code write} and unmarks it first, so a send during or
     * after the write marks it again (it is then written by the next drain, never lost).
     */
    void drain(Consumer<PeerDriver> write) {
        PeerDriver p = head.getAndSet(null);
        while (p != null) {
            PeerDriver next = p.nextDirty;
            p.nextDirty = null;
            p.quietMark = false; // before the unmark: a mark after it pushes the peer again, and wakes
            p.dirty.set(false);
            write.accept(p);
            p = next;
        }
    }
}
