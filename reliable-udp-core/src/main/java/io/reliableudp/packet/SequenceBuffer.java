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
public final class SequenceBuffer {

    private static final int EMPTY = -1;

    private final int size;
    private final int[] entrySequence;
    private int sequence;

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
        this.entrySequence = new int[size];
        Arrays.fill(entrySequence, EMPTY);
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
                entrySequence[s % size] = EMPTY;
            }
        } else {
            Arrays.fill(entrySequence, EMPTY);
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
        int index = seq % size;
        entrySequence[index] = seq;
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
            removeEntries(sequence, seq);
            sequence = (seq + 1) & 0xFFFF;
        } else if (SequenceNumbers.lessThan(seq, (sequence - size) & 0xFFFF)) {
            return -1;
        }
        int index = seq % size;
        entrySequence[index] = seq;
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
            removeEntries(sequence, seq);
            sequence = (seq + 1) & 0xFFFF;
        }
    }

    /**
     * Empties the slot of {@code seq}, whichever sequence occupies it.
     *
     * @param seq a sequence number
     */
    public void remove(int seq) {
        entrySequence[seq % size] = EMPTY;
    }

    /**
     * Whether the slot of {@code seq} is empty.
     *
     * @param seq a sequence number
     * @return true when nothing occupies the slot
     */
    public boolean available(int seq) {
        return entrySequence[seq % size] == EMPTY;
    }

    /**
     * Whether {@code seq} itself occupies its slot.
     *
     * @param seq a sequence number
     * @return true when present
     */
    public boolean exists(int seq) {
        return entrySequence[seq % size] == seq;
    }

    /**
     * The slot holding {@code seq}.
     *
     * @param seq a sequence number
     * @return the slot index, or -1 when {@code seq} is not present
     */
    public int find(int seq) {
        int index = seq % size;
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
