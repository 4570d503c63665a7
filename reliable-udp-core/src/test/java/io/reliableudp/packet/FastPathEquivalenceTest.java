package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * The shortcuts of the packet layer against the plain reference computations they replace: the
 * sequence buffer's incrementally kept ack bits against the 32-slot scan, the endpoint's filtered
 * ack walk against the plain 32-bit walk, under random (hostile) operation sequences, and the
 * one-byte canonical-header test against re-encoding and comparing.
 */
class FastPathEquivalenceTest {

    private static final int[] SIZES = {1, 7, 31, 32, 33, 64, 100, 128, 256, 1000, 1024, 32768};

    @Property(tries = 400)
    void keptAckBitsAreTheScannedAckBits(@ForAll @IntRange(min = 0, max = 11) int sizeIndex,
            @ForAll long seed) {
        int size = SIZES[sizeIndex];
        SequenceBuffer buffer = new SequenceBuffer(size);
        SplittableRandom random = new SplittableRandom(seed);
        int operations = 600;
        for (int i = 0; i < operations; i++) {
            int newest = buffer.ackSequence();
            int seq = switch (random.nextInt(4)) {
                case 0 -> (newest + random.nextInt(1, 4)) & 0xFFFF;
                case 1 -> (newest - random.nextInt(0, 40)) & 0xFFFF;
                case 2 -> (newest + random.nextInt(-size - 40, size + 40)) & 0xFFFF;
                default -> random.nextInt(65536);
            };
            switch (random.nextInt(20)) {
                case 0 -> buffer.remove(seq);
                case 1 -> buffer.advance(seq);
                case 2 -> buffer.insertAdvanceFirst(seq);
                case 3 -> buffer.removeEntries(seq, (seq + random.nextInt(0, 50)) & 0xFFFF);
                case 4 -> {
                    if (random.nextInt(10) == 0) {
                        buffer.reset();
                    } else {
                        buffer.insert(seq);
                    }
                }
                default -> buffer.insert(seq);
            }
            assertThat(buffer.ackBits()).as("after operation %d", i).isEqualTo(buffer.scanAckBits());
        }
    }

    @Property(tries = 3000)
    void aDecodedHeaderIsCanonicalExactlyWhenItsPrefixIs(@ForAll byte[] bytes) {
        PacketHeaderCodec codec = new PacketHeaderCodec();
        byte[] header = java.util.Arrays.copyOf(bytes, Math.max(bytes.length, 1));
        // the prefix byte is drawn freely, the rest of the header from the input
        header[0] = (byte) (header[0] & ~1);
        int length = codec.decode(header, 0, header.length);
        if (length < 0) {
            return;
        }
        byte[] canonical = new byte[PacketHeaderCodec.MAX_HEADER_BYTES];
        int canonicalLength = PacketHeaderCodec.encode(canonical, 0, codec.sequence(), codec.ack(), codec.ackBits());
        boolean same = canonicalLength == length && java.util.Arrays.equals(canonical, 0, length, header, 0, length);
        assertThat((header[0] & 0xFF) == PacketHeaderCodec.canonicalPrefix(codec.sequence(), codec.ack(), codec.ackBits()))
                .isEqualTo(same);
    }

    @Property(tries = 2000)
    void theCanonicalPrefixIsTheEncodedOne(@ForAll @IntRange(min = 0, max = 65535) int sequence,
            @ForAll @IntRange(min = 0, max = 65535) int ack, @ForAll int ackBits, @ForAll byte ackBitsByteShape) {
        // make 0xFF bytes (absent on the wire) common
        int bits = ackBits | ((ackBitsByteShape & 1) != 0 ? 0xFF : 0)
                | ((ackBitsByteShape & 2) != 0 ? 0xFF00 : 0) | ((ackBitsByteShape & 4) != 0 ? 0xFF0000 : 0)
                | ((ackBitsByteShape & 8) != 0 ? 0xFF000000 : 0);
        int near = (ackBitsByteShape & 16) != 0 ? (sequence - (ack & 0x1FF)) & 0xFFFF : ack;
        byte[] header = new byte[PacketHeaderCodec.MAX_HEADER_BYTES];
        PacketHeaderCodec.encode(header, 0, sequence, near, bits);
        assertThat(header[0] & 0xFF).isEqualTo(PacketHeaderCodec.canonicalPrefix(sequence, near, bits));
    }

