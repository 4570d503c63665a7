package io.reliableudp.message;

/**
 * The one loss verdict: decides that a data packet was lost, from the acks (fast recovery) or at the
 * loss timeout, records it once in the {@link PacketLog} (which the loss estimate, the bytes in flight
 * and the congestion controller read) and, with fast recovery on, marks the reliable messages and
 * slices the packet was the last to carry due for a resend at once.
 *
 * <p>The rule is time-based, after RACK (RFC 8985): an unacknowledged data packet {@code P} is lost
 * when a packet sent at least a reorder window after it has been acknowledged. The peer's ack header
 * is cumulative (the latest sequence and 32 bits for the ones before), so when that ack arrives the
 * peer had not received {@code P} although it was sent a window earlier: {@code P} would have to be
 * overtaken by more than the window. Packets sent closer together than the window (one send round's)
 * wait for the next later packet's ack, or for the resend timer when nothing follows (tail loss).
 * Unlike RACK's own timer ({@code P.sendTime + rtt + window}), the verdict never depends on how long
 * an ack took, so jitter on the way back (which delays acks, not data) is never taken for loss. The
 * reorder window is a quarter of the min RTT (RACK's, at least 1 ms, at most the smoothed RTT),
 * widened by one step each time a packet declared lost is acknowledged after all (a spurious loss),
 * and narrowed by one step after 16 losses without one.
 *
 * <p>What the acks never condemn (the tail of a burst, an outage) is declared lost by the timeout
 * walk ({@link #onTimer}) once it is older than the loss timeout ({@code max(1 s, 2 srtt + 100 ms)}).
 * Only a verdict from the acks is loss evidence for the congestion controller: a packet that times out
 * says nothing about the rate the path takes (no ack came at all), and the timer resends its messages.
 *
 * <p>Each packet is declared lost at most once, and a message is marked only when the lost packet
 * was the last one to carry it (a later copy is judged on its own packet), so a message is never
 * resent twice for the same evidence. Run after a received packet's acks were all taken (the packet
 * layer reports one header's acks newest first, so checking between them would see false holes).
 *
 * <p>Allocation-free: a cursor over the {@link PacketLog}'s ring.
 */
final class LossDetector {

    /** Smallest reorder window. */
    static final double MIN_REORDER_WINDOW_SECONDS = 0.001;
    /** Losses declared without a spurious one after which the reorder window narrows by a step. */
    static final int LOSSES_PER_NARROWING = 16;
    /** Most reorder-window steps (the smoothed RTT caps the window before this in practice). */
    static final int MAX_WINDOW_STEPS = 64;

    private final PacketLog log;
    private final SendChannel[] channels;
    private final int channelCount;
    private final int ringSize;
    /** Whether a loss from the acks marks what it carried due (fast recovery); the verdict runs either way. */
    private final boolean fastRecovery;

    /** Sequence and send time of the most recently sent packet acknowledged so far. */
    private boolean rackSet;
    private int rackSeq;
    private double rackSendTime;

    /** The oldest sequence not yet settled (acknowledged, declared lost, or not a data packet). */
    private int cursor;
    /** The oldest sequence the timeout walk has not settled yet. */
    private int timeoutCursor;
    private boolean timeoutCursorSet;

    private int windowSteps = 1;
    private int lossesSinceSpurious;

    private long packetsDeclaredLost;
    private long spuriousLosses;

    LossDetector(PacketLog log, SendQueue queue, int ringSize, boolean fastRecovery, int firstSequence) {
        this.log = log;
        this.channels = queue.channels;
        this.channelCount = channels.length;
        this.ringSize = ringSize;
        this.fastRecovery = fastRecovery;
        this.cursor = firstSequence & 0xFFFF;
    }

    /** The packet {@code sequence} was acknowledged (call after the log took the ack). */
    void onAck(int sequence) {
        int slot = log.slotOf(sequence);
        if (slot < 0) {
            return;
        }
        if (log.isDeclaredLost(slot)) {
            // it arrived after all: it was reordered or delayed beyond the window, so widen it
            spuriousLosses++;
            lossesSinceSpurious = 0;
            if (windowSteps < MAX_WINDOW_STEPS) {
                windowSteps++;
            }
        }
        if (!rackSet || newer(sequence, rackSeq)) {
            rackSet = true;
            rackSeq = sequence;
            rackSendTime = log.sendTimeOf(slot);
        }
    }

