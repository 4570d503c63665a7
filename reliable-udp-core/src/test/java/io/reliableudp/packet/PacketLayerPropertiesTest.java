package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Property tests of the codec, the sequence arithmetic, the sequence buffer and ack correctness. */
class PacketLayerPropertiesTest {

    // ------------------------------------------------------------------ header codec

    @Provide
    Arbitrary<Integer> ackBits() {
        // whole 32-bit space, plus values whose bytes are 0xFF or 0x00 (the encoder's cases) more often
        Arbitrary<Integer> bytes = Arbitraries.of(0x00, 0xFF, 0x01, 0x7F, 0x80, 0xFE);
        Arbitrary<Integer> structured = Arbitraries.integers().between(0, 15).flatMap(mask ->
                bytes.list().ofSize(4).map(list -> {
                    int v = 0;
                    for (int i = 0; i < 4; i++) {
                        v |= list.get(i) << (8 * i);
                    }
                    return v;
                }));
        return Arbitraries.oneOf(Arbitraries.integers(), structured);
    }

    @Property(tries = 3000)
    void headerRoundTripsAndHasTheCanonicalLength(@ForAll @IntRange(min = 0, max = 65535) int sequence,
            @ForAll @IntRange(min = 0, max = 65535) int ack, @ForAll("ackBits") int ackBits) {
        byte[] buffer = new byte[12];
        int length = PacketHeaderCodec.encode(buffer, 1, sequence, ack, ackBits);
        int expected = 3 + (((sequence - ack) & 0xFFFF) <= 255 ? 1 : 2);
        for (int i = 0; i < 4; i++) {
            if (((ackBits >>> (8 * i)) & 0xFF) != 0xFF) {
                expected++;
            }
        }
        assertThat(length).isEqualTo(expected).isEqualTo(PacketHeaderCodec.encodedLength(sequence, ack, ackBits));
        PacketHeaderCodec codec = new PacketHeaderCodec();
        assertThat(codec.decode(buffer, 1, length)).isEqualTo(length);
        assertThat(codec.sequence()).isEqualTo(sequence);
        assertThat(codec.ack()).isEqualTo(ack);
        assertThat(codec.ackBits()).isEqualTo(ackBits);
        // any shorter view is refused, any longer view reads the same header
        for (int shorter = 0; shorter < length; shorter++) {
            assertThat(codec.decode(buffer, 1, shorter)).isEqualTo(-1);
        }
        assertThat(codec.decode(buffer, 1, length + 2)).isEqualTo(length);
    }

    @Property(tries = 2000)
    void nonCanonicalHeadersDecodeToTheSameFields(@ForAll @IntRange(min = 0, max = 65535) int sequence,
            @ForAll @IntRange(min = 0, max = 255) int difference, @ForAll int ackBits) {
        int ack = (sequence - difference) & 0xFFFF;
        // 16-bit ack and every ack_bits byte written
        byte[] b = {0x1E, (byte) sequence, (byte) (sequence >>> 8), (byte) ack, (byte) (ack >>> 8),
                (byte) ackBits, (byte) (ackBits >>> 8), (byte) (ackBits >>> 16), (byte) (ackBits >>> 24)};
        PacketHeaderCodec codec = new PacketHeaderCodec();
        assertThat(codec.decode(b, 0, b.length)).isEqualTo(9);
        assertThat(codec.sequence()).isEqualTo(sequence);
        assertThat(codec.ack()).isEqualTo(ack);
        assertThat(codec.ackBits()).isEqualTo(ackBits);
    }

    // ------------------------------------------------------------------ sequence numbers

