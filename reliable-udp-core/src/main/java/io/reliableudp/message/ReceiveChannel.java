package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * Receive side of one channel. Reliable: {@code nextExpected} is the oldest id not yet received and
 * a bit per id of the window {@code [nextExpected, nextExpected + window)} says which arrived (ordered
 * channels also keep the payloads that arrived early). Unreliable: the newest id seen and a bit per
 * id of the window behind it, to drop duplicate copies.
 */
final class ReceiveChannel {

    final int index;
    final DeliveryMode mode;
    final boolean reliable;
    final boolean ordered;
    final int window;
    final int wmask;
    final long[] bits;
    byte @Nullable [][] buffered;

    int nextExpected;
    boolean hasNewest;
    int newest;

    Reassembly[] reassemblies = new Reassembly[0];
    int reassemblyCount;

    long messagesReceived;
    long messagesDropped;
    long duplicatesDropped;

    ReceiveChannel(int index, DeliveryMode mode, int window) {
        this.index = index;
        this.mode = mode;
        this.reliable = mode.isReliable();
        this.ordered = mode == DeliveryMode.RELIABLE_ORDERED;
        this.window = window;
        this.wmask = window - 1;
        this.bits = new long[window >>> 6];
    }

    boolean bit(int id) {
        int i = id & wmask;
        return (bits[i >>> 6] & (1L << i)) != 0;
    }

    void setBit(int id) {
        int i = id & wmask;
        bits[i >>> 6] |= 1L << i;
    }

    void clearBit(int id) {
        int i = id & wmask;
        bits[i >>> 6] &= ~(1L << i);
    }

    /** Distance of {@code id} ahead of nextExpected, 0..65535. */
    int ahead(int id) {
        return (id - nextExpected) & 0xFFFF;
    }

    /** Whether a reliable id is in the window and not received yet. */
    boolean wanted(int id) {
        return ahead(id) < window && !bit(id);
    }

    @Nullable Reassembly findReassembly(int id) {
        for (int i = 0; i < reassemblyCount; i++) {
            if (reassemblies[i].id == id) {
                return reassemblies[i];
            }
        }
        return null;
    }

    void addReassembly(Reassembly r) {
        if (reassemblyCount == reassemblies.length) {
            Reassembly[] grown = new Reassembly[Math.max(4, reassemblyCount * 2)];
            System.arraycopy(reassemblies, 0, grown, 0, reassemblyCount);
            reassemblies = grown;
        }
        reassemblies[reassemblyCount++] = r;
    }

    void removeReassembly(Reassembly r) {
        for (int i = 0; i < reassemblyCount; i++) {
            if (reassemblies[i] == r) {
                reassemblies[i] = reassemblies[--reassemblyCount];
                reassemblies[reassemblyCount] = null;
                return;
            }
        }
    }
}
