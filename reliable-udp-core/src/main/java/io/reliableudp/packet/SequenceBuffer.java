package io.reliableudp.packet;

import java.util.Arrays;

/**
 * A ring of {@code size} slots indexed by 16-bit sequence number ({@code slot = sequence % size}),
 * the reference library's {@code reliable_sequence_buffer_t} without its payload: callers keep the
 * per-entry data in their own primitive arrays indexed by the slot this class returns. No boxing, no
 * allocation after construction.
 *
 * <p>The buffer tracks the next expected sequence ({@link #sequence()}): inserting a newer sequence
 * clears every slot between the old and the new position, so a slot never reports a stale entry as
 * present. The exact arithmetic of the reference is kept, including its slot arithmetic across the
 * wrap for sizes that do not divide 65536.
 *
 * <p>Not thread-safe.
 */
final class SequenceBuffer {

    private static final int EMPTY = -1;

    private final int size;
    /** {@code size - 1} when size is a power of two (then {@code s & mask == s % size} for s >= 0), else -1. */
    private final int mask;
    private final int[] entrySequence;
    private int sequence;
    /**
     * Whether {@link #recentBits} is kept: size a power of two of at least 32, so the 32 newest
     * sequences have 32 distinct slots and the slot arithmetic is the same across the 16-bit wrap.
     */
    private final boolean tracked;
    /**
     * When {@link #tracked}: exactly {@link #ackBits()} (bit n set when {@code sequence - 1 - n} occupies
     * its slot), kept up to date by every mutation so that {@link #ackBits()} needs no 32-slot scan.
     */
    private int recentBits;

    /**
     * Creates an empty buffer whose next expected sequence is 0.
     *
     * @param size number of slots, 1..32768
     * @throws IllegalArgumentException when {@code size} is out of range
     */
    public SequenceBuffer(int size) {
        if (size < 1 || size > 32768) {
            throw new IllegalArgumentException("size must be within 1..32768, was " + size);
        }
        this.size = size;
        this.mask = (size & (size - 1)) == 0 ? size - 1 : -1;
        this.entrySequence = new int[size];
        Arrays.fill(entrySequence, EMPTY);
        this.tracked = mask >= 31;
    }

    /**
     * Keeps {@link #recentBits} exact after {@code entrySequence[slot(seq)]} changed to {@code seq}
     * ({@code present}) or to empty: the only window position sharing that slot is
     * {@code (sequence - 1 - seq) mod size}, and it now holds its own sequence only when it is
     * {@code seq} itself.
     */
    private void slotWritten(int seq, boolean present) {
        int distance = (sequence - 1 - seq) & 0xFFFF;
        int position = distance & mask;
        if (position < 32) {
            if (present && distance == position && seq >>> 16 == 0) {
                recentBits |= 1 << position;
            } else {
                recentBits &= ~(1 << position);
            }
        }
    }

    /** The slot of a non-negative sequence value: {@code seq % size}, without a division when possible. */
    private int slot(int seq) {
        return mask >= 0 ? seq & mask : seq % size;
    }

    /**
     * Number of slots.
     *
     * @return the size given at construction
     */
    public int size() {
        return size;
    }

    /**
     * One past the newest sequence inserted or advanced to (0 when fresh).
     *
     * @return the next expected sequence, 0..65535
     */
    public int sequence() {
        return sequence;
    }

    /** Empties every slot and sets the next expected sequence back to 0. */
    public void reset() {
        sequence = 0;
        recentBits = 0;
        Arrays.fill(entrySequence, EMPTY);
    }

    /**
     * Empties the slots of {@code start..finish} (wrapping), or every slot when that range is at least
     * as long as the buffer. {@code finish} below {@code start} means the range crosses the wrap.
     *
     * @param start  first sequence to remove
     * @param finish last sequence to remove
     */
    public void removeEntries(int start, int finish) {
        if (finish < start) {
            finish += 65536;
        }
        if (finish - start < size) {
            for (int s = start; s <= finish; ++s) {
                entrySequence[slot(s)] = EMPTY;
            }
        } else {
            Arrays.fill(entrySequence, EMPTY);
        }
        if (tracked) {
            recentBits = scanAckBits();
        }
    }

    /**
     * Moves {@link #sequence} to {@code seq + 1} ({@code seq} newer than the newest), emptying the
     * slots of {@code sequence..seq}. The window of 32 moves by the same distance: the positions
     * below it are the emptied sequences, the others keep their state (they cannot share a slot with
     * an emptied one, the buffer being at least 32 long).
     */
    private void moveTo(int seq) {
        int start = sequence;
        int finish = seq < start ? seq + 65536 : seq;
        int distance = finish - start + 1;
        if (finish - start < size) {
            for (int s = start; s <= finish; ++s) {
                entrySequence[slot(s)] = EMPTY;
            }
        } else {
            Arrays.fill(entrySequence, EMPTY);
        }
        sequence = (seq + 1) & 0xFFFF;
        if (tracked) {
            recentBits = distance >= 32 ? 0 : recentBits << distance;
        }
    }