    /**
     * Declares lost every data packet the acks taken so far condemn and, with fast recovery, marks what
     * it carried due; {@code nextSequence} is the sequence the next packet will get, {@code time} now.
     */
    void detect(int nextSequence, double time) {
        if (!rackSet) {
            return;
        }
        if (((nextSequence - cursor) & 0xFFFF) > ringSize) {
            // fell behind the ring (a long silence of acks): what is older is the loss timeout's business
            cursor = (nextSequence - ringSize) & 0xFFFF;
        }
        double window = reorderWindowSeconds();
        while (newer(rackSeq, cursor)) {
            int slot = log.slotOf(cursor);
            if (slot >= 0 && log.carriesData(slot) && !log.isAcked(slot) && !log.isDeclaredLost(slot)) {
                if (rackSendTime - log.sendTimeOf(slot) < window) {
                    // later packets were sent later still: none of them qualifies before this one
                    return;
                }
                declareLost(slot, cursor, time);
            }
            cursor = (cursor + 1) & 0xFFFF;
        }
    }

    private void declareLost(int slot, int seq, double time) {
        if (!log.declareLost(slot, time, true)) {
            return;
        }
        packetsDeclaredLost++;
        if (++lossesSinceSpurious >= LOSSES_PER_NARROWING) {
            lossesSinceSpurious = 0;
            if (windowSteps > 1) {
                windowSteps--;
            }
        }
        if (!fastRecovery) {
            return;
        }
        int n = log.entryCount(slot);
        for (int k = 0; k < n; k++) {
            mark(log.entryAt(slot, k), seq);
        }
    }

    /**
     * The timeout walk, at most at the send rate: every packet older than the loss timeout is settled,
     * and a data packet the acks neither acknowledged nor condemned is declared lost now (without
     * resend marks: its messages are the resend timer's, which has run long before).
     */
    void onTimer(double time, int nextSequence) {
        if (!timeoutCursorSet) {
            timeoutCursor = nextSequence;
            timeoutCursorSet = true;
            return;
        }
        double timeout = log.lossTimeout();
        int size = log.capacity();
        if (((nextSequence - timeoutCursor) & 0xFFFF) > size) {
            // older ones were settled when their slots were reused
            timeoutCursor = (nextSequence - size) & 0xFFFF;
        }
        while (timeoutCursor != nextSequence) {
            int slot = log.slotOf(timeoutCursor);
            if (slot >= 0) {
                if (time - log.sendTimeOf(slot) < timeout) {
                    break;
                }
                log.declareLost(slot, time, false); // neither acknowledged nor condemned by the acks: an outage, or a lost tail
                log.settle(slot);
            }
            timeoutCursor = (timeoutCursor + 1) & 0xFFFF;
        }
    }

    /** Marks the message or slice of one entry of the lost packet {@code seq} due, if that packet was its last carrier. */
    private void mark(long e, int seq) {
        int c = PacketLog.channelOf(e);
        if (c >= channelCount) {
            return;
        }
        SendChannel ch = channels[c];
        if (PacketLog.isSkip(e)) {
            if (ch.skipState == SendChannel.SKIP_SENT && ch.skipSeq == seq) {
                ch.skipState = SendChannel.SKIP_DUE; // its packet was lost: the next packet carries it
            }
            return;
        }
        if (!ch.reliable) {
            return;
        }
        int id = PacketLog.idOf(e);
        int d = ch.sentOffset(id);
        if (d < 0) {
            return;
        }
        int i = (ch.tail + d) & ch.mask;
        LargeSend ls = ch.large[i];
        if (PacketLog.isSlice(e)) {
            int s = PacketLog.sliceOf(e);
            if (ls == null || s < 0 || s >= ls.nextUnsent || ls.acked.get(s) || ls.lastSeq[s] != seq) {
                return;
            }
            ls.fastDue[s] = true;
            ls.nextResendTime = Double.NEGATIVE_INFINITY;
        } else {
            if (ls != null || ch.lastSeq[i] != seq) {
                return;
            }
            ch.fastDue[i] = true;
        }
        ch.nextResendTime = Double.NEGATIVE_INFINITY;
    }

    /** The current reorder window in seconds. */
    double reorderWindowSeconds() {
        double minRtt = log.rtt().minRttSeconds();
        double base = Math.max(MIN_REORDER_WINDOW_SECONDS, Math.max(0, minRtt) / 4);
        double window = base * windowSteps;
        double srtt = log.rtt().srttSeconds();
        return srtt > 0 ? Math.max(MIN_REORDER_WINDOW_SECONDS, Math.min(window, srtt)) : window;
    }


    /** Data packets declared lost from the acks (not those declared at the loss timeout). */
    long packetsDeclaredLost() {
        return packetsDeclaredLost;
    }

    /** Packets declared lost that were acknowledged afterwards. */
    long spuriousLosses() {
        return spuriousLosses;
    }

    /** Whether {@code a} comes after {@code b} in 16-bit sequence order. */
    private static boolean newer(int a, int b) {
        int d = (a - b) & 0xFFFF;
        return d != 0 && d < 0x8000;
    }
}
