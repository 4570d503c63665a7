package io.reliableudp.transport;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The peers of one node that have something to send, for the I/O thread to write ({@code IMMEDIATE}
 * send mode): any thread marks a peer, the I/O thread takes them all at once. Lock-free and
 * allocation-free: an intrusive stack through {@link NodePeer#nextDirty}, a peer in it at most once
 * (its {@link NodePeer#dirty} flag), so a burst of sends to one peer costs one push and one write.
 */
final class DirtyPeers {

    private final AtomicReference<@Nullable NodePeer> head = new AtomicReference<>();

    /**
     * Marks {@code peer} (any thread). Returns true when it was not marked yet (the caller then wakes
     * the I/O thread), false when it already waits for the I/O thread.
     */
    boolean mark(NodePeer peer) {
        if (peer.dirty.get() || !peer.dirty.compareAndSet(false, true)) {
            return false;
        }
        NodePeer h;
        do {
            h = head.get();
            peer.nextDirty = h;
        } while (!head.compareAndSet(h, peer));
        return true;
    }

    /** Whether a peer is marked (a cheap look before {@link #drain}). */
    boolean isEmpty() {
        return head.get() == null;
    }

    /**
     * I/O thread: hands every marked peer to {@code write} and unmarks it first, so a send during or
     * after the write marks it again (it is then written by the next drain, never lost).
     */
    void drain(Consumer<NodePeer> write) {
        NodePeer p = head.getAndSet(null);
        while (p != null) {
            NodePeer next = p.nextDirty;
            p.nextDirty = null;
            p.dirty.set(false);
            write.accept(p);
            p = next;
        }
    }
}
