package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * Send side of one channel: a ring of messages indexed by absolute message number (the wire id is
 * its low 16 bits). {@code tail} is the oldest message not yet acknowledged (reliable) or not yet
 * written (unreliable), {@code nextUnsent} the first never sent, {@code head} the next to assign.
 * The ring grows by doubling while the queue needs it, up to 32768 entries.
 */
final class SendChannel {

    static final byte EMPTY = 0;
    static final byte QUEUED = 1;
    static final byte SENT = 2;
    static final byte ACKED = 3;
    static final int MAX_RING = 1 << 15;

    final int index;
    final DeliveryMode mode;
    final boolean reliable;
    final int maxQueuedMessages;
    final long maxQueuedBytes;

    int mask;
    byte[][] payload;
    @Nullable SendCompletion[] completion;
    double[] lastSent;
    int[] lastTick;
    byte[] state;
    @Nullable LargeSend[] large;

    int tail;
    int head;
    int nextUnsent;
    int queued;
    long queuedBytes;
    int bigUnreliable;
    double nextResendTime = Double.POSITIVE_INFINITY;

    long messagesSent;
    long messagesAcked;
    long messagesResent;

    SendChannel(int index, ChannelConfig config) {
        this.index = index;
        this.mode = config.mode();
        this.reliable = mode.isReliable();
        this.maxQueuedMessages = Math.min(config.maxQueuedMessages(), MAX_RING);
        this.maxQueuedBytes = config.maxQueuedBytes();
        allocate(16);
    }

    private void allocate(int capacity) {
        mask = capacity - 1;
        payload = new byte[capacity][];
        completion = new SendCompletion[capacity];
        lastSent = new double[capacity];
        lastTick = new int[capacity];
        state = new byte[capacity];
        large = new LargeSend[capacity];
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
        byte[] oldState = state;
        LargeSend[] oldLarge = large;
        int oldMask = mask;
        allocate(capacity * 2);
        for (int v = tail; v != head; v++) {
            int o = v & oldMask;
            int n = v & mask;
            payload[n] = oldPayload[o];
            completion[n] = oldCompletion[o];
            lastSent[n] = oldLastSent[o];
            lastTick[n] = oldLastTick[o];
            state[n] = oldState[o];
            large[n] = oldLarge[o];
        }
    }

    void clear(int i) {
        payload[i] = null;
        completion[i] = null;
        large[i] = null;
        state[i] = EMPTY;
    }

    boolean isEmpty() {
        return head == tail;
    }
}
