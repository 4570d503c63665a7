package io.reliableudp.message;

import java.util.Arrays;

/**
 * Unreliable delivery: a message at most once, in arrival order. Keeps the newest id seen and a bit
 * per id of the window behind it, to drop duplicate copies; older than the window is dropped as too old.
 */
final class UnreliableReceiveChannel extends ReceiveChannel {

    private boolean hasNewest;
    private int newest;

    UnreliableReceiveChannel(int index, int window, Receiver receiver) {
        super(index, DeliveryMode.UNRELIABLE, window, receiver);
    }

    @Override
    void receive(int id, byte[] data, int offset, int length) {
        if (!hasNewest) {
            hasNewest = true;
            newest = id;
            setBit(id);
            deliver(id, data, offset, length);
            return;
        }
        int d = (id - newest) & 0xFFFF;
        if (d != 0 && d < 32768) {
            if (d >= window) {
                Arrays.fill(bits, 0L);
            } else {
                for (int k = 1; k <= d; k++) {
                    clearBit(newest + k);
                }
            }
            newest = id;
            setBit(id);
            deliver(id, data, offset, length);
            return;
        }
        int back = (newest - id) & 0xFFFF;
        if (back >= window) {
            messagesDropped++;
        } else if (bit(id)) {
            duplicatesDropped++;
        } else {
            setBit(id);
            deliver(id, data, offset, length);
        }
    }
}
