package io.reliableudp.message;

/** Reliable-unordered delivery: every message once, as soon as it arrives (the window only drops copies). */
final class UnorderedReceiveChannel extends ReliableReceiveChannel {

    UnorderedReceiveChannel(int index, int window, Receiver receiver) {
        super(index, DeliveryMode.RELIABLE_UNORDERED, window, receiver);
    }

    @Override
    void early(int id, byte[] data, int offset, int length, boolean owned) {
        if (owned && offset == 0 && length == data.length) {
            deliverOwned(id, data);
        } else {
            deliver(id, data, offset, length);
        }
    }

    @Override
    void released(int id) {
        // delivered when it arrived
    }
}
