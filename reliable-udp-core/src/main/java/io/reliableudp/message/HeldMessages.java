package io.reliableudp.message;

import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Messages of one channel held while it is paused, oldest first: a ring of ids and arrays that grows
 * by doubling (made on the channel's first pause, so a channel never paused costs nothing).
 */
final class HeldMessages {

    private int[] ids = new int[16];
    private byte[][] messages = new byte[16][];
    private int head;
    private int size;

    void add(int id, byte[] message) {
        if (size == ids.length) {
            int n = size * 2;
            int[] grownIds = new int[n];
            byte[][] grown = new byte[n][];
            for (int i = 0; i < size; i++) {
                int j = (head + i) & (ids.length - 1);
                grownIds[i] = ids[j];
                grown[i] = messages[j];
            }
            ids = grownIds;
            messages = grown;
            head = 0;
        }
        int i = (head + size) & (ids.length - 1);
        ids[i] = id;
        messages[i] = message;
        size++;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Id of the oldest message (call only when not empty). */
    int headId() {
        return ids[head];
    }

    /** Takes the oldest message (call only when not empty). */
    byte[] poll() {
        byte[] m = messages[head];
        messages[head] = null;
        head = (head + 1) & (ids.length - 1);
        size--;
        return m;
    }

    /** Forgets every message; returns their bytes. */
    long clear() {
        long bytes = 0;
        while (size > 0) {
            bytes += poll().length;
        }
        Arrays.fill(messages, null);
        return bytes;
    }

    /** The queue, or null when absent or empty. */
    static @Nullable HeldMessages nonEmpty(@Nullable HeldMessages q) {
        return q != null && q.size > 0 ? q : null;
    }
}
