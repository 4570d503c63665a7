package io.reliableudp.message;

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
        receiver.deliver(this, id, data, offset, length);
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
