package io.reliableudp.message;

/** Receive side of one sliced message being put back together. */
final class Reassembly {

    final int id;
    final int total;
    final int sliceSize;
    final byte[] data;
    final SliceBitfield received;

    Reassembly(int id, int total, int sliceSize) {
        this.id = id;
        this.total = total;
        this.sliceSize = sliceSize;
        this.data = new byte[total];
        this.received = new SliceBitfield(Frames.sliceCount(total, sliceSize));
    }

    /** Stores a slice; false when it was a duplicate. */
    boolean store(int index, byte[] src, int offset, int length) {
        if (!received.set(index)) {
            return false;
        }
        System.arraycopy(src, offset, data, index * sliceSize, length);
        return true;
    }

    boolean complete() {
        return received.full();
    }
}
