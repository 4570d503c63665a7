package io.reliableudp.message;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The messages of one endpoint waiting to be sent or acknowledged, on all its channels: accepting or
 * refusing a message, taking it off its channel once it is done (written, for unreliable; fully
 * acknowledged, for reliable) and telling its {@link SendCompletion}, and failing every pending one
 * on close. The {@link PacketComposer} reads the channels to fill packets; the {@link AckTracker}
 * marks what the peer acknowledged.
 */
final class SendQueue {

    private static final System.Logger LOG = System.getLogger(MessageEndpoint.class.getName());

    final SendChannel[] channels;
    private final int channelCount;
    private final int maxMessageSize;
    final int payloadBudget;
    private final int maxUnreliableSize;
    private final int sliceSize;

    /** Unreliable messages queued that are too large for one packet (sent fragmented by the packet layer). */
    int bigUnreliableQueued;
    /** Total size of the sliced messages started and not yet fully acknowledged. */
    long largeBytesStarted;

    /** Messages with a time-to-live not yet stamped with their birth time ({@link Expiry#expire}). */
    int unstamped;
    private long expiredMessages;
    /** When the messages with a time-to-live expire. */
    final Expiry expiry;

    private boolean closed;
    private DeliveryFailure closeReason = DeliveryFailure.CLOSED;
    private long completionErrors;

    SendQueue(MessageConfig config, int payloadBudget, int maxUnreliableSize) {
        this.channelCount = config.channels().size();
        this.maxMessageSize = config.maxMessageSize();
        this.payloadBudget = payloadBudget;
        this.maxUnreliableSize = maxUnreliableSize;
        this.sliceSize = config.effectiveSliceSize();
        this.channels = new SendChannel[channelCount];
        for (int i = 0; i < channelCount; i++) {
            channels[i] = new SendChannel(i, config.channels().get(i));
        }
        this.expiry = new Expiry(this);
    }

    /** The channel, or {@link IllegalArgumentException} when it does not exist. */
    SendChannel channel(int channel) {
        if (channel < 0 || channel >= channelCount) {
            throw new IllegalArgumentException("channel must be within 0.." + (channelCount - 1) + ", was " + channel);
        }
        return channels[channel];
    }

    /**
     * Queues a message, or refuses it (then {@code completion} is told at once).
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code
     */
    int offer(int channel, byte[] payload, @Nullable SendCompletion completion) {
        return offer(channel, payload, completion, 0);
    }

    /** {@link #offer(int, byte[], SendCompletion)} with a time-to-live in ms (0: the channel's). */
    int offer(int channel, byte[] payload, @Nullable SendCompletion completion, int ttlMillis) {
        SendChannel ch = channel(channel);
        Objects.requireNonNull(payload, "payload");
        if (ttlMillis < 0) {
            throw new IllegalArgumentException("ttlMillis must be >= 0, was " + ttlMillis);
        }
        DeliveryFailure refusal = refusal(ch, payload.length);
        if (refusal == null) {
            return enqueue(ch, payload, completion, ttlMillis != 0 ? ttlMillis : ch.ttlMillis);
        }
        if (completion != null) {
            failed(completion, new DeliveryException(refusal, refusalMessage(refusal, ch, payload.length)));
        }
        return switch (refusal) {
            case QUEUE_FULL -> MessageEndpoint.OFFER_QUEUE_FULL;
            case TOO_LARGE -> MessageEndpoint.OFFER_TOO_LARGE;
            default -> MessageEndpoint.OFFER_CLOSED;
        };
    }

    private @Nullable DeliveryFailure refusal(SendChannel ch, int length) {
        if (closed) {
            return closeReason;
        }
        if (length > maxMessageSize || (!ch.reliable && length > maxUnreliableSize) || length > ch.maxQueuedBytes) {
            return DeliveryFailure.TOO_LARGE;
        }
        if (ch.queued >= ch.maxQueuedMessages || ch.queuedBytes + length > ch.maxQueuedBytes) {
            return DeliveryFailure.QUEUE_FULL;
        }
        return null;
    }

