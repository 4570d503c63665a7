package io.reliableudp.message;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Reliable-ordered delivery: every message once, in id order. A message that arrives early is kept
 * (a copy, unless it is a reassembled array of its own) until the ones before it were delivered.
 *
 * <p>The early arrivals live in a ring indexed by id that covers the ids from {@code nextExpected}
 * up to the farthest early one: none until the first early arrival, then
 * {@value #FIRST_CAPACITY} references, doubling while one arrives farther ahead, up to the receive
 * window (the window itself, which the sender is bound by, is the same from the start).
 */
final class OrderedReceiveChannel extends ReliableReceiveChannel {

    /** References of the ring at the first early arrival. */
    static final int FIRST_CAPACITY = 16;

    /** Early arrivals by id, {@code id & (buffered.length - 1)}; allocated on the first one. */
    private byte @Nullable [][] buffered;
    /** Per slot of {@link #buffered}: the early arrival's time-to-live in ms (0: none), and when it was born (receiver's clock). */
    private int[] ttls = new int[0];
    private double[] born = new double[0];

    OrderedReceiveChannel(int index, int window, Receiver receiver) {
        super(index, DeliveryMode.RELIABLE_ORDERED, window, receiver);
    }

    @Override
    void early(int id, byte[] data, int offset, int length, boolean owned) {
        byte[][] b = room(ahead(id));
        int slot = id & (b.length - 1);
        b[slot] = owned && offset == 0 && length == data.length
                ? data : Arrays.copyOfRange(data, offset, offset + length);
        receiver.earlyBytes += length;
        ttls[slot] = receiver.deliveryTtl;
        if (receiver.deliveryTtl != 0) {
            born[slot] = receiver.now - receiver.deliveryAge / 1000.0;
        }
    }

    @Override
    void dropBuffers() {
        super.dropBuffers();
        if (buffered != null) {
            Arrays.fill(buffered, null);
        }
    }

    /** The ring, grown so that the id {@code ahead} of nextExpected (below the window) has a slot of its own. */
    private byte[][] room(int ahead) {
        byte[][] b = buffered;
        if (b != null && ahead < b.length) {
            return b;
        }
        int capacity = b == null ? FIRST_CAPACITY : b.length * 2;
        while (capacity <= ahead) {
            capacity *= 2;
        }
        capacity = Math.min(capacity, window);
        byte[][] grown = new byte[capacity][];
        int[] grownTtls = new int[capacity];
        double[] grownBorn = new double[capacity];
        if (b != null) {
            // the kept ids lie in [nextExpected, nextExpected + old length): each finds its own slot
            int oldMask = b.length - 1;
            for (int j = 0; j < b.length; j++) {
                if (b[j] != null) {
                    int id = (nextExpected + ((j - nextExpected) & oldMask)) & 0xFFFF;
                    grown[id & (capacity - 1)] = b[j];
                    grownTtls[id & (capacity - 1)] = ttls[j];
                    grownBorn[id & (capacity - 1)] = born[j];
                }
            }
        }
        buffered = grown;
        ttls = grownTtls;
        born = grownBorn;
        return grown;
    }

    /** References the ring holds now (0 before the first early arrival). */
    int bufferCapacity() {
        byte[][] b = buffered;
        return b == null ? 0 : b.length;
    }

    @Override
    void released(int id) {
        byte[][] b = buffered;
        if (b != null) {
            int i = id & (b.length - 1);
            byte[] p = b[i];
            b[i] = null;
            if (p != null) {
                receiver.earlyBytes -= p.length;
                int ttl = ttls[i];
                receiver.deliveryTtl = ttl;
                if (ttl != 0) {
                    // its age on arrival plus the time it waited here for the ones before it
                    receiver.deliveryAge = (int) Math.min(Integer.MAX_VALUE, Math.ceil((receiver.now - born[i]) * 1000));
                }
                deliverOwned(id, p);
            }
        }
    }
}
