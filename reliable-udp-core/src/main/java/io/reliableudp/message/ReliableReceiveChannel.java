package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * What the two reliable modes share: {@code nextExpected} is the oldest id not yet received, and a
 * bit per id of {@code [nextExpected, nextExpected + window)} says which arrived. Duplicates and ids
 * outside the window are dropped; sliced messages are put back together here ({@link Reassembly})
 * and then received as one. The subclass decides what happens to a message that arrives early
 * (before an older one) and when {@code nextExpected} passes it.
 */
abstract class ReliableReceiveChannel extends ReceiveChannel {

    int nextExpected;
    private Reassembly[] reassemblies = new Reassembly[0];
    private int reassemblyCount;

    ReliableReceiveChannel(int index, DeliveryMode mode, int window, Receiver receiver) {
        super(index, mode, window, receiver);
    }

    /** Distance of {@code id} ahead of nextExpected, 0..65535. */
    final int ahead(int id) {
        return (id - nextExpected) & 0xFFFF;
    }

    /** Whether an id is in the window and not received yet. */
    final boolean wanted(int id) {
        return ahead(id) < window && !bit(id);
    }

    @Override
    final void receive(int id, byte[] data, int offset, int length) {
        receiveWhole(id, data, offset, length, false);
    }

    /**
     * A message arrived before an older one; its id bit is already set.
     *
     * @param owned whether {@code data} is a fresh array holding exactly the message (may be kept as is)
     */
    abstract void early(int id, byte[] data, int offset, int length, boolean owned);

    /** {@code nextExpected} passes {@code id}, which arrived early. */
    abstract void released(int id);

    private void receiveWhole(int id, byte[] data, int offset, int length, boolean owned) {
        int ahead = ahead(id);
        if (ahead >= window || bit(id)) {
            duplicatesDropped++;
            return;
        }
        if (ahead == 0) {
            if (owned && offset == 0 && length == data.length) {
                deliverOwned(id, data);
            } else {
                deliver(id, data, offset, length);
            }
            nextExpected = (nextExpected + 1) & 0xFFFF;
            drain();
            return;
        }
        setBit(id);
        early(id, data, offset, length, owned);
    }

    /** Moves nextExpected past ids already received. */
    private void drain() {
        while (bit(nextExpected)) {
            int id = nextExpected;
            clearBit(id);
            released(id);
            nextExpected = (id + 1) & 0xFFFF;
        }
    }

    /**
     * A SKIP frame: the sender abandoned every id before {@code to} (their time-to-live passed). Ids not
     * received are passed over (a partial reassembly is dropped), early arrivals among them are
     * released in order, and so are the ones after {@code to} that arrived already. A SKIP behind
     * {@code nextExpected} (an old copy) changes nothing; validation rejected one beyond the window.
     */
    final void skip(int to) {
        int n = ahead(to);
        if (n == 0 || n > window) {
            return;
        }
        while (nextExpected != to) {
            int id = nextExpected;
            if (bit(id)) {
                clearBit(id);
                released(id);
            } else {
                messagesSkipped++;
                Reassembly ra = findReassembly(id);
                if (ra != null) {
                    removeReassembly(ra);
                    receiver.reassemblyBytes -= ra.total;
                }
            }
            nextExpected = (id + 1) & 0xFFFF;
        }
        drain();
    }

    /** One slice of a sliced message (its frame was validated); the whole message is received once complete. */
    final void receiveSlice(Frames.Reader r, byte[] data) {
        int id = r.id;
        if (!wanted(id)) {
            duplicatesDropped++;
            return;
        }
        Reassembly ra = findReassembly(id);
        if (ra == null) {
            ra = new Reassembly(id, r.total, r.sliceSize);
            addReassembly(ra);
            receiver.reassemblyBytes += r.total;
        } else if (ra.total != r.total || ra.sliceSize != r.sliceSize) {
            // two slices of one new message with different geometry in the same packet (validation
            // compares against reassemblies that existed before the packet only): a correct sender never
            // writes that; the slice is dropped and counted rather than copied out of bounds
            receiver.sliceGeometryMismatch();
            return;
        }
        if (!ra.store(r.sliceIndex, data, r.dataOffset, r.dataLength)) {
            duplicatesDropped++;
            return;
        }
        if (ra.complete()) {
            removeReassembly(ra);
            receiver.reassemblyBytes -= ra.total;
            receiveWhole(id, ra.data, 0, ra.total, true);
        }
    }

    /** Forgets the reassemblies and early arrivals (the endpoint closed; the receiver settles the counts). */
    void dropBuffers() {
        java.util.Arrays.fill(reassemblies, null);
        reassemblyCount = 0;
    }

    final @Nullable Reassembly findReassembly(int id) {
        for (int i = 0; i < reassemblyCount; i++) {
            if (reassemblies[i].id == id) {
                return reassemblies[i];
            }
        }
        return null;
    }

    private void addReassembly(Reassembly r) {
        if (reassemblyCount == reassemblies.length) {
            Reassembly[] grown = new Reassembly[Math.max(4, reassemblyCount * 2)];
            System.arraycopy(reassemblies, 0, grown, 0, reassemblyCount);
            reassemblies = grown;
        }
        reassemblies[reassemblyCount++] = r;
    }

    private void removeReassembly(Reassembly r) {
        for (int i = 0; i < reassemblyCount; i++) {
            if (reassemblies[i] == r) {
                reassemblies[i] = reassemblies[--reassemblyCount];
                reassemblies[reassemblyCount] = null;
                return;
            }
        }
    }
}
