package io.reliableudp.message;

import io.reliableudp.TrafficClass;
import org.jspecify.annotations.Nullable;

/**
 * Send side of one channel: a ring of messages indexed by absolute message number (the wire id is
 * its low 16 bits). {@code tail} is the oldest message not yet acknowledged (reliable) or not yet
 * written (unreliable), {@code nextUnsent} the first never sent, {@code head} the next to assign.
 * The ring grows by doubling while the queue needs it, up to 32768 entries. Per sent message it keeps
 * when and in which packet it was last sent, how many resend timeouts in a row it had while nothing
 * was acknowledged (the backoff)
 * and whether the acks showed that its last packet was lost (due for a fast resend).
 */
final class SendChannel {

    /** A free slot, or a message not sent yet (its place, from {@code nextUnsent} on, says which). */
    static final byte EMPTY = 0;
    static final byte SENT = 2;
    static final byte ACKED = 3;
    /** A reliable message whose time-to-live passed unacknowledged: done, like {@link #ACKED}, but failed. */
    static final byte EXPIRED = 4;
    /** {@link #skipState}: no SKIP frame owed. */
    static final byte SKIP_NONE = 0;
    /** {@link #skipState}: a SKIP frame must go in the next packet. */
    static final byte SKIP_DUE = 1;
    /** {@link #skipState}: a SKIP frame went in packet {@link #skipSeq} and waits for its ack. */
    static final byte SKIP_SENT = 2;
    static final int MAX_RING = 1 << 15;

    final int index;
    final DeliveryMode mode;
    final boolean reliable;
    final int maxQueuedMessages;
    final long maxQueuedBytes;
    /** Copies of each small message in the packets after the one carrying it (reliable channels only). */
    final int redundancy;
    /** The IP TOS byte of this channel's datagrams, or {@link DatagramSender#NODE_CLASS} (the node's). */
    final int tos;
    /** The channel's time-to-live in milliseconds (0: none). */
    final int ttlMillis;

    int mask;
    byte[][] payload;
    @Nullable SendCompletion[] completion;
    double[] lastSent;
    int[] lastTick;
    /** Sequence of the last packet that carried the message (set at each send; read only while SENT). */
    int[] lastSeq;
    /**
     * Resend timeouts in a row with no packet acknowledged in between (the exponent of the backoff),
     * valid while {@link #timeoutAcks} still equals the packet log's ack count; 0 after a fast resend.
     */
    byte[] timeouts;
    /** The packet log's ack count at the message's last timeout. */
    int[] timeoutAcks;
    /** The acks showed the message's last packet lost: resend it in the next packet. */
    boolean[] fastDue;
    byte[] state;
    @Nullable LargeSend[] large;
    /** Time-to-live of the message in milliseconds (0: none). */
    int[] ttl;
    /** When the message with a time-to-live was taken by a send round (its age counts from then); NaN before. */
    double[] born;

    int tail;
    int head;
    int nextUnsent;
    int queued;
    long queuedBytes;
    int bigUnreliable;
    double nextResendTime = Double.POSITIVE_INFINITY;
    /** Messages with a time-to-live in the ring. */
    int ttlQueued;
    /** The first message whose {@link #born} is not set yet (all before it are stamped). */
    int stampFrom;
    /** Reliable: every id before this one is acknowledged or expired; the peer is told with SKIP frames. */
    int skipTo;
    byte skipState;
    /** Packet of the last SKIP frame, and when it may go again. */
    int skipSeq;
    double skipResendAt;
    /** SKIP frames resent in a row with no ack (the exponent of their backoff). */
    int skipBackoff;
    /** Expired ids the peer may still wait for start here (valid while {@link #skipUnacked}): the window's base. */
    int skipBase;
    boolean skipUnacked;

    long messagesSent;
    long messagesAcked;
    long messagesResent;
    long messagesExpired;

    SendChannel(int index, ChannelConfig config) {
        this.index = index;
        this.mode = config.mode();
        this.reliable = mode.isReliable();
        this.maxQueuedMessages = Math.min(config.maxQueuedMessages(), MAX_RING);
        this.maxQueuedBytes = config.maxQueuedBytes();
        this.redundancy = reliable ? config.redundancy() : 0;
        this.tos = config.trafficClass().map(TrafficClass::tos).orElse(DatagramSender.NODE_CLASS);
        this.ttlMillis = config.ttlMillis();
        allocate(16);
    }

    private void allocate(int capacity) {
        mask = capacity - 1;
        payload = new byte[capacity][];
        completion = new SendCompletion[capacity];
        lastSent = new double[capacity];
        lastTick = new int[capacity];
        lastSeq = new int[capacity];
        timeouts = new byte[capacity];
        timeoutAcks = new int[capacity];
        fastDue = new boolean[capacity];
        state = new byte[capacity];
        large = new LargeSend[capacity];
        ttl = new int[capacity];
        born = new double[capacity];
    }

    /** Makes room for one more message. */
    void ensureRoom() {
        int capacity = mask + 1;
        if (head - tail < capacity) {
            return;
        }
        byte[][] oldPayload = payload;
        SendCompletion[] oldCompletion = completion;
        double[] oldLastSent = lastSent;
        int[] oldLastTick = lastTick;
        int[] oldLastSeq = lastSeq;
        byte[] oldTimeouts = timeouts;
        int[] oldTimeoutAcks = timeoutAcks;
        boolean[] oldFastDue = fastDue;
        byte[] oldState = state;
        LargeSend[] oldLarge = large;
        int[] oldTtl = ttl;
        double[] oldBorn = born;
        int oldMask = mask;
        allocate(capacity * 2);
        for (int v = tail; v != head; v++) {
            int o = v & oldMask;
            int n = v & mask;
            payload[n] = oldPayload[o];
            completion[n] = oldCompletion[o];
            lastSent[n] = oldLastSent[o];
            lastTick[n] = oldLastTick[o];
            lastSeq[n] = oldLastSeq[o];
            timeouts[n] = oldTimeouts[o];
            timeoutAcks[n] = oldTimeoutAcks[o];
            fastDue[n] = oldFastDue[o];
            state[n] = oldState[o];
            large[n] = oldLarge[o];
            ttl[n] = oldTtl[o];
            born[n] = oldBorn[o];
        }
    }

    void clear(int i) {
        payload[i] = null;
        completion[i] = null;
        large[i] = null;
        fastDue[i] = false;
        timeouts[i] = 0;
        state[i] = EMPTY;
        if (ttl[i] != 0) {
            ttl[i] = 0;
            ttlQueued--;
        }
    }

    /** The oldest id the peer may still wait for: below it every id is received or skipped there. */
    int windowBase() {
        return skipUnacked ? skipBase : tail;
    }

    /**
     * How far from the tail the message {@code id} (16-bit) stands when it is in the ring and sent, or
     * -1: a packet's ack or loss names its messages by id, and one no longer (or not yet) in the ring,
     * or not sent, is nothing to act on.
     */
    int sentOffset(int id) {
        int d = (id - tail) & 0xFFFF;
        if (d >= head - tail || state[(tail + d) & mask] != SENT) {
            return -1;
        }
        return d;
    }

    boolean isEmpty() {
        return head == tail;
    }
}
