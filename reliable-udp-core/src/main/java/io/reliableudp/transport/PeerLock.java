package io.reliableudp.transport;

import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.SendCompletion;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One peer's lock ({@link PeerDriver#lock}), and the send futures the message layer completed while it
 * was held: every call into the peer's connection holds it, whichever thread makes it. The message
 * layer tells a send's end under the lock; the future ({@link DeliveryFuture}) only joins this lock's
 * list, and {@link #unlock()} completes the list once the outermost hold ends, outside the lock: a
 * callback chained to one (without {@code ...Async}) may send to or disconnect any peer, this one
 * included, without holding this peer's lock while it waits for another's. The list is guarded by the
 * lock itself.
 */
final class PeerLock {

    private final ReentrantLock lock = new ReentrantLock();
    /** Futures the message layer completed under the lock, completed by {@link #unlock()} after it (under lock). */
    private @Nullable DeliveryFuture doneHead;
    private @Nullable DeliveryFuture doneTail;

    void lock() {
        lock.lock();
    }

    /**
     * Releases the lock. When the outermost hold ends, the futures the message layer completed
     * meanwhile complete now, on this thread, outside the lock.
     */
    void unlock() {
        DeliveryFuture done = null;
        if (lock.getHoldCount() == 1) {
            done = doneHead;
            doneHead = null;
            doneTail = null;
        }
        lock.unlock();
        while (done != null) {
            DeliveryFuture next = done.nextDone;
            done.nextDone = null;
            done.fire();
            done = next;
        }
    }

    /**
     * Releases the lock without completing futures (the next {@link #unlock()} does): for a hold that
     * only reads (an identity) or runs inside another critical section (the acceptor's), where no
     * callback of the application should run.
     */
    void release() {
        lock.unlock();
    }

    boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    /** Under the lock: a future whose outcome is known, completed by {@link #unlock()}. */
    private void completeAfterUnlock(DeliveryFuture f) {
        DeliveryFuture tail = doneTail;
        if (tail == null) {
            doneHead = f;
        } else {
            tail.nextDone = f;
        }
        doneTail = f;
    }

    /**
     * The future a send returns, completed by the message layer as the {@link SendCompletion} of its
     * message: with the public {@link Delivery}, or with the {@link DeliveryException}. The message
     * layer tells it under the peer's lock: it only notes the outcome and joins the lock's list of
     * futures to complete, which {@link #unlock()} completes once the lock is released (a list through
     * the futures themselves: nothing allocated).
     */
    static final class DeliveryFuture extends CompletableFuture<Delivery> implements SendCompletion {
        private final PeerLock owner;
        private final InetSocketAddress address;
        private final boolean acknowledged;
        private int channel;
        private int messageId;
        private @Nullable DeliveryException failure;
        /** Whether the message layer told this message's end (it must, exactly once). */
        private boolean told;
        /** The next future of the owner's list (under the owner's lock). */
        @Nullable DeliveryFuture nextDone;

        DeliveryFuture(PeerLock owner, InetSocketAddress address, boolean acknowledged) {
            this.owner = owner;
            this.address = address;
            this.acknowledged = acknowledged;
        }

        @Override
        public void delivered(int channel, int messageId) {
            if (told()) {
                this.channel = channel;
                this.messageId = messageId;
                later();
            }
        }

        @Override
        public void failed(DeliveryException failure) {
            if (told()) {
                this.failure = failure;
                later();
            }
        }

        /** Whether this is the first time the message's end is told; a second time is a defect, counted. */
        private boolean told() {
            if (told) {
                REPEATED_COMPLETIONS.increment();
                return false;
            }
            told = true;
            return true;
        }

        private void later() {
            if (owner.isHeldByCurrentThread()) {
                owner.completeAfterUnlock(this);
            } else {
                fire();
            }
        }

        /** Completes the future (outside the owner's lock). */
        void fire() {
            DeliveryException f = failure;
            if (f != null) {
                completeExceptionally(f);
            } else {
                complete(new Delivery(address, channel, messageId, acknowledged));
            }
        }
    }

    /**
     * Second tellings of a send's end, in this JVM: 0 unless a defect tells a message's end twice. A
     * {@code CompletableFuture} ignores a second completion (it returns false), so without
     * this count "every send future ends exactly once" could break unseen; the tests assert it stays 0
     * ({@code SendFuturesEndOnce}). Costs nothing on the normal path: the increment runs only on the
     * defect's.
     */
    static final LongAdder REPEATED_COMPLETIONS = new LongAdder();
}
