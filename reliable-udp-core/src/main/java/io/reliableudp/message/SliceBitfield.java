package io.reliableudp.message;

/** A fixed-size set of slice indexes (one bit each) with a running count. */
final class SliceBitfield {

    private final long[] words;
    private final int size;
    private int count;

    SliceBitfield(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0, was " + size);
        }
        this.size = size;
        this.words = new long[(size + 63) >>> 6];
    }

    int size() {
        return size;
    }

    /** Number of set bits. */
    int count() {
        return count;
    }

    boolean get(int index) {
        return (words[index >>> 6] & (1L << index)) != 0;
    }

    /** Sets the bit; returns true when it was clear. */
    boolean set(int index) {
        long bit = 1L << index;
        int w = index >>> 6;
        if ((words[w] & bit) != 0) {
            return false;
        }
        words[w] |= bit;
        count++;
        return true;
    }

    /** First clear index at or after {@code from}, or {@link #size()} when none. */
    int nextClear(int from) {
        for (int i = from; i < size; i++) {
            if (!get(i)) {
                return i;
            }
        }
        return size;
    }

    boolean full() {
        return count == size;
    }
}
