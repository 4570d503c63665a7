package io.reliableudp.spring.listener;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The bound on what one listener container holds, and the pause of its channels in the node: it counts
 * the messages in hand (queued for the listener or running in it), pauses the channels at the bound on
 * the receive thread and resumes them at half of it on a listener thread, and holds them paused while a
 * pause is requested or the container is stopped. The node does the holding (and, past its receive
 * memory limits, stops acknowledging), so a slow listener slows its senders instead of growing the heap.
 * Logs under the container's name.
 */
final class ListenerBackPressure {

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);

    private final String id;
    private final ManagedReliableUdpNode node;
    /** The channels paused in the node: the container's own, or every channel when it listens on all. */
    private final int[] channels;
    /** The key the node's pause is held under (the container), so several holders of a channel do not undo each other. */
    private final Object holder;
    private final AtomicInteger inHand = new AtomicInteger();
    private final AtomicInteger maxInHand = new AtomicInteger();
    private final AtomicInteger pauseWork = new AtomicInteger();
    private final LongAdder pauses = new LongAdder();
    private volatile int maxQueuedMessages = UdpMessageListenerContainer.DEFAULT_MAX_QUEUED_MESSAGES;
    // set by the receive thread at the bound (pauseNow), cleared by applyPauseOnce (one thread at a time)
    private volatile boolean queueFull;
    private volatile boolean pauseApplied;
    private volatile boolean pauseRequested;
    /** Set by the container's stop(), cleared by its start(): a stopped container keeps its channels paused. */
    private volatile boolean stoppedHold;

    ListenerBackPressure(String id, ManagedReliableUdpNode node, int[] channels, Object holder) {
        this.id = id;
        this.node = node;
        this.channels = channels;
        this.holder = holder;
    }

    void setMaxQueuedMessages(int maxQueuedMessages) {
        if (maxQueuedMessages < 1) {
            throw new IllegalArgumentException("listener '" + id + "': maxQueuedMessages must be >= 1, was " + maxQueuedMessages);
        }
        this.maxQueuedMessages = maxQueuedMessages;
    }

    int maxQueuedMessages() {
        return maxQueuedMessages;
    }

    /**
     * A message was taken (receive thread): counted in hand.
     *
     * @return the messages in hand now, for {@link #queued(int)}
     */
    int take() {
        int n = inHand.incrementAndGet();
        if (n > maxInHand.get()) {
            maxInHand.accumulateAndGet(n, Math::max);
        }
        return n;
    }

    /** The message taken is queued for the listener (receive thread): at the bound the channels pause at once. */
    void queued(int n) {
        if (n >= maxQueuedMessages) {
            pauseNow(n);
        }
    }

    /** A message taken could not be queued after all: no longer in hand (the executor refused it). */
    void untaken() {
        inHand.decrementAndGet();
    }

    /** A message in hand was handled (listener thread): at half of the bound the channels resume. */
    void released() {
        int n = inHand.decrementAndGet();
        if (queueFull && n <= resumeAt()) {
            update();
        }
    }

    int inHand() {
        return inHand.get();
    }

    int maxInHand() {
        return maxInHand.get();
    }

    long pauseCount() {
        return pauses.sum();
    }

    void requestPause(boolean requested) {
        pauseRequested = requested;
        update();
    }

    boolean isPauseRequested() {
        return pauseRequested;
    }

    boolean isPaused() {
        return pauseApplied;
    }

    /** Sets the hold of a stopped container; the caller applies it with {@link #update()}. */
    void setStoppedHold(boolean hold) {
        stoppedHold = hold;
    }

    private int resumeAt() {
        return maxQueuedMessages / 2;
    }

    /**
     * The queue is at its bound: pauses the channels in the node at once, on the receive thread (so the
     * core holds the channel's next message already), never waiting for a resume in progress on a
     * listener thread; repeated for each message that still comes (the pause is idempotent), so a resume
     * that lands after it is undone by the next message. The resume is {@link #update()}'s.
     */
    private void pauseNow(int n) {
        if (!queueFull) {
            queueFull = true;
            pauses.increment();
            if (logger.isDebugEnabled()) {
                logger.debug("listener '" + id + "' has " + n + " messages in hand; pausing its channels");
            }
        }
        pauseApplied = true;
        for (int channel : channels) {
            node.pauseReceiving(channel, holder);
        }
    }

    /**
     * Brings the node's pause of the channels in line with what is wanted (queue at its bound, until half
     * of it; pause requested; stopped). One thread at a time applies (the receive thread pausing, a
     * listener thread resuming); a caller that finds another applying leaves it one more round, so the
     * calls reach the node in order and no lock is held while it is called.
     */
    void update() {
        if (pauseWork.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            while (applyOnce()) {
                // once more with the count as it is after this change: a listener thread that finished a
                // task meanwhile read the old state and left the resume to us
            }
            missed = pauseWork.addAndGet(-missed);
        } while (missed != 0);
    }

    private boolean applyOnce() {
        int n = inHand.get();
        boolean full = queueFull;
        if (full && n <= resumeAt()) {
            full = false;
            queueFull = false;
        } else if (!full && n >= maxQueuedMessages) {
            full = true;
            queueFull = true;
            pauses.increment();
        }
        boolean want = full || pauseRequested || stoppedHold;
        if (want == pauseApplied) {
            return false;
        }
        pauseApplied = want;
        for (int channel : channels) {
            if (want) {
                node.pauseReceiving(channel, holder);
            } else {
                node.resumeReceiving(channel, holder);
            }
        }
        return true;
    }
}