    private String refusalMessage(DeliveryFailure refusal, SendChannel ch, int length) {
        int channel = ch.index;
        return switch (refusal) {
            case TOO_LARGE -> "message of " + length + " bytes on channel " + channel + " is too large (maxMessageSize "
                    + maxMessageSize + (ch.reliable ? "" : ", unreliable limit " + maxUnreliableSize)
                    + ", maxQueuedBytes " + ch.maxQueuedBytes + ")";
            case QUEUE_FULL -> "send queue of channel " + channel + " is full (" + ch.queued + " messages, "
                    + ch.queuedBytes + " bytes; limits " + ch.maxQueuedMessages + " / " + ch.maxQueuedBytes + ")";
            default -> "endpoint closed: " + refusal;
        };
    }

    /**
     * Takes a message into its channel's ring. A free slot holds no completion, no large send, the
     * state {@link SendChannel#EMPTY}, no fast resend due and no resend backoff, since every way out of
     * the ring clears its slot ({@link SendChannel#clear}; {@code SendQueueSlotTest}), and the first
     * send writes the rest of the send history: so this writes only what the message brings. Under the {@link ImmediateSchedule} the caller is an application thread and the slots
     * just behind are the I/O thread's, which composes them: each array written here is a cache line
     * that moves between the two cores.
     */
    private int enqueue(SendChannel ch, byte[] payload, @Nullable SendCompletion completion, int ttl) {
        ch.ensureRoom();
        int v = ch.head++;
        int i = v & ch.mask;
        ch.payload[i] = payload;
        if (completion != null) {
            ch.completion[i] = completion;
        }
        if (ttl != 0) {
            ch.ttl[i] = ttl;
            ch.born[i] = Double.NaN;
            ch.ttlQueued++;
            unstamped++;
        }
        if (ch.reliable) {
            if (Frames.msgFrameSize(payload.length) > payloadBudget) {
                ch.large[i] = new LargeSend(payload.length, sliceSize);
            }
        } else if (Frames.msgFrameSize(payload.length) > payloadBudget) {
            ch.bigUnreliable++;
            bigUnreliableQueued++;
        }
        ch.queued++;
        ch.queuedBytes += payload.length;
        ch.messagesSent++;
        return v & 0xFFFF;
    }

    /** The unreliable message at {@code v} (the tail) was written to a packet: it leaves the queue. */
    void unreliableWritten(SendChannel ch, int v, int i, int len) {
        SendCompletion c = ch.completion[i];
        ch.clear(i);
        ch.tail = v + 1;
        ch.nextUnsent = ch.tail;
        ch.queued--;
        ch.queuedBytes -= len;
        if (c != null) {
            delivered(c, ch.index, v & 0xFFFF);
        }
    }

    /** The reliable message at {@code v} was fully acknowledged: it leaves the queue (the tail moves past acked ones). */
    void reliableAcked(SendChannel ch, int v, int i) {
        ch.messagesAcked++;
        ch.queued--;
        ch.queuedBytes -= ch.payload[i].length;
        SendCompletion c = ch.completion[i];
        ch.clear(i); // also a fast-resend mark the acks set before this ack: the slot's next message must not inherit it
        ch.state[i] = SendChannel.ACKED;
        advanceTail(ch);
        if (c != null) {
            delivered(c, ch.index, v & 0xFFFF);
        }
    }

