package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * Receive side of one channel: what its delivery mode does with each message that arrives. One
 * subclass per mode ({@link OrderedReceiveChannel}, {@link UnorderedReceiveChannel},
 * {@link UnreliableReceiveChannel}, {@link SequencedReceiveChannel}); this base holds what they share:
 * a bit per id of a window of {@code window} ids (which ids arrived), the channel's receive counters,
 * and the way to the {@link Receiver}, which delivers to the listener.
 */
abstract class ReceiveChannel {

    final int index;
    final DeliveryMode mode;
    final int window;
    final int wmask;
    final long[] bits;
    final Receiver receiver;

    long messagesReceived;
    long messagesDropped;
    long duplicatesDropped;
    /** Messages received older than their time-to-live (on arrival, or after waiting for an earlier one): never delivered. */
    long receivedExpired;
    /** Ids the sender abandoned (a SKIP frame passed them before they arrived). */
    long messagesSkipped;
    /**
     * Messages delivered before a pause and given back by the owner, who had not passed them on yet
     * ({@link Receiver#holdAgain}): older than every one in {@link #held}. Made on first use.
     */
    private @Nullable HeldMessages returned;
    /** Messages held while the channel is paused (or older held ones still wait). Made on first use. */
    private @Nullable HeldMessages held;

    ReceiveChannel(int index, DeliveryMode mode, int window, Receiver receiver) {
        this.index = index;
        this.mode = mode;
        this.window = window;
        this.wmask = window - 1;
        this.bits = new long[window >>> 6];
        this.receiver = receiver;
    }

    /** The receive side of a channel of {@code mode}. */
    static ReceiveChannel create(int index, DeliveryMode mode, int window, Receiver receiver) {
        return switch (mode) {
            case RELIABLE_ORDERED -> new OrderedReceiveChannel(index, window, receiver);
            case RELIABLE_UNORDERED -> new UnorderedReceiveChannel(index, window, receiver);
            case UNRELIABLE -> new UnreliableReceiveChannel(index, window, receiver);
            case UNRELIABLE_SEQUENCED -> new SequencedReceiveChannel(index, window, receiver);
        };
    }

    /** A whole message arrived (its frame was validated): deliver, keep, or drop it as the mode says. */
    abstract void receive(int id, byte[] data, int offset, int length);

    final void deliver(int id, byte[] data, int offset, int length) {
        receiver.deliver(this, id, data, offset, length, false);
    }

    /** {@link #deliver(int, byte[], int, int)} of a fresh array holding exactly the message (kept as is when held). */
    final void deliverOwned(int id, byte[] data) {
        receiver.deliver(this, id, data, 0, data.length, true);
    }

    /** Whether messages of this channel are held. */
    final boolean holdsMessages() {
        return HeldMessages.nonEmpty(returned) != null || HeldMessages.nonEmpty(held) != null;
    }

    final HeldMessages held() {
        HeldMessages q = held;
        if (q == null) {
            q = new HeldMessages();
            held = q;
        }
        return q;
    }

    final HeldMessages returned() {
        HeldMessages q = returned;
        if (q == null) {
            q = new HeldMessages();
            returned = q;
        }
        return q;
    }

    /** The queue the next held message comes from (given-back ones first), or null when none is held. */
    final @Nullable HeldMessages nextHeld() {
        HeldMessages q = HeldMessages.nonEmpty(returned);
        return q != null ? q : HeldMessages.nonEmpty(held);
    }

    /** Forgets the held messages (the endpoint closed). */
    final void dropHeld() {
        if (returned != null) {
            returned.clear();
        }
        if (held != null) {
            held.clear();
        }
    }

    final boolean bit(int id) {
        int i = id & wmask;
        return (bits[i >>> 6] & (1L << i)) != 0;
    }

    final void setBit(int id) {
        int i = id & wmask;
        bits[i >>> 6] |= 1L << i;
    }

    final void clearBit(int id) {
        int i = id & wmask;
        bits[i >>> 6] &= ~(1L << i);
    }
}
