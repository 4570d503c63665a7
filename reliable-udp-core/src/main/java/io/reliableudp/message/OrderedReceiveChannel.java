package io.reliableudp.message;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Reliable-ordered delivery: every message once, in id order. A message that arrives early is kept
 * (a copy, unless it is a reassembled array of its own) until the ones before it were delivered.
 */
final class OrderedReceiveChannel extends ReliableReceiveChannel {

    /** Early arrivals by id within the window; allocated on the first one. */
    private byte @Nullable [][] buffered;

    OrderedReceiveChannel(int index, int window, Receiver receiver) {
        super(index, DeliveryMode.RELIABLE_ORDERED, window, receiver);
    }

    @Override
    void early(int id, byte[] data, int offset, int length, boolean owned) {
        byte[][] b = buffered;
        if (b == null) {
            b = new byte[window][];
            buffered = b;
        }
        b[id & wmask] = owned && offset == 0 && length == data.length ? data : Arrays.copyOfRange(data, offset, offset + length);
    }

    @Override
    void released(int id) {
        byte[][] b = buffered;
        if (b != null) {
            byte[] p = b[id & wmask];
            b[id & wmask] = null;
            if (p != null) {
                deliver(id, p, 0, p.length);
            }
        }
    }
}
