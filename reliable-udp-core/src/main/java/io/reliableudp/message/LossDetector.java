package io.reliableudp.message;

/**
 * Fast recovery: decides, from the acks, that a data packet was lost before any timer runs out, and
 * marks the reliable messages and slices it was the last to carry due for a resend at once.
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
    private final boolean enabled;

    /** Sequence and send time of the most recently sent packet acknowledged so far. */
    private boolean rackSet;
    private int rackSeq;
    private double rackSendTime;

    /** The oldest sequence not yet settled (acknowledged, declared lost, or not a data packet). */
    private int cursor;

    private int windowSteps = 1;
    private int lossesSinceSpurious;

    private long packetsDeclaredLost;
    private long spuriousLosses;

    LossDetector(PacketLog log, SendQueue queue, int ringSize, boolean enabled, int firstSequence) {
        this.log = log;
        this.channels = queue.channels;
        this.channelCount = channels.length;
        this.ringSize = ringSize;
        this.enabled = enabled;
        this.cursor = firstSequence & 0xFFFF;
    }

    /** The packet {@code sequence} was acknowledged (call after the log took the ack). */
    void onAck(int sequence) {
        if (!enabled) {
            return;
        }
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
     * Declares lost every data packet the acks taken so far condemn and marks what it carried due;
     * {@code nextSequence} is the sequence the next packet will get.
     */
    void detect(int nextSequence) {
        if (!enabled || !rackSet) {
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
                declareLost(slot, cursor);
            }
            cursor = (cursor + 1) & 0xFFFF;
        }
    }

    private void declareLost(int slot, int seq) {
        log.declareLost(slot);
        packetsDeclaredLost++;
        if (++lossesSinceSpurious >= LOSSES_PER_NARROWING) {
            lossesSinceSpurious = 0;
            if (windowSteps > 1) {
                windowSteps--;
            }
        }
        int n = log.entryCount(slot);
        for (int k = 0; k < n; k++) {
            mark(log.entryAt(slot, k), seq);
        }
    }

    /** Marks the message or slice of one entry of the lost packet {@code seq} due, if that packet was its last carrier. */
    private void mark(long e, int seq) {
        int c = PacketLog.channelOf(e);
        if (c >= channelCount) {
            return;
        }
        SendChannel ch = channels[c];
        if (!ch.reliable) {
            return;
        }
        int id = PacketLog.idOf(e);
        int v = ch.tail + ((id - ch.tail) & 0xFFFF);
        if (v - ch.tail >= ch.head - ch.tail) {
            return;
        }
        int i = v & ch.mask;
        if (ch.state[i] != SendChannel.SENT) {
            return;
        }
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
        double minRtt = log.minRttSeconds();
        double base = Math.max(MIN_REORDER_WINDOW_SECONDS, Math.max(0, minRtt) / 4);
        double window = base * windowSteps;
        double srtt = log.srttSeconds();
        return srtt > 0 ? Math.max(MIN_REORDER_WINDOW_SECONDS, Math.min(window, srtt)) : window;
    }

    /** Data packets declared lost from the acks. */
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