    @Property(tries = 200)
    void filteredAckWalkActsAsThePlainWalk(@ForAll long seed, @ForAll boolean withListener,
            @ForAll @IntRange(min = 1, max = 40) int ackBufferSize) {
        ReliableConfig config = ReliableConfig.builder().ackBufferSize(ackBufferSize).build();
        Side filtered = new Side(config, true, withListener, seed);
        Side plain = new Side(config, false, withListener, seed);
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        byte[] header = new byte[PacketHeaderCodec.MAX_HEADER_BYTES + 4];
        int peerSequence = random.nextInt(65536);
        double time = 10.0;
        for (int i = 0; i < 500; i++) {
            int sends = random.nextInt(4);
            for (int k = 0; k < sends; k++) {
                filtered.send();
                plain.send();
            }
            int next = filtered.endpoint.nextPacketSequence();
            int ack = switch (random.nextInt(3)) {
                case 0 -> (next - 1 - random.nextInt(0, 8)) & 0xFFFF;
                case 1 -> (next + random.nextInt(-300, 40)) & 0xFFFF;
                default -> random.nextInt(65536);
            };
            int ackBits = random.nextInt(3) == 0 ? -1 : random.nextInt();
            peerSequence = (peerSequence + (random.nextInt(8) == 0 ? -random.nextInt(50) : 1)) & 0xFFFF;
            int length = PacketHeaderCodec.encode(header, 0, peerSequence, ack, ackBits);
            header[length] = (byte) i;
            if (random.nextInt(16) == 0) {
                time += 0.25;
                filtered.endpoint.update(time);
                plain.endpoint.update(time);
            }
            assertThat(filtered.endpoint.receivePacket(header, 0, length + 1))
                    .isEqualTo(plain.endpoint.receivePacket(header, 0, length + 1));
            filtered.assertSameAs(plain);
            if (random.nextInt(5) == 0) {
                filtered.endpoint.clearAcks();
                plain.endpoint.clearAcks();
            }
            if (random.nextInt(200) == 0) {
                filtered.endpoint.reset();
                plain.endpoint.reset();
            }
        }
    }

    /** One endpoint with a recording listener that sometimes sends from inside the callback. */
    private static final class Side {
        final ReliableEndpoint endpoint;
        final List<Integer> events = new ArrayList<>();
        final SplittableRandom random;
        final byte[] payload = new byte[20];

        Side(ReliableConfig config, boolean filter, boolean withListener, long seed) {
            random = new SplittableRandom(seed);
            endpoint = new ReliableEndpoint(config, 10.0, (seq, data, offset, length) -> events.add(-1 - seq),
                    (seq, data, offset, length) -> true, filter);
            if (withListener) {
                endpoint.setAckListener(seq -> {
                    events.add(seq);
                    if (random.nextInt(4) == 0) {
                        send();
                    }
                });
            }
        }

        void send() {
            endpoint.sendPacket(payload, 0, payload.length);
        }

        void assertSameAs(Side other) {
            assertThat(events).isEqualTo(other.events);
            assertThat(endpoint.ackCount()).isEqualTo(other.endpoint.ackCount());
            for (int i = 0; i < endpoint.ackCount(); i++) {
                assertThat(endpoint.ack(i)).isEqualTo(other.endpoint.ack(i));
            }
            for (PacketCounter counter : PacketCounter.values()) {
                assertThat(endpoint.counter(counter)).as(counter.name()).isEqualTo(other.endpoint.counter(counter));
            }
            assertThat(Float.floatToRawIntBits(endpoint.rtt())).isEqualTo(Float.floatToRawIntBits(other.endpoint.rtt()));
            assertThat(Float.floatToRawIntBits(endpoint.packetLoss()))
                    .isEqualTo(Float.floatToRawIntBits(other.endpoint.packetLoss()));
            assertThat(Float.floatToRawIntBits(endpoint.jitterStddevVsAvgRtt()))
                    .isEqualTo(Float.floatToRawIntBits(other.endpoint.jitterStddevVsAvgRtt()));
        }
    }
}
