package io.reliableudp.packet;

import static io.reliableudp.internal.WireCodec.getU16LE;
import static io.reliableudp.internal.WireCodec.putU16LE;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One end of a {@code reliable} 1.4.0 packet connection: sequence numbers, piggybacked acks,
 * fragmentation and reassembly, RTT/jitter/loss/bandwidth statistics and counters, byte for byte and
 * float for float as the reference C library (checked by the conformance vectors). No I/O: datagrams
 * leave through the {@link PacketTransmitter} and enter through {@link #receivePacket}; payloads
 * leave through the {@link PacketProcessor}.
 *
 * <p>Single-threaded: every method must be called from one thread at a time (the owner's). Times are
 * seconds as {@code double}, given by the caller at construction and to {@link #update}; RTT figures
 * are milliseconds.
 *
 * <p>Memory is allocated at construction (the windows), for the transmit buffer of the {@code byte[]}
 * send and of fragments on the first such send (as large as the largest packet so far, doubling, at
 * most {@code maxPacketSize} plus a header) and, for reassembly, a buffer sized by the configuration
 * ({@code 9 + maxFragments * fragmentSize} bytes) only when a packet starts and no released buffer is free, so at most one per
 * reassembly slot: steady-state sending and receiving allocate nothing, and nothing a peer claims
 * sizes an allocation.
 *
 * <p>Differences from the reference, all where the reference asserts or leaves the result to the
 * caller: a 0-byte payload is refused (counted) unless {@link ReliableConfig#allowEmptyPayload()}; a
 * 0-byte datagram is dropped (counted); a payload needing more than {@code maxFragments} fragments is
 * refused as too large to send; with an {@link AckListener} set, acks found while the ack list is full
 * are still taken (see {@link #ack(int)}).
 */
public final class ReliableEndpoint {

    private static final Logger LOG = System.getLogger(ReliableEndpoint.class.getName());

    private static final int MAX_HEADER = PacketHeaderCodec.MAX_HEADER_BYTES;
    private static final int FRAGMENT_HEADER = PacketHeaderCodec.FRAGMENT_HEADER_BYTES;
    private static final byte[] NO_BYTES = new byte[0];
    /** The first transmit buffer's size: one datagram of the usual budget. */
    private static final int FIRST_TRANSMIT_BUFFER = 2048;

    private final ReliableConfig config;
    private final PacketTransmitter transmitter;
    private final PacketProcessor processor;
    private @Nullable AckListener ackListener;
    private @Nullable RttListener rttListener;

    private double time;
    private float rtt;
    private float rttMin;
    private float rttMax;
    private float rttAvg;
    private float jitterAvgVsMinRtt;
    private float jitterMaxVsMinRtt;
    private float jitterStddevVsAvgRtt;
    private float packetLoss;
    private float sentBandwidthKbps;
    private float receivedBandwidthKbps;
    private float ackedBandwidthKbps;

    private int numAcks;
    private final int[] acks;
    private int sequence;
    private final float[] rttHistory;
    private final int rttHistoryMask;
    /**
     * Where the {@code byte[]} send and the fragments are put together: none until the first such send,
     * then as large as the largest one so far (doubling, up to {@link #transmitBufferLimit}), so an
     * endpoint that sends in place only (the transport's) never holds one.
     */
    private byte[] transmitBuffer = NO_BYTES;
    private final int transmitBufferLimit;
    /**
     * Payloads up to this many bytes go as one datagram, longer ones as fragments: the configuration's
     * {@code fragmentAbove} until {@link #setFragmentAbove} moves it (a grown datagram budget).
     */
    private int fragmentAbove;
    /** Where the in-place send encodes a header before putting it in front of the payload. */
    private final byte[] headerScratch = new byte[MAX_HEADER];
    private final PacketHeaderCodec decoder = new PacketHeaderCodec();

    private final SequenceBuffer sentPackets;
    private final double[] sentTime;
    private final int[] sentBytes;
    private final boolean[] sentAcked;
    /**
     * A filter for the ack walk, one bit per sent slot (when the sent buffer is a power of two of at
     * least 64 slots, else null): set whenever a packet is stored unacked in the slot, cleared when it
     * is acked. A clear bit proves the slot holds no unacked packet, so the walk looks only at the set
     * bits among the peer's ack bits; every candidate is still checked exactly as the reference does.
     */
    private final long @Nullable [] sentUnacked;
    private final int sentMask;

    private final SequenceBuffer receivedPackets;
    /** {@link ReliableConfig#fullAckBitsAtStart()}, until the peer's sequences reach 32. */
    private boolean startAcksLeft;
    private final double[] receivedTime;
    private final int[] receivedBytes;

    private final SequenceBuffer reassembly;
    private final int[] reassemblyFragmentsReceived;
    private final int[] reassemblyFragmentsTotal;
    private final int[] reassemblyPacketBytes;
    private final int[] reassemblyHeaderBytes;
    private final boolean[] reassemblyFragmentReceived;
    /** The buffer each reassembly slot uses, or null: taken on the slot's first fragment, released when the packet completes. */
    private final @Nullable byte[][] reassemblyData;
    /**
     * Buffers released by completed packets, reused before any new one is allocated: in steady state
     * one warm buffer serves every packet (as the reference's malloc/free does) instead of one per
     * slot going cold. At most one buffer per slot is ever allocated.
     */
    private final byte[][] reassemblyFree;
    private int reassemblyFreeCount;
    private final int reassemblyDataSize;

    private final long[] counters = new long[PacketCounter.values().length];

    /*
     * The statistics' inputs change only when a packet is sent, received or acked (or on reset): until
     * then an update finds the same samples as the last one did, so it reuses them and only smooths
     * (the same float operations on the same values: the same results, bit for bit).
     */
    /** The RTT history changed since the RTT figures were last computed. */
    private boolean rttStale = true;
    /** The sent or received window changed since the loss and bandwidth samples were last taken. */
    private boolean windowStale = true;
    private boolean lossSampled;
    private float lossSample;
    /** Bandwidth samples of the last pass, NaN when that pass had none (too few packets to span a time). */
    private float sentKbpsSample = Float.NaN;
    private float ackedKbpsSample = Float.NaN;
    private float receivedKbpsSample = Float.NaN;
    private long windowPasses;

    /**
     * Creates an endpoint whose first packet will have sequence 0.
     *
     * @param config      the configuration
     * @param time        the current time, seconds
     * @param transmitter where datagrams go
     * @param processor   where received payloads go
     */
    public ReliableEndpoint(ReliableConfig config, double time, PacketTransmitter transmitter, PacketProcessor processor) {
        this(config, time, transmitter, processor, true);
    }

    /** As the public constructor; {@code ackWalkFilter} false forces the plain 32-bit ack walk (tests compare both). */
    ReliableEndpoint(ReliableConfig config, double time, PacketTransmitter transmitter, PacketProcessor processor,
            boolean ackWalkFilter) {
        this.config = Objects.requireNonNull(config, "config");
        this.transmitter = Objects.requireNonNull(transmitter, "transmitter");
        this.processor = Objects.requireNonNull(processor, "processor");
        this.time = time;
        this.acks = new int[config.ackBufferSize()];
        this.rttHistory = new float[config.rttHistorySize()];
        Arrays.fill(rttHistory, -1.0f);
        int historySize = config.rttHistorySize();
        this.rttHistoryMask = (historySize & (historySize - 1)) == 0 ? historySize - 1 : -1;
        this.fragmentAbove = config.fragmentAbove();
        this.transmitBufferLimit = Math.max(config.maxPacketSize() + MAX_HEADER,
                FRAGMENT_HEADER + MAX_HEADER + config.fragmentSize());

        int sent = config.sentPacketsBufferSize();
        this.sentPackets = new SequenceBuffer(sent);
        this.sentTime = new double[sent];
        this.sentBytes = new int[sent];
        this.sentAcked = new boolean[sent];
        boolean filtered = ackWalkFilter && sent >= 64 && (sent & (sent - 1)) == 0;
        this.sentUnacked = filtered ? new long[sent >>> 6] : null;
        this.sentMask = filtered ? sent - 1 : -1;

        int received = config.receivedPacketsBufferSize();
        this.receivedPackets = new SequenceBuffer(received);
        this.startAcksLeft = config.fullAckBitsAtStart();
        this.receivedTime = new double[received];
        this.receivedBytes = new int[received];

        int slots = config.fragmentReassemblyBufferSize();
        this.reassembly = new SequenceBuffer(slots);
        this.reassemblyFragmentsReceived = new int[slots];
        this.reassemblyFragmentsTotal = new int[slots];
        this.reassemblyPacketBytes = new int[slots];
        this.reassemblyHeaderBytes = new int[slots];
        this.reassemblyFragmentReceived = new boolean[slots * config.maxFragments()];
        this.reassemblyData = new byte[slots][];
        this.reassemblyFree = new byte[slots][];
        this.reassemblyDataSize = MAX_HEADER + config.maxFragments() * config.fragmentSize();
    }

    /**
     * The configuration.
     *
     * @return the configuration given at construction
     */
    public ReliableConfig config() {
        return config;
    }

    /**
     * Sets (or, with null, removes) the listener told about each newly acked packet.
     *
     * <p>Without a listener, acks follow the reference exactly: an ack found while the ack list is full
     * is dropped and the packet stays unacked (a later header may ack it). With a listener, such an
     * ack is still taken (counted, RTT sampled, listener called) but not added to the list, so the
     * list may be left unread.
     *
     * @param listener the listener, or null
     */
    public void setAckListener(@Nullable AckListener listener) {
        this.ackListener = listener;
    }

    /**
     * Sets (or, with null, removes) the listener told about each RTT sample (one per newly acked
     * packet). It observes only: the endpoint behaves the same with or without it.
     *
     * @param listener the listener, or null
     */
    public void setRttListener(@Nullable RttListener listener) {
        this.rttListener = listener;
    }

    /**
     * The sequence the next sent packet will use.
     *
     * @return 0..65535
     */
    public int nextPacketSequence() {
        return sequence;
    }

    /**
     * Moves the size above which a payload is sent as fragments (a connection whose datagram budget
     * grew sends larger regular packets; one that fell back, smaller ones). Not part of the reference:
     * its {@code fragment_above} is fixed at creation.
     *
     * @param bytes within 1..{@code maxPacketSize}
     */
    public void setFragmentAbove(int bytes) {
        if (bytes < 1 || bytes > config.maxPacketSize()) {
            throw new IllegalArgumentException("fragmentAbove must be within 1.." + config.maxPacketSize() + ", was " + bytes);
        }
        this.fragmentAbove = bytes;
    }

    /** The size above which a payload is sent as fragments ({@link #setFragmentAbove}). */
    public int fragmentAbove() {
        return fragmentAbove;
    }

    /**
     * Sends a packet: one datagram when the payload is at most {@code fragmentAbove} bytes, else
     * {@code ceil(length / fragmentSize)} fragments. The transmitter is called before this returns,
     * with the header and the payload copied into the endpoint's transmit buffer (see
     * {@link #sendPacket(ByteBuffer, int, int)} for the variant that writes the header in place).
     *
     * @param data   payload buffer
     * @param offset first payload byte
     * @param length payload length
     * @return the sequence used, or -1 when nothing was sent: payload longer than
     *         {@code maxPacketSize} or needing more than {@code maxFragments} fragments
     *         ({@link PacketCounter#NUM_PACKETS_TOO_LARGE_TO_SEND}), or empty while
     *         {@link ReliableConfig#allowEmptyPayload()} is false
     *         ({@link PacketCounter#NUM_EMPTY_PAYLOADS_NOT_SENT}); no sequence is used then
     * @throws IndexOutOfBoundsException when the range is outside {@code data}
     */
    public int sendPacket(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        int seq = startPacket(length);
        if (seq < 0) {
            return -1;
        }
        int ack = receivedPackets.ackSequence();
        int ackBits = ackBitsToSend(ack);
        if (length <= fragmentAbove) {
            byte[] out = transmitBuffer(MAX_HEADER + length);
            int headerBytes = PacketHeaderCodec.encode(out, 0, seq, ack, ackBits);
            System.arraycopy(data, offset, out, headerBytes, length);
            transmitter.transmit(seq, out, 0, headerBytes + length);
        } else {
            sendFragments(seq, ack, ackBits, data, null, offset, length);
        }
        counters[PacketCounter.NUM_PACKETS_SENT.ordinal()]++;
        return seq;
    }

    /**
     * Sends a packet whose payload already lies in the caller's buffer, writing the header in place:
     * the regular header (4 to 9 bytes, its length known before it is written) goes right in front of
     * the payload, at {@code buffer[offset - headerLength, offset)}, and the transmitter's
     * {@link PacketTransmitter#transmit(int, ByteBuffer, int, int)} is given that region of the same
     * buffer, so the payload is not copied. The bytes, the sequence, the counters and the statistics
     * are exactly those of {@link #sendPacket(byte[], int, int)} with the same payload.
     *
     * <p>A payload above {@code fragmentAbove} is sent as fragments through the transmit buffer and
     * the {@code byte[]} transmit, as {@link #sendPacket(byte[], int, int)} does: fragments need a
     * header in front of every slice of the payload, so that path copies.
     *
     * <p>Absolute indexes: the buffer's position and limit are not moved, but the bytes must lie within
     * its limit. The header room {@code buffer[offset - 9, offset)} is overwritten.
     *
     * @param buffer a writable buffer holding the payload (heap or direct)
     * @param offset index of the first payload byte; at least {@value PacketHeaderCodec#MAX_HEADER_BYTES}
     * @param length payload length
     * @return the sequence used, or -1 when nothing was sent (as {@link #sendPacket(byte[], int, int)})
     * @throws IndexOutOfBoundsException when the range is outside the buffer's limit
     * @throws IllegalArgumentException when there are fewer than 9 bytes of header room before {@code offset}
     */
    public int sendPacket(ByteBuffer buffer, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, buffer.limit());
        if (offset < MAX_HEADER) {
            throw new IllegalArgumentException("an in-place packet needs " + MAX_HEADER
                    + " bytes of header room before its payload, offset was " + offset);
        }
        int seq = startPacket(length);
        if (seq < 0) {
            return -1;
        }
        int ack = receivedPackets.ackSequence();
        int ackBits = ackBitsToSend(ack);
        if (length <= fragmentAbove) {
            // the one header codec writes into a scratch; its 4-9 bytes go in front of the payload
            byte[] header = headerScratch;
            int headerBytes = PacketHeaderCodec.encode(header, 0, seq, ack, ackBits);
            int start = offset - headerBytes;
            buffer.put(start, header, 0, headerBytes);
            transmitter.transmit(seq, buffer, start, headerBytes + length);
        } else {
            sendFragments(seq, ack, ackBits, null, buffer, offset, length);
        }
        counters[PacketCounter.NUM_PACKETS_SENT.ordinal()]++;
        return seq;
    }

    /**
     * The checks and bookkeeping every sent packet shares: refuses (counted) an empty payload when
     * not allowed and one too large, else takes the next sequence and records the packet as sent.
     *
     * @return the sequence, or -1 when refused
     */
    private int startPacket(int length) {
        if (length == 0 && !config.allowEmptyPayload()) {
            counters[PacketCounter.NUM_EMPTY_PAYLOADS_NOT_SENT.ordinal()]++;
            if (LOG.isLoggable(Level.DEBUG)) {
                LOG.log(Level.DEBUG, "[{0}] empty payload not sent (allowEmptyPayload is false)", config.name());
            }
            return -1;
        }
        int fragmentSize = config.fragmentSize();
        boolean fragmented = length > fragmentAbove;
        int numFragments = fragmented ? length / fragmentSize + (length % fragmentSize != 0 ? 1 : 0) : 1;
        if (length > config.maxPacketSize() || numFragments > config.maxFragments()) {
            counters[PacketCounter.NUM_PACKETS_TOO_LARGE_TO_SEND.ordinal()]++;
            if (LOG.isLoggable(Level.WARNING)) {
                // name the limit that refused it: the size, or the fragment count (a size under
                // maxPacketSize can still need more than maxFragments fragments)
                if (length > config.maxPacketSize()) {
                    LOG.log(Level.WARNING, "[{0}] packet too large to send: {1} bytes, above maxPacketSize {2}",
                            config.name(), length, config.maxPacketSize());
                } else {
                    LOG.log(Level.WARNING, "[{0}] packet too large to send: {1} bytes need {2} fragments of {3}, above maxFragments {4}",
                            config.name(), length, numFragments, fragmentSize, config.maxFragments());
                }
            }
            return -1;
        }

        int seq = sequence;
        sequence = (sequence + 1) & 0xFFFF;

        windowStale = true;
        int slot = sentPackets.insert(seq);
        // cannot be stale: the sent buffer's next sequence is always this one (asserted by the reference)
        sentTime[slot] = time;
        sentBytes[slot] = config.packetHeaderSize() + length;
        sentAcked[slot] = false;
        long[] unacked = sentUnacked;
        if (unacked != null) {
            unacked[slot >>> 6] |= 1L << slot;
        }
        return seq;
    }

    /** The transmit buffer, grown (doubling, within the limit) to hold at least {@code bytes}. */
    private byte[] transmitBuffer(int bytes) {
        byte[] out = transmitBuffer;
        if (out.length < bytes) {
            int n = Math.max(out.length, FIRST_TRANSMIT_BUFFER);
            while (n < bytes) {
                n *= 2;
            }
            out = new byte[Math.min(n, transmitBufferLimit)];
            transmitBuffer = out;
        }
        return out;
    }

    /** Sends a payload as fragments through the transmit buffer; it comes from {@code data} or else from {@code buffer}. */
    private void sendFragments(int seq, int ack, int ackBits, byte @Nullable [] data, @Nullable ByteBuffer buffer,
            int offset, int length) {
        int fragmentSize = config.fragmentSize();
        int numFragments = length / fragmentSize + (length % fragmentSize != 0 ? 1 : 0);
        byte[] out = transmitBuffer(FRAGMENT_HEADER + MAX_HEADER + fragmentSize);
        int q = offset;
        int end = offset + length;
        for (int fragmentId = 0; fragmentId < numFragments; ++fragmentId) {
            out[0] = 1;
            putU16LE(out, 1, seq);
            out[3] = (byte) fragmentId;
            out[4] = (byte) (numFragments - 1);
            int p = FRAGMENT_HEADER;
            if (fragmentId == 0) {
                p += PacketHeaderCodec.encode(out, p, seq, ack, ackBits);
            }
            int bytes = Math.min(fragmentSize, end - q);
            if (data != null) {
                System.arraycopy(data, q, out, p, bytes);
            } else {
                Objects.requireNonNull(buffer).get(q, out, p, bytes);
            }
            p += bytes;
            q += bytes;
            transmitter.transmit(seq, out, 0, p);
            counters[PacketCounter.NUM_FRAGMENTS_SENT.ordinal()]++;
        }
    }

    /**
     * Handles one received datagram: a regular packet (processed, recorded, its acks taken) or a
     * fragment (stored; the packet is processed when its last fragment arrives). Never throws for
     * any content; every rejection is counted and returned. Exceptions thrown by the processor or
     * the ack listener propagate.
     *
     * @param data   datagram buffer (only read during the call)
     * @param offset first datagram byte
     * @param length datagram length
     * @return what happened to the datagram
     * @throws IndexOutOfBoundsException when the range is outside {@code data}
     */
    public ReceiveOutcome receivePacket(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        if (length == 0) {
            counters[PacketCounter.NUM_EMPTY_DATAGRAMS_RECEIVED.ordinal()]++;
            if (LOG.isLoggable(Level.DEBUG)) {
                LOG.log(Level.DEBUG, "[{0}] empty datagram dropped", config.name());
            }
            return ReceiveOutcome.EMPTY_DATAGRAM;
        }
        return receive(data, offset, length);
    }

    private ReceiveOutcome receive(byte[] data, int offset, int length) {
        if (length > config.maxDatagramSize()) {
            counters[PacketCounter.NUM_PACKETS_TOO_LARGE_TO_RECEIVE.ordinal()]++;
            debug("datagram too large to receive", length);
            return ReceiveOutcome.TOO_LARGE_TO_RECEIVE_DATAGRAM;
        }
        if ((data[offset] & 1) == 0) {
            return receiveRegular(data, offset, length);
        }
        return receiveFragment(data, offset, length);
    }

    private ReceiveOutcome receiveRegular(byte[] data, int offset, int length) {
        counters[PacketCounter.NUM_PACKETS_RECEIVED.ordinal()]++;
        int headerBytes = decoder.decode(data, offset, length);
        if (headerBytes < 0) {
            counters[PacketCounter.NUM_PACKETS_INVALID.ordinal()]++;
            debug("invalid packet header", length);
            return ReceiveOutcome.INVALID_PACKET_HEADER;
        }
        int seq = decoder.sequence();
        int ack = decoder.ack();
        int ackBits = decoder.ackBits();
        int payloadBytes = length - headerBytes;
        if (payloadBytes > config.maxPacketSize()) {
            counters[PacketCounter.NUM_PACKETS_TOO_LARGE_TO_RECEIVE.ordinal()]++;
            debug("payload too large to receive", payloadBytes);
            return ReceiveOutcome.TOO_LARGE_TO_RECEIVE_PAYLOAD;
        }
        if (!receivedPackets.testInsert(seq)) {
            counters[PacketCounter.NUM_PACKETS_STALE.ordinal()]++;
            debug("stale packet", seq);
            return ReceiveOutcome.STALE;
        }
        if (receivedPackets.exists(seq)) {
            counters[PacketCounter.NUM_PACKETS_DUPLICATE.ordinal()]++;
            debug("duplicate packet", seq);
            return ReceiveOutcome.DUPLICATE;
        }
        if (!processor.process(seq, data, offset + headerBytes, payloadBytes)) {
            counters[PacketCounter.NUM_PACKETS_REJECTED_BY_PROCESSOR.ordinal()]++;
            debug("packet rejected by processor", seq);
            return ReceiveOutcome.REJECTED_BY_PROCESS_CALLBACK;
        }
        windowStale = true;
        int slot = receivedPackets.insert(seq);
        peerSequenceSeen(seq);
        reassembly.advance(seq);
        receivedTime[slot] = time;
        receivedBytes[slot] = config.packetHeaderSize() + length;
        processAcks(ack, ackBits);
        return ReceiveOutcome.DELIVERED;
    }

    /**
     * The {@code ack_bits} of a header acking {@code ack}: the received packets' bits, and, with
     * {@link ReliableConfig#fullAckBitsAtStart()} until the peer's sequences reach 32, those of the 32
     * sequences before 0 that the window still covers (sequences the peer has not sent).
     */
    private int ackBitsToSend(int ack) {
        int bits = receivedPackets.ackBits();
        if (startAcksLeft) {
            if (ack >= 0x10000 - 32) {
                bits |= (int) ((1L << (ack - (0x10000 - 32) + 1)) - 1);
            } else if (ack < 31) {
                bits |= -1 << (ack + 1);
            }
        }
        return bits;
    }

    /**
     * A packet (or fragment) of the peer's sequence {@code seq} arrived: from sequence 31 on the window
     * of every later header lies past the sequences before 0, and stays so for good (after the peer's
     * sequences wrap, 65504..65535 are its real packets), whether or not this end sent meanwhile.
     */
    private void peerSequenceSeen(int seq) {
        if (seq >= 31 && seq < 0x10000 - 32) {
            startAcksLeft = false;
        }
    }

    private void processAcks(int ack, int ackBits) {
        long[] unacked = sentUnacked;
        if (unacked == null) {
            int bits = ackBits;
            for (int i = 0; i < 32 && bits != 0; ++i, bits >>>= 1) {
                if ((bits & 1) != 0) {
                    ackOne((ack - i) & 0xFFFF);
                }
            }
            return;
        }
        // newest first, as the reference: bit i acks (ack - i); only slots that may hold an unacked packet
        int candidates = ackBits & unackedWindow(unacked, ack);
        while (candidates != 0) {
            int i = Integer.numberOfTrailingZeros(candidates);
            if (ackOne((ack - i) & 0xFFFF)) {
                // the listener may have sent (or reset): look again at the positions still to walk
                candidates = ackBits & unackedWindow(unacked, ack) & (int) (-1L << (i + 1));
            } else {
                candidates &= candidates - 1;
            }
        }
    }

    /**
     * Bit i set when the slot of {@code ack - i} (i = 0..31) may hold an unacked packet: the 32
     * slots from {@code ack - 31} to {@code ack}, read from the bit set and reversed.
     */
    private int unackedWindow(long[] unacked, int ack) {
        int first = (ack - 31) & sentMask;
        int word = first >>> 6;
        int bit = first & 63;
        long window = unacked[word] >>> bit;
        if (bit > 32) {
            window |= unacked[(word + 1) & (unacked.length - 1)] << (64 - bit);
        }
        return Integer.reverse((int) window);
    }

    /**
     * Takes the ack of one sent packet, unless it is not in the sent window or already acked.
     *
     * @return whether the ack listener was called
     */
    private boolean ackOne(int ackSequence) {
        int slot = sentPackets.find(ackSequence);
        if (slot < 0 || sentAcked[slot]) {
            return false;
        }
        AckListener listener = ackListener;
        if (numAcks < acks.length) {
            acks[numAcks++] = ackSequence;
        } else {
            counters[PacketCounter.NUM_ACKS_NOT_LISTED.ordinal()]++;
            if (LOG.isLoggable(Level.DEBUG)) {
                LOG.log(Level.DEBUG, "[{0}] ack buffer is full: ack of packet {1} not listed (call clearAcks)",
                        config.name(), ackSequence);
            }
            if (listener == null) {
                return false;
            }
        }
        counters[PacketCounter.NUM_PACKETS_ACKED.ordinal()]++;
        sentAcked[slot] = true;
        windowStale = true;
        rttStale = true;
        long[] unacked = sentUnacked;
        if (unacked != null) {
            unacked[slot >>> 6] &= ~(1L << slot);
        }
        float sample = (float) (time - sentTime[slot]) * 1000.0f;
        rttHistory[rttHistoryMask >= 0 ? ackSequence & rttHistoryMask : ackSequence % rttHistory.length] = sample;
        if ((rtt == 0.0f && sample > 0.0f) || Math.abs(rtt - sample) < 0.00001) {
            rtt = sample;
        } else {
            rtt += (sample - rtt) * config.rttSmoothingFactor();
        }
        RttListener samples = rttListener;
        if (samples != null) {
            samples.rttSample(ackSequence, sample);
        }
        if (listener != null) {
            listener.acked(ackSequence);
            return true;
        }
        return false;
    }

    private ReceiveOutcome receiveFragment(byte[] data, int offset, int length) {
        int fragmentSize = config.fragmentSize();
        if (length < FRAGMENT_HEADER || data[offset] != 1) {
            return fragmentInvalid("bad fragment prefix or length", length);
        }
        int seq = getU16LE(data, offset + 1);
        int fragmentId = data[offset + 3] & 0xFF;
        int numFragments = (data[offset + 4] & 0xFF) + 1;
        if (numFragments > config.maxFragments()) {
            return fragmentInvalid("fragment count above maxFragments", numFragments);
        }
        if (fragmentId >= numFragments) {
            return fragmentInvalid("fragment id out of range", fragmentId);
        }
        int fragmentBytes = length - FRAGMENT_HEADER;
        int ack = 0;
        int ackBits = 0;
        int embeddedHeaderBytes = 0;
        if (fragmentId == 0) {
            embeddedHeaderBytes = decoder.decode(data, offset + FRAGMENT_HEADER, length - FRAGMENT_HEADER);
            if (embeddedHeaderBytes < 0) {
                return fragmentInvalid("bad packet header in fragment", seq);
            }
            if (decoder.sequence() != seq) {
                return fragmentInvalid("packet sequence in fragment differs", decoder.sequence());
            }
            ack = decoder.ack();
            ackBits = decoder.ackBits();
            // a header that decoded is canonical exactly when its prefix is the canonical one
            if ((data[offset + FRAGMENT_HEADER] & 0xFF) != PacketHeaderCodec.canonicalPrefix(seq, ack, ackBits)) {
                return fragmentInvalid("non-canonical packet header in fragment", seq);
            }
            fragmentBytes -= embeddedHeaderBytes;
        }
        if (fragmentBytes > fragmentSize) {
            return fragmentInvalid("fragment longer than fragmentSize", fragmentBytes);
        }
        if (fragmentId != numFragments - 1 && fragmentBytes != fragmentSize) {
            return fragmentInvalid("fragment other than the last not fragmentSize long", fragmentBytes);
        }

        if (receivedPackets.exists(seq)) {
            debug("fragment of a packet already received", seq);
            return ReceiveOutcome.FRAGMENT_IGNORED_SILENTLY;
        }
        int slot = reassembly.find(seq);
        if (slot < 0) {
            slot = reassembly.insertAdvanceFirst(seq);
            if (slot < 0) {
                return fragmentInvalid("stale fragment", seq);
            }
            receivedPackets.advance(seq);
            peerSequenceSeen(seq);
            windowStale = true;
            reassemblyFragmentsReceived[slot] = 0;
            reassemblyFragmentsTotal[slot] = numFragments;
            reassemblyPacketBytes[slot] = 0;
            reassemblyHeaderBytes[slot] = 0;
            int maxFragments = config.maxFragments();
            Arrays.fill(reassemblyFragmentReceived, slot * maxFragments, (slot + 1) * maxFragments, false);
            if (reassemblyData[slot] == null) {
                reassemblyData[slot] = reassemblyFreeCount > 0 ? reassemblyFree[--reassemblyFreeCount]
                        : new byte[reassemblyDataSize];
            }
        }
        if (numFragments != reassemblyFragmentsTotal[slot]) {
            return fragmentInvalid("fragment count differs from the packet's", numFragments);
        }
        int receivedIndex = slot * config.maxFragments() + fragmentId;
        if (reassemblyFragmentReceived[receivedIndex]) {
            debug("fragment already received", fragmentId);
            return ReceiveOutcome.FRAGMENT_IGNORED_SILENTLY;
        }
        reassemblyFragmentsReceived[slot]++;
        reassemblyFragmentReceived[receivedIndex] = true;

        byte[] packet = Objects.requireNonNull(reassemblyData[slot]);
        if (fragmentId == numFragments - 1) {
            reassemblyPacketBytes[slot] = (numFragments - 1) * fragmentSize + fragmentBytes;
        }
        if (fragmentId == 0) {
            // the embedded header is canonical (checked above): copy it with the payload, just before it
            reassemblyHeaderBytes[slot] = embeddedHeaderBytes;
            System.arraycopy(data, offset + FRAGMENT_HEADER, packet, MAX_HEADER - embeddedHeaderBytes,
                    embeddedHeaderBytes + fragmentBytes);
        } else {
            System.arraycopy(data, offset + FRAGMENT_HEADER, packet, MAX_HEADER + fragmentId * fragmentSize, fragmentBytes);
        }

        ReceiveOutcome outcome = ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE;
        if (reassemblyFragmentsReceived[slot] == numFragments) {
            int headerBytes = reassemblyHeaderBytes[slot];
            ReceiveOutcome inner = receive(packet, MAX_HEADER - headerBytes, headerBytes + reassemblyPacketBytes[slot]);
            reassembly.remove(seq);
            releaseReassemblyBuffer(slot);
            outcome = switch (inner) {
                case DELIVERED -> ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED;
                case REJECTED_BY_PROCESS_CALLBACK ->
                        ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_REJECTED_BY_PROCESS_CALLBACK;
                case TOO_LARGE_TO_RECEIVE_DATAGRAM, TOO_LARGE_TO_RECEIVE_PAYLOAD ->
                        ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_TOO_LARGE_TO_RECEIVE;
                default -> ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_DISCARDED;
            };
        }
        counters[PacketCounter.NUM_FRAGMENTS_RECEIVED.ordinal()]++;
        return outcome;
    }

    private void releaseReassemblyBuffer(int slot) {
        byte[] buffer = reassemblyData[slot];
        if (buffer != null) {
            reassemblyData[slot] = null;
            reassemblyFree[reassemblyFreeCount++] = buffer;
        }
    }

    private ReceiveOutcome fragmentInvalid(String reason, int value) {
        counters[PacketCounter.NUM_FRAGMENTS_INVALID.ordinal()]++;
        debug(reason, value);
        return ReceiveOutcome.FRAGMENT_INVALID;
    }

    private void debug(String reason, int value) {
        if (LOG.isLoggable(Level.DEBUG)) {
            LOG.log(Level.DEBUG, "[{0}] {1} ({2})", config.name(), reason, value);
        }
    }

    /**
     * Number of acks collected since the last {@link #clearAcks()} (at most {@code ackBufferSize}).
     *
     * @return the count
     */
    public int ackCount() {
        return numAcks;
    }

    /**
     * One collected ack, in the order found: for each received header, newest first.
     *
     * @param index 0..ackCount()-1
     * @return the acked sequence
     * @throws IndexOutOfBoundsException when {@code index} is not below {@link #ackCount()}
     */
    public int ack(int index) {
        Objects.checkIndex(index, numAcks);
        return acks[index];
    }

    /** Empties the ack list (the reference {@code reliable_endpoint_clear_acks}). */
    public void clearAcks() {
        numAcks = 0;
    }

    /**
     * Resets sequence numbers, windows, reassembly, acks and counters, as the reference
     * {@code reliable_endpoint_reset}: RTT history and statistics are kept, like the reference does.
     */
    public void reset() {
        startAcksLeft = config.fullAckBitsAtStart();
        numAcks = 0;
        sequence = 0;
        Arrays.fill(acks, 0);
        Arrays.fill(counters, 0);
        sentPackets.reset();
        receivedPackets.reset();
        reassembly.reset();
        windowStale = true;
    }

    /**
     * Sets the current time without recomputing the statistics (the first half of {@link #update}):
     * for a caller that sends and receives between updates and wants each packet's send and ack
     * stamped with the time it happened. A time before the current one is ignored.
     *
     * @param time the current time, seconds
     */
    public void advanceTime(double time) {
        if (time > this.time) {
            this.time = time;
        }
    }

    /**
     * Sets the current time and recomputes the statistics: RTT min/max/average and the three jitter
     * figures over the RTT history, packet loss over the older half of the sent window, and the
     * sent/received/acked bandwidths, in float32 exactly as the reference.
     *
     * <p>The passes over the history and the windows run only when a packet was sent, received or
     * acked since the last update (else their results would be the same): an update of an idle
     * endpoint costs the smoothing steps alone, with the same results as the reference's full passes.
     *
     * @param time the current time, seconds
     */
    public void update(double time) {
        update(time, 1);
    }

    /**
     * As {@link #update(double)} called {@code steps} times at {@code time}: the samples are taken
     * once and the smoothed figures (packet loss, bandwidths) take {@code steps} smoothing steps
     * towards them. For a caller that updates the statistics only when it reads them and wants the
     * smoothing to keep its pace (one step per update it skipped); exactly the reference's result
     * when nothing was sent, received or acked during the skipped updates.
     *
     * @param time  the current time, seconds
     * @param steps smoothing steps, at least 1 (a smaller value counts as 1)
     */
    public void update(double time, int steps) {
        this.time = time;
        if (rttStale) {
            rttStale = false;
            updateRttStatistics();
        }
        if (windowStale) {
            windowStale = false;
            windowPasses++;
            sampleSentWindow();
            sampleReceivedWindow();
        }
        int n = Math.max(1, steps);
        for (int i = 0; i < n; i++) {
            if (!smoothOnce()) {
                break; // every smoothed figure equals its sample: further steps change nothing
            }
        }
    }

    /**
     * How many times the windows were walked for the loss and bandwidth samples since construction:
     * an update that found nothing new does not walk them (for tests and the scale benchmark).
     *
     * @return the number of window passes
     */
    public long windowPasses() {
        return windowPasses;
    }

    private void updateRttStatistics() {
        float[] history = rttHistory;

        float minRtt = 10000.0f;
        float maxRtt = 0.0f;
        float sumRtt = 0.0f;
        int count = 0;
        for (float r : history) {
            if (r >= 0.0f) {
                if (r < minRtt) {
                    minRtt = r;
                }
                if (r > maxRtt) {
                    maxRtt = r;
                }
                sumRtt += r;
                count++;
            }
        }
        if (minRtt == 10000.0f) {
            minRtt = 0.0f;
        }
        rttMin = minRtt;
        rttMax = maxRtt;
        rttAvg = count > 0 ? sumRtt / (float) count : 0.0f;

        // the reference's second and third passes in one: each sum still adds the same terms in the
        // same order (so the same float32 result), but the two chains of additions now overlap
        float sum = 0.0f;
        float max = 0.0f;
        float sumSquares = 0.0f;
        float avg = rttAvg;
        for (float r : history) {
            if (r >= 0.0f) {
                float difference = r - minRtt;
                sum += difference;
                if (difference > max) {
                    max = difference;
                }
                float deviation = r - avg;
                sumSquares += deviation * deviation;
            }
        }
        jitterAvgVsMinRtt = count > 0 ? sum / (float) count : 0.0f;
        jitterMaxVsMinRtt = max;

        // the reference computes (float) pow(x, 0.5); sqrt is the correctly rounded value of the same function
        jitterStddevVsAvgRtt = count > 0 ? (float) Math.sqrt(sumSquares / (float) count) : 0.0f;
    }

    /** The loss and the sent and acked bandwidth samples: the reference's three passes over the older half of the sent window, in one. */
    private void sampleSentWindow() {
        int size = config.sentPacketsBufferSize();
        int base = sentPackets.sequence() - size + 1 + 0xFFFF;
        int numSamples = size / 2;
        int numSent = 0;
        int numDropped = 0;
        int bytesSent = 0;
        double sentStart = Float.MAX_VALUE;
        double sentFinish = 0.0;
        int bytesAcked = 0;
        double ackedStart = Float.MAX_VALUE;
        double ackedFinish = 0.0;
        for (int i = 0; i < numSamples; ++i) {
            int slot = sentPackets.find((base + i) & 0xFFFF);
            if (slot < 0) {
                continue;
            }
            numSent++;
            double t = sentTime[slot];
            bytesSent += sentBytes[slot];
            if (t < sentStart) {
                sentStart = t;
            }
            if (t > sentFinish) {
                sentFinish = t;
            }
            if (sentAcked[slot]) {
                bytesAcked += sentBytes[slot];
                if (t < ackedStart) {
                    ackedStart = t;
                }
                if (t > ackedFinish) {
                    ackedFinish = t;
                }
            } else {
                numDropped++;
            }
        }
        lossSampled = numSent > 0;
        lossSample = lossSampled ? (float) numDropped / (float) numSent * 100.0f : 0.0f;
        sentKbpsSample = sentStart != Float.MAX_VALUE && sentFinish > sentStart
                ? (float) ((double) bytesSent / (sentFinish - sentStart) * 8.0 / 1000.0) : Float.NaN;
        ackedKbpsSample = ackedStart != Float.MAX_VALUE && ackedFinish > ackedStart
                ? (float) ((double) bytesAcked / (ackedFinish - ackedStart) * 8.0 / 1000.0) : Float.NaN;
    }

    private void sampleReceivedWindow() {
        int size = config.receivedPacketsBufferSize();
        int base = receivedPackets.sequence() - size + 1 + 0xFFFF;
        int numSamples = size / 2;
        int bytes = 0;
        double start = Float.MAX_VALUE;
        double finish = 0.0;
        for (int i = 0; i < numSamples; ++i) {
            int slot = receivedPackets.find((base + i) & 0xFFFF);
            if (slot < 0) {
                continue;
            }
            double t = receivedTime[slot];
            bytes += receivedBytes[slot];
            if (t < start) {
                start = t;
            }
            if (t > finish) {
                finish = t;
            }
        }
        receivedKbpsSample = start != Float.MAX_VALUE && finish > start
                ? (float) ((double) bytes / (finish - start) * 8.0 / 1000.0) : Float.NaN;
    }

    /**
     * One smoothing step of the reference's update with the current samples.
     *
     * @return whether the step changed a figure (when it did not, no further step with the same samples will)
     */
    private boolean smoothOnce() {
        float loss = packetLoss;
        float sent = sentBandwidthKbps;
        float acked = ackedBandwidthKbps;
        float received = receivedBandwidthKbps;
        if (lossSampled) {
            if (Math.abs(packetLoss - lossSample) > 0.00001) {
                packetLoss += (lossSample - packetLoss) * config.packetLossSmoothingFactor();
            } else {
                packetLoss = lossSample;
            }
        } else {
            packetLoss = 0.0f;
        }
        if (!Float.isNaN(sentKbpsSample)) {
            sentBandwidthKbps = smooth(sentBandwidthKbps, sentKbpsSample);
        }
        if (!Float.isNaN(ackedKbpsSample)) {
            ackedBandwidthKbps = smooth(ackedBandwidthKbps, ackedKbpsSample);
        }
        if (!Float.isNaN(receivedKbpsSample)) {
            receivedBandwidthKbps = smooth(receivedBandwidthKbps, receivedKbpsSample);
        }
        // bit comparison: a NaN figure (from a NaN sample) that stays NaN is no change
        return Float.floatToRawIntBits(loss) != Float.floatToRawIntBits(packetLoss)
                || Float.floatToRawIntBits(sent) != Float.floatToRawIntBits(sentBandwidthKbps)
                || Float.floatToRawIntBits(acked) != Float.floatToRawIntBits(ackedBandwidthKbps)
                || Float.floatToRawIntBits(received) != Float.floatToRawIntBits(receivedBandwidthKbps);
    }

    private float smooth(float current, float sample) {
        if (Math.abs(current - sample) > 0.00001) {
            return current + (sample - current) * config.bandwidthSmoothingFactor();
        }
        return sample;
    }

    /**
     * A counter.
     *
     * @param counter which one
     * @return its value since construction or the last {@link #reset()}
     */
    public long counter(PacketCounter counter) {
        return counters[counter.ordinal()];
    }

    /**
     * Smoothed round-trip time, milliseconds (0 until the first ack).
     *
     * @return the smoothed RTT
     */
    public float rtt() {
        return rtt;
    }

    /**
     * Smallest RTT in the history, milliseconds, as of the last {@link #update}.
     *
     * @return the minimum RTT
     */
    public float rttMin() {
        return rttMin;
    }

    /**
     * Largest RTT in the history, milliseconds, as of the last {@link #update}.
     *
     * @return the maximum RTT
     */
    public float rttMax() {
        return rttMax;
    }

    /**
     * Mean RTT over the history, milliseconds, as of the last {@link #update}.
     *
     * @return the average RTT
     */
    public float rttAvg() {
        return rttAvg;
    }

    /**
     * Mean of (RTT - minimum RTT) over the history, milliseconds.
     *
     * @return the average jitter against the minimum RTT
     */
    public float jitterAvgVsMinRtt() {
        return jitterAvgVsMinRtt;
    }

    /**
     * Largest (RTT - minimum RTT) in the history, milliseconds.
     *
     * @return the maximum jitter against the minimum RTT
     */
    public float jitterMaxVsMinRtt() {
        return jitterMaxVsMinRtt;
    }

    /**
     * Standard deviation of the RTT history around its mean, milliseconds.
     *
     * @return the RTT standard deviation
     */
    public float jitterStddevVsAvgRtt() {
        return jitterStddevVsAvgRtt;
    }

    /**
     * Smoothed percentage (0..100) of unacked packets in the older half of the sent window.
     *
     * @return the packet loss
     */
    public float packetLoss() {
        return packetLoss;
    }

    /**
     * Smoothed sent bandwidth, kilobits per second, including {@code packetHeaderSize} per packet.
     *
     * @return the sent bandwidth
     */
    public float sentBandwidthKbps() {
        return sentBandwidthKbps;
    }

    /**
     * Smoothed received bandwidth, kilobits per second, including {@code packetHeaderSize} per packet.
     *
     * @return the received bandwidth
     */
    public float receivedBandwidthKbps() {
        return receivedBandwidthKbps;
    }

    /**
     * Smoothed bandwidth of the sent packets that were acked, kilobits per second.
     *
     * @return the acked bandwidth
     */
    public float ackedBandwidthKbps() {
        return ackedBandwidthKbps;
    }
}