    /**
     * Moves the tail past acknowledged and expired messages; when it passes an expired one, the peer
     * is owed a SKIP frame up to the new tail (and the window's base stays at the oldest such id until
     * a SKIP covering it is acknowledged).
     */
    private void advanceTail(SendChannel ch) {
        int firstExpired = 0;
        boolean skipped = false;
        byte st;
        while (ch.tail != ch.head && ((st = ch.state[ch.tail & ch.mask]) == SendChannel.ACKED || st == SendChannel.EXPIRED)) {
            if (st == SendChannel.EXPIRED && !skipped) {
                skipped = true;
                firstExpired = ch.tail;
            }
            ch.state[ch.tail & ch.mask] = SendChannel.EMPTY;
            ch.tail++;
        }
        if (skipped) {
            if (!ch.skipUnacked) {
                ch.skipUnacked = true;
                ch.skipBase = firstExpired;
            }
            ch.skipTo = ch.tail;
            ch.skipState = SendChannel.SKIP_DUE;
        }
        if (ch.nextUnsent - ch.tail < 0) {
            ch.nextUnsent = ch.tail;
        }
        if (ch.nextUnsent == ch.tail) {
            // nothing sent waits any more, but the slices of a large message in progress at the tail:
            // a due time left from the acknowledged ones would wake a scheduler for nothing
            LargeSend ls = ch.tail != ch.head ? ch.large[ch.tail & ch.mask] : null;
            ch.nextResendTime = ls != null && ls.started ? ls.nextResendTime : Double.POSITIVE_INFINITY;
        }
    }

    // ------------------------------------------------------------------------------------------
    // Time-to-live

    /**
     * The reliable message at {@code v} expired (unsent, or sent with no packet that may still be
     * acknowledged): it leaves the queue, its future fails with {@link DeliveryFailure#EXPIRED}, and
     * once the tail passes it the peer is told to skip it.
     */
    void reliableExpired(SendChannel ch, int v, int i) {
        LargeSend ls = ch.large[i];
        if (ls != null && ls.started) {
            largeBytesStarted -= ls.total;
        }
        SendCompletion c = ch.completion[i];
        int ttl = ch.ttl[i];
        ch.queued--;
        ch.queuedBytes -= ch.payload[i].length;
        ch.messagesExpired++;
        expiredMessages++;
        ch.clear(i);
        ch.state[i] = SendChannel.EXPIRED;
        if (v == ch.nextUnsent) {
            ch.nextUnsent++;
        }
        advanceTail(ch);
        if (c != null) {
            failed(c, expiredFailure(ch, v, ttl));
        }
    }

    /** The unreliable message at the tail expired before it was written: it leaves the queue unsent. */
    void unreliableExpired(SendChannel ch, int v, int i) {
        SendCompletion c = ch.completion[i];
        int ttl = ch.ttl[i];
        int len = ch.payload[i].length;
        ch.clear(i);
        ch.tail = v + 1;
        ch.nextUnsent = ch.tail;
        ch.queued--;
        ch.queuedBytes -= len;
        ch.messagesExpired++;
        expiredMessages++;
        if (c != null) {
            failed(c, expiredFailure(ch, v, ttl));
        }
    }

    private static DeliveryException expiredFailure(SendChannel ch, int v, int ttl) {
        return new DeliveryException(DeliveryFailure.EXPIRED,
                "message " + (v & 0xFFFF) + " on channel " + ch.index + " expired: its time-to-live of " + ttl + " ms passed");
    }

    /** A packet that carried a SKIP frame of the channel with {@code id} was acknowledged. */
    void skipAcked(SendChannel ch, int id) {
        if (!ch.skipUnacked) {
            return;
        }
        int v = ch.skipTo - ((ch.skipTo - id) & 0xFFFF);
        if (v - ch.skipBase > 0) {
            ch.skipBase = v; // the peer has settled every id before it
        }
        if (v == ch.skipTo) {
            ch.skipUnacked = false;
            ch.skipState = SendChannel.SKIP_NONE;
            ch.skipBackoff = 0;
        }
    }

    /** Messages that expired (reliable and unreliable, all channels). */
    long expiredMessages() {
        return expiredMessages;
    }

