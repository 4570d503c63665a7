package io.reliableudp.packet;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz targets for the two decoders of the packet layer. In the normal build they run in
 * regression mode over the seeds in {@code src/test/resources/io/reliableudp/packet/PacketFuzzTestInputs/};
 * fuzz for real with {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-core test -Dtest=PacketFuzzTest}.
 * Any exception (other than the checked outcomes) is a finding.
 */
class PacketFuzzTest {

    private final PacketHeaderCodec codec = new PacketHeaderCodec();

    @FuzzTest(maxDuration = "30s")
    void headerDecoder(FuzzedDataProvider data) {
        byte[] bytes = data.consumeRemainingAsBytes();
        int length = codec.decode(bytes, 0, bytes.length);
        if (length < 0) {
            return;
        }
        if (length < PacketHeaderCodec.MIN_HEADER_BYTES || length > PacketHeaderCodec.MAX_HEADER_BYTES || length > bytes.length) {
            throw new IllegalStateException("decoded length " + length + " of a " + bytes.length + "-byte input");
        }
        // re-encoding gives the canonical form: never longer, and it decodes to the same fields
        byte[] canonical = new byte[PacketHeaderCodec.MAX_HEADER_BYTES];
        int canonicalLength = PacketHeaderCodec.encode(canonical, 0, codec.sequence(), codec.ack(), codec.ackBits());
        if (canonicalLength > length) {
            throw new IllegalStateException("canonical form longer than a decoded form");
        }
        int sequence = codec.sequence();
        int ack = codec.ack();
        int ackBits = codec.ackBits();
        if (codec.decode(canonical, 0, canonicalLength) != canonicalLength || codec.sequence() != sequence
                || codec.ack() != ack || codec.ackBits() != ackBits) {
            throw new IllegalStateException("canonical form does not round-trip");
        }
    }

    @FuzzTest(maxDuration = "30s")
    void receivePacket(FuzzedDataProvider data) {
        ReliableConfig config = ReliableConfig.defaults().toBuilder()
                .maxFragments(data.consumeInt(1, 8))
                .fragmentSize(data.consumeInt(1, 64))
                .fragmentAbove(data.consumeInt(1, 64))
                .maxPacketSize(data.consumeInt(1, 600))
                .receivedPacketsBufferSize(data.consumeInt(1, 64))
                .fragmentReassemblyBufferSize(data.consumeInt(1, 16))
                .ackBufferSize(data.consumeInt(1, 16))
                .build();
        ReliableEndpoint endpoint = new ReliableEndpoint(config, 0.0, (s, d, o, l) -> { },
                (s, d, o, l) -> data.remainingBytes() % 7 != 0);
        double time = 0.0;
        while (data.remainingBytes() > 0) {
            switch (data.consumeInt(0, 3)) {
                case 0 -> {
                    int length = data.consumeInt(0, 700);
                    endpoint.sendPacket(new byte[length], 0, length);
                }
                case 1 -> {
                    time += data.consumeDouble();
                    endpoint.update(time);
                }
                default -> {
                    byte[] datagram = data.consumeBytes(data.consumeInt(0, 800));
                    if (endpoint.receivePacket(datagram, 0, datagram.length) == null) {
                        throw new IllegalStateException("no outcome");
                    }
                }
            }
        }
        if (endpoint.ackCount() > config.ackBufferSize()) {
            throw new IllegalStateException("ack list beyond its capacity");
        }
    }
}
