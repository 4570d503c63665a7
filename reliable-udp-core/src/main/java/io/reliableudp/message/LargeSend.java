package io.reliableudp.message;

/**
 * Send state of one sliced (large) reliable message: which slices were sent when and in which packet,
 * which are acked, their resend timeouts in a row with nothing acknowledged between (backoff) and
 * which are due for a fast resend.
 */
final class LargeSend {

    final int total;
    final int sliceSize;
    final int sliceCount;
    final SliceBitfield acked;
    final double[] lastSent;
    final int[] lastTick;
    /** Sequence of the last packet that carried each slice, -1 before its first send. */
    final int[] lastSeq;
    final byte[] timeouts;
    final int[] timeoutAcks;
    final boolean[] fastDue;
    boolean started;
    int nextUnsent;
    int firstUnacked;
    double nextResendTime = Double.POSITIVE_INFINITY;

    LargeSend(int total, int sliceSize) {
        this.total = total;
        this.sliceSize = sliceSize;
        this.sliceCount = Frames.sliceCount(total, sliceSize);
        this.acked = new SliceBitfield(sliceCount);
        this.lastSent = new double[sliceCount];
        this.lastTick = new int[sliceCount];
        this.lastSeq = new int[sliceCount];
        java.util.Arrays.fill(lastSeq, -1);
        this.timeouts = new byte[sliceCount];
        this.timeoutAcks = new int[sliceCount];
        this.fastDue = new boolean[sliceCount];
    }

    int sliceLength(int index) {
        return (int) Math.min(sliceSize, total - (long) index * sliceSize);
    }

    /** Marks a slice acknowledged; false when it already was or is out of range. */
    boolean ack(int index) {
        if (index < 0 || index >= sliceCount || index >= nextUnsent || !acked.set(index)) {
            return false;
        }
        while (firstUnacked < sliceCount && acked.get(firstUnacked)) {
            firstUnacked++;
        }
        return true;
    }

    boolean complete() {
        return acked.count() == sliceCount;
    }
}