    /** When the channel next wants a send round for loss recovery (resends, its SKIP frame); +inf: nothing. */
    static double resendDue(SendChannel ch) {
        double t = hasSentUnacked(ch) ? ch.nextResendTime : Double.POSITIVE_INFINITY;
        return switch (ch.skipState) {
            case SendChannel.SKIP_DUE -> Double.NEGATIVE_INFINITY;
            case SendChannel.SKIP_SENT -> Math.min(t, ch.skipResendAt);
            default -> t;
        };
    }

    /** Whether a reliable message is still waiting to be sent or acknowledged. */
    boolean hasPendingReliable() {
        for (SendChannel ch : channels) {
            if (ch.reliable && !ch.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The earliest time a sent, unacknowledged reliable message or slice is due for resend: at or
     * before now when one is due now (the acks showed its packet lost, or its timer ran out),
     * {@code +Infinity} when none is in flight. It may be early (a message acknowledged since, or a
     * longer interval since), then the send round that finds nothing due moves it on.
     */
    double earliestResendDue() {
        double t = Double.POSITIVE_INFINITY;
        for (SendChannel ch : channels) {
            if (ch.reliable) {
                t = Math.min(t, resendDue(ch));
            }
        }
        return t;
    }

    /**
     * Whether something of the channel was sent and is not acknowledged: a message before
     * {@code nextUnsent}, or slices of the large message at it (its other slices are still unsent).
     * A channel with only unsent messages is not waiting for a resend (and its due time may be stale).
     */
    static boolean hasSentUnacked(SendChannel ch) {
        if (ch.nextUnsent != ch.tail) {
            return true;
        }
        if (ch.tail == ch.head) {
            return false;
        }
        int i = ch.tail & ch.mask;
        return ch.state[i] == SendChannel.SENT && ch.large[i] != null;
    }

    /**
     * Whether every queued message went out at least once: on a reliable channel none from
     * {@code nextUnsent} on (a large message whose slices are partly sent stays there), on an
     * unreliable one none queued, and no fragmented unreliable message waits.
     */
    boolean allWritten() {
        if (bigUnreliableQueued > 0) {
            return false;
        }
        for (SendChannel ch : channels) {
            if (ch.reliable ? ch.nextUnsent != ch.head : ch.head != ch.tail) {
                return false;
            }
        }
        return true;
    }

    /** Messages waiting to be sent or acknowledged, on all channels. */
    int queuedMessages() {
        int n = 0;
        for (SendChannel ch : channels) {
            n += ch.queued;
        }
        return n;
    }

    /** Fails every pending message with {@code reason}; later offers are refused with it. */
    void close(DeliveryFailure reason) {
        closed = true;
        closeReason = reason;
        for (SendChannel ch : channels) {
            for (int v = ch.tail; v != ch.head; v++) {
                int i = v & ch.mask;
                SendCompletion c = ch.completion[i];
                if (c != null && ch.state[i] != SendChannel.ACKED) {
                    failed(c, new DeliveryException(reason,
                            "message " + (v & 0xFFFF) + " on channel " + ch.index + " not delivered: " + reason));
                }
                ch.clear(i);
            }
            ch.tail = ch.head;
            ch.nextUnsent = ch.head;
            ch.stampFrom = ch.head;
            ch.skipState = SendChannel.SKIP_NONE;
            ch.queued = 0;
            ch.queuedBytes = 0;
            ch.bigUnreliable = 0;
        }
        bigUnreliableQueued = 0;
        largeBytesStarted = 0;
        unstamped = 0;
    }

    /** Exceptions thrown by send completions (caught, logged and counted). */
    long completionErrors() {
        return completionErrors;
    }

    private void delivered(SendCompletion c, int channel, int id) {
        try {
            c.delivered(channel, id);
        } catch (RuntimeException ex) {
            completionErrors++;
            LOG.log(System.Logger.Level.WARNING, "send completion failed", ex);
        }
    }

    private void failed(SendCompletion c, DeliveryException failure) {
        try {
            c.failed(failure);
        } catch (RuntimeException ex) {
            completionErrors++;
            LOG.log(System.Logger.Level.WARNING, "send completion failed", ex);
        }
    }
}
