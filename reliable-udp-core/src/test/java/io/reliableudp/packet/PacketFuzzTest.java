package io.reliableudp.packet;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Jazzer fuzz targets for the two decoders of the packet layer. In the normal build they run in
 * regression mode over the seeds in {@code src/test/resources/io/reliableudp/packet/PacketFuzzTestInputs/};
 * fuzz for real with {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-core test -Dtest=PacketFuzzTest}.
 * Any exception (other than the checked outcomes) is a finding.
 *
 * <p>While the class runs, the endpoint's log records go to a counting handler instead of the console:
 * {@code receivePacket} refuses many oversized sends, each one a WARNING record, and formatting and
 * printing them through the forked JVM's stderr was about two thirds of an execution (and 130 MB of
 * output a minute). The logging calls still run; each refusal must be both counted and logged.
 */
class PacketFuzzTest {

    private static final Logger ENDPOINT_LOG = Logger.getLogger(ReliableEndpoint.class.getName());
    private static final CountingHandler LOGGED = new CountingHandler();
    private static boolean parentHandlers;

    @BeforeAll
    static void logToCounter() {
        parentHandlers = ENDPOINT_LOG.getUseParentHandlers();
        ENDPOINT_LOG.setUseParentHandlers(false);
        ENDPOINT_LOG.addHandler(LOGGED);
    }

    @AfterAll
    static void logToConsoleAgain() {
        ENDPOINT_LOG.removeHandler(LOGGED);
        ENDPOINT_LOG.setUseParentHandlers(parentHandlers);
    }

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
        long tooLargeLogged = LOGGED.tooLarge;
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
        long tooLargeCounted = endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_SEND);
        if (LOGGED.tooLarge - tooLargeLogged != tooLargeCounted) {
            throw new IllegalStateException(tooLargeCounted + " oversized sends counted, "
                    + (LOGGED.tooLarge - tooLargeLogged) + " logged");
        }
    }

    /** Counts the endpoint's "packet too large" records (single-threaded: the fuzz target's thread). */
    private static final class CountingHandler extends Handler {
        long tooLarge;

        @Override
        public void publish(LogRecord record) {
            if (record.getLevel() == Level.WARNING && record.getMessage().contains("packet too large to send")) {
                tooLarge++;
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}