    @Property(tries = 3000)
    void wrapComparisonsAreConsistent(@ForAll @IntRange(min = 0, max = 65535) int a, @ForAll @IntRange(min = 0, max = 65535) int b) {
        boolean greater = SequenceNumbers.greaterThan(a, b);
        assertThat(SequenceNumbers.lessThan(b, a)).isEqualTo(greater);
        int d = SequenceNumbers.difference(a, b);
        assertThat(d > 0).isEqualTo(greater);
        assertThat(d < 0).isEqualTo(SequenceNumbers.lessThan(a, b));
        assertThat(SequenceNumbers.add(b, d)).isEqualTo(a);
        if (a == b) {
            assertThat(greater).isFalse();
            assertThat(d).isZero();
        } else if (((a - b) & 0xFFFF) != 32768) {
            // away from the half-way point exactly one of the two orders holds
            assertThat(greater).isNotEqualTo(SequenceNumbers.greaterThan(b, a));
        }
    }

    @Property(tries = 2000)
    void aSequenceIsGreaterThanTheHalfSpaceBehindIt(@ForAll @IntRange(min = 0, max = 65535) int s,
            @ForAll @IntRange(min = 1, max = 32767) int k) {
        assertThat(SequenceNumbers.greaterThan(SequenceNumbers.add(s, k), s)).isTrue();
        assertThat(SequenceNumbers.lessThan(SequenceNumbers.add(s, -k), s)).isTrue();
    }

    // ------------------------------------------------------------------ sequence buffer

    @Property(tries = 300)
    void sequenceBufferKeepsExactlyTheRecentInsertions(@ForAll @IntRange(min = 1, max = 300) int size,
            @ForAll @IntRange(min = 0, max = 65535) int start, @ForAll long seed) {
        SequenceBuffer buffer = new SequenceBuffer(size);
        SplittableRandom random = new SplittableRandom(seed);
        buffer.advance((start - 1) & 0xFFFF);
        Set<Integer> inserted = new HashSet<>();
        // a fresh buffer expects 0: advancing to a sequence 'behind' 0 does nothing, as in the reference
        int newest = (buffer.sequence() - 1) & 0xFFFF;
        for (int i = 0; i < 3 * size + 40; i++) {
            // mostly forward, sometimes a jump, sometimes a late one
            int step = random.nextInt(10) == 0 ? -random.nextInt(Math.max(1, size + 5)) : random.nextInt(1, 4);
            int seq = (newest + step) & 0xFFFF;
            boolean stale = SequenceNumbers.lessThan(seq, (buffer.sequence() - size) & 0xFFFF);
            assertThat(buffer.testInsert(seq)).isEqualTo(!stale);
            int slot = buffer.insert(seq);
            if (stale) {
                assertThat(slot).isEqualTo(-1);
                continue;
            }
            assertThat(slot).isEqualTo(seq % size);
            assertThat(buffer.exists(seq)).isTrue();
            assertThat(buffer.find(seq)).isEqualTo(slot);
            inserted.add(seq);
            if (SequenceNumbers.greaterThan(seq, newest)) {
                newest = seq;
            }
            assertThat(buffer.sequence()).isEqualTo((newest + 1) & 0xFFFF);
            // ack bits describe exactly the present sequences among the 32 newest
            int ack = buffer.ackSequence();
            assertThat(ack).isEqualTo(newest);
            int bits = buffer.ackBits();
            for (int n = 0; n < 32; n++) {
                assertThat((bits >>> n & 1) == 1).isEqualTo(buffer.exists((ack - n) & 0xFFFF));
            }
        }
        // nothing older than the window is present; everything present was inserted
        for (int i = 0; i < size; i++) {
            int s = buffer.sequenceAt(i);
            if (s >= 0) {
                assertThat(inserted).contains(s);
                assertThat(SequenceNumbers.difference(newest, s)).isBetween(0, size - 1);
            }
        }
        buffer.reset();
        assertThat(buffer.sequence()).isZero();
        assertThat(buffer.exists(newest)).isFalse();
    }

    // ------------------------------------------------------------------ acks under loss, reordering, duplication

    /** One direction of traffic: what the sender sent, what the receiver accepted, what the sender heard acked. */
    private static final class Side {
        final ReliableEndpoint endpoint;
        final Set<Integer> acceptedByPeer = new HashSet<>();
        final Set<Integer> acked = new HashSet<>();
        final List<Integer> ackedTwice = new ArrayList<>();

        Side(ReliableEndpoint endpoint) {
            this.endpoint = endpoint;
        }
    }