    /**
     * Whether {@code seq} is recent enough to be inserted, i.e. not older than
     * {@code sequence() - size()}.
     *
     * @param seq a sequence number
     * @return false when {@code seq} is stale
     */
    public boolean testInsert(int seq) {
        return !SequenceNumbers.lessThan(seq, (sequence - size) & 0xFFFF);
    }

    /**
     * Inserts {@code seq}: rejects it when stale, otherwise advances past it when it is the newest,
     * then occupies its slot (reference {@code reliable_sequence_buffer_insert}).
     *
     * @param seq a sequence number
     * @return the slot index, or -1 when {@code seq} is stale
     */
    public int insert(int seq) {
        if (SequenceNumbers.lessThan(seq, (sequence - size) & 0xFFFF)) {
            return -1;
        }
        advance(seq);
        int index = slot(seq);
        entrySequence[index] = seq;
        if (tracked) {
            slotWritten(seq, true);
        }
        return index;
    }

    /**
     * Inserts {@code seq}, checking newness before staleness (reference
     * {@code reliable_sequence_buffer_insert_with_cleanup}, used for fragment reassembly). The
     * previous occupant of the slot, if any, is overwritten; the caller re-initialises its data.
     *
     * @param seq a sequence number
     * @return the slot index, or -1 when {@code seq} is stale
     */
    public int insertAdvanceFirst(int seq) {
        if (SequenceNumbers.greaterThan((seq + 1) & 0xFFFF, sequence)) {
            moveTo(seq);
        } else if (SequenceNumbers.lessThan(seq, (sequence - size) & 0xFFFF)) {
            return -1;
        }
        int index = slot(seq);
        entrySequence[index] = seq;
        if (tracked) {
            slotWritten(seq, true);
        }
        return index;
    }

    /**
     * Moves the next expected sequence past {@code seq} when {@code seq} is the newest, emptying the
     * slots in between; does nothing otherwise.
     *
     * @param seq a sequence number
     */
    public void advance(int seq) {
        if (SequenceNumbers.greaterThan((seq + 1) & 0xFFFF, sequence)) {
            moveTo(seq);
        }
    }

    /**
     * Empties the slot of {@code seq}, whichever sequence occupies it.
     *
     * @param seq a sequence number
     */
    public void remove(int seq) {
        entrySequence[slot(seq)] = EMPTY;
        if (tracked) {
            slotWritten(seq, false);
        }
    }

    /**
     * Whether the slot of {@code seq} is empty.
     *
     * @param seq a sequence number
     * @return true when nothing occupies the slot
     */
    public boolean available(int seq) {
        return entrySequence[slot(seq)] == EMPTY;
    }

    /**
     * Whether {@code seq} itself occupies its slot.
     *
     * @param seq a sequence number
     * @return true when present
     */
    public boolean exists(int seq) {
        return entrySequence[slot(seq)] == seq;
    }

    /**
     * The slot holding {@code seq}.
     *
     * @param seq a sequence number
     * @return the slot index, or -1 when {@code seq} is not present
     */
    public int find(int seq) {
        int index = slot(seq);
        return entrySequence[index] == seq ? index : -1;
    }

    /**
     * The sequence occupying a slot.
     *
     * @param index a slot index, 0..size-1
     * @return the sequence, or -1 when the slot is empty
     */
    public int sequenceAt(int index) {
        return entrySequence[index];
    }

    /**
     * The {@code ack} a packet header carries for this buffer: the newest sequence seen,
     * {@code sequence() - 1}.
     *
     * @return the ack sequence, 0..65535
     */
    public int ackSequence() {
        return (sequence - 1) & 0xFFFF;
    }

    /**
     * The {@code ack_bits} a packet header carries for this buffer: bit {@code n} set when
     * {@code ackSequence() - n} is present.
     *
     * @return the 32 ack bits
     */
    public int ackBits() {
        return tracked ? recentBits : scanAckBits();
    }

    /** {@link #ackBits()} computed from the slots, as the reference does on every packet. */
    int scanAckBits() {
        int ack = ackSequence();
        int bits = 0;
        for (int i = 0; i < 32; ++i) {
            if (exists((ack - i) & 0xFFFF)) {
                bits |= 1 << i;
            }
        }
        return bits;
    }
}
