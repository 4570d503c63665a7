package io.reliableudp.spring.core;

import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.transport.ReliableUdpNode;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The receive pauses of a {@link ManagedReliableUdpNode}: who holds which channel paused (a listener
 * container when its queue is full or it is paused, the application), and the core's pauses kept in
 * line with them: a channel is paused while anyone holds it, across restarts of the node. Thread-safe;
 * never blocks on a listener.
 */
final class ReceivePauses {

    /** Logged as the node, whose pauses these are. */
    private static final Log logger = LogFactory.getLog(ManagedReliableUdpNode.class);

    private final UdpChannels channels;
    /** The running node, or null while it is stopped. */
    private final Supplier<@Nullable ReliableUdpNode> node;
    /** Who holds each channel paused: a channel is paused while anyone does. */
    private final ConcurrentHashMap<Integer, Set<Object>> pauseHolders = new ConcurrentHashMap<>();
    private final AtomicInteger pauseWork = new AtomicInteger();
    private volatile boolean pauseUnsupportedLogged;

    ReceivePauses(UdpChannels channels, Supplier<@Nullable ReliableUdpNode> node) {
        this.channels = channels;
        this.node = node;
    }

    /**
     * Pauses delivery on a channel for every connection ({@link ReliableUdpNode#pauseReceiving}) on
     * behalf of {@code holder}: the channel stays paused while any holder holds it, so a listener
     * container resuming does not undo another's pause. The core holds the channel's messages, in order,
     * against its receive memory limits, and past them stops acknowledging, so the senders' queues fill.
     * Held across a restart of the node. Any thread; never blocks on a listener.
     *
     * @param channel the channel index
     * @param holder who pauses (e.g. a listener container)
     */
    void pause(int channel, Object holder) {
        pauseHolders.computeIfAbsent(channel, c -> ConcurrentHashMap.newKeySet()).add(Objects.requireNonNull(holder, "holder"));
        ReliableUdpNode n = node.get();
        if (n != null) {
            // at once, on the caller's thread (the receive thread when a queue is full), even while another
            // thread applies a resume: a resume that lands after this is undone by the round below
            UdpChannel c = channels.get(channel);
            if (c != null) {
                applyPause(n, c, true);
            }
        }
        apply();
    }

    /**
     * Releases {@code holder}'s pause of a channel; delivery resumes (the held messages first, in order,
     * on the I/O thread) when no holder is left.
     *
     * @param channel the channel index
     * @param holder who paused
     */
    void resume(int channel, Object holder) {
        Set<Object> holders = pauseHolders.get(channel);
        if (holders != null) {
            holders.remove(holder);
        }
        apply();
    }

    /**
     * Whether anyone holds a channel paused.
     *
     * @param channel the channel index
     * @return true while paused
     */
    boolean isPaused(int channel) {
        Set<Object> holders = pauseHolders.get(channel);
        return holders != null && !holders.isEmpty();
    }

    /**
     * Brings the core's pauses in line with the holders: each round sets every channel as its holders
     * say (the core's pause and resume are idempotent). One thread at a time runs the rounds (a caller
     * that finds another running leaves it one more round), so no lock is held while the core is called
     * and the last round always sees the last change.
     */
    void apply() {
        if (pauseWork.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            ReliableUdpNode n = node.get();
            if (n != null) {
                for (UdpChannel c : channels.all()) {
                    applyPause(n, c, isPaused(c.index()));
                }
            }
            missed = pauseWork.addAndGet(-missed);
        } while (missed != 0);
    }

    private void applyPause(ReliableUdpNode n, UdpChannel c, boolean pause) {
        try {
            if (pause) {
                n.pauseReceiving(c.index());
            } else {
                n.resumeReceiving(c.index());
            }
        } catch (UnsupportedOperationException e) {
            if (!pauseUnsupportedLogged) {
                pauseUnsupportedLogged = true;
                logger.warn("the reliable-udp node cannot pause receiving (" + e.getMessage() + "): listener queues are not bounded");
            }
        } catch (RuntimeException e) {
            // a node closing under us: the next node starts unpaused and gets the holders' state
            logger.debug("could not " + (pause ? "pause" : "resume") + " channel '" + c.name() + "': " + e);
        }
    }
}