    private record InFlight(int dueStep, int to, byte[] bytes) {
    }

    @Property(tries = 25)
    void acksAreExactUnderLossReorderingAndDuplication(@ForAll long seed, @ForAll @IntRange(min = 0, max = 60) int lossPercent,
            @ForAll @IntRange(min = 0, max = 30) int duplicatePercent, @ForAll @IntRange(min = 0, max = 6) int maxExtraDelay,
            @ForAll @IntRange(min = 0, max = 20) int rejectPercent) {
        SplittableRandom random = new SplittableRandom(seed);
        List<InFlight> network = new ArrayList<>();
        int[] step = {0};
        Side[] sides = new Side[2];
        for (int i = 0; i < 2; i++) {
            int me = i;
            ReliableEndpoint endpoint = new ReliableEndpoint(ReliableConfig.defaults(), 0.0,
                    (seq, data, off, len) -> {
                        byte[] copy = java.util.Arrays.copyOfRange(data, off, off + len);
                        if (random.nextInt(100) < lossPercent) {
                            return;
                        }
                        network.add(new InFlight(step[0] + 1 + random.nextInt(maxExtraDelay + 1), 1 - me, copy));
                        if (random.nextInt(100) < duplicatePercent) {
                            network.add(new InFlight(step[0] + 1 + random.nextInt(maxExtraDelay + 1), 1 - me, copy));
                        }
                    },
                    (seq, data, off, len) -> {
                        if (random.nextInt(100) < rejectPercent) {
                            return false;
                        }
                        sides[1 - me].acceptedByPeer.add(seq);
                        return true;
                    });
            sides[i] = new Side(endpoint);
            endpoint.setAckListener(seq -> {
                if (!sides[me].acked.add(seq)) {
                    sides[me].ackedTwice.add(seq);
                }
            });
        }
        PacketHeaderCodec codec = new PacketHeaderCodec();
        for (step[0] = 0; step[0] < 700; step[0]++) {
            double time = step[0] * 0.01;
            for (Side s : sides) {
                s.endpoint.update(time);
            }
            List<InFlight> due = new ArrayList<>();
            network.removeIf(f -> {
                if (f.dueStep <= step[0]) {
                    due.add(f);
                    return true;
                }
                return false;
            });
            java.util.Collections.shuffle(due, new java.util.Random(random.nextLong()));
            for (InFlight f : due) {
                Side receiver = sides[f.to];
                ReceiveOutcome outcome = receiver.endpoint.receivePacket(f.bytes, 0, f.bytes.length);
                if (outcome == ReceiveOutcome.DELIVERED) {
                    // every packet of ours this header covers, still in our sent window, is now acked
                    if (codec.decode(f.bytes, 0, f.bytes.length) < 0) {
                        throw new AssertionError("a delivered datagram has no readable header");
                    }
                    int next = receiver.endpoint.nextPacketSequence();
                    for (int n = 0; n < 32; n++) {
                        if ((codec.ackBits() >>> n & 1) == 0) {
                            continue;
                        }
                        int covered = (codec.ack() - n) & 0xFFFF;
                        int age = (next - 1 - covered) & 0xFFFF;
                        if (age < 256 && age < next && !receiver.acked.contains(covered)) {
                            throw new AssertionError("step " + step[0] + ": packet " + covered
                                    + " is covered by a delivered header but was not acked");
                        }
                    }
                }
            }
            for (Side s : sides) {
                int length = 40 + random.nextInt(900);
                s.endpoint.sendPacket(new byte[length], 0, length);
            }
        }
        for (Side s : sides) {
            assertThat(s.ackedTwice).as("packets acked twice").isEmpty();
            assertThat(s.acceptedByPeer).as("every acked packet was accepted by the peer").containsAll(s.acked);
            assertThat(s.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED)).isEqualTo(s.acked.size());
        }
        if (lossPercent < 50 && rejectPercent < 20) {
            assertThat(sides[0].acked).as("acks do flow").isNotEmpty();
        }
    }
}
