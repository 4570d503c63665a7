package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz targets for the frame decoder and {@link MessageEndpoint#receive}. In the normal build
 * they run in regression mode over the inputs in {@code MessageFuzzTestInputs/}; run
 * {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-core test -Dtest=MessageFuzzTest} to fuzz.
 */
class MessageFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void frameDecoderNeverThrows(byte[] input) {
        Frames.Reader r = new Frames.Reader();
        r.reset(input, 0, input.length);
        int frames = 0;
        int result;
        while ((result = r.next()) == Frames.Reader.FRAME) {
            frames++;
            assertThat(r.dataOffset + r.dataLength).isLessThanOrEqualTo(input.length);
        }
        assertThat(frames).isLessThanOrEqualTo(input.length);
        assertThat(result).isIn(Frames.Reader.END, Frames.Reader.MALFORMED);
    }

    /** Immutable, so one for every input; the endpoint and the raw peer are still new for each input. */
    private static final MessageConfig RECEIVE_CONFIG = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED,
            DeliveryMode.RELIABLE_UNORDERED, DeliveryMode.UNRELIABLE, DeliveryMode.UNRELIABLE_SEQUENCED).toBuilder()
            .maxMessageSize(64 * 1024).maxBytesInFlight(64 * 1024).build();

    @FuzzTest(maxDuration = "30s")
    void receiveNeverThrows(FuzzedDataProvider data) {
        long[] delivered = {0};
        MessageEndpoint endpoint = new MessageEndpoint(RECEIVE_CONFIG, 0, (d, o, l) -> { },
                (c, id, d, o, l) -> {
                    assertThat(c).isBetween(0, 3);
                    assertThat(o + l).isLessThanOrEqualTo(d.length);
                    delivered[0]++;
                });
        RawPeer raw = new RawPeer();
        double time = 0;
        while (data.remainingBytes() > 0) {
            boolean wrap = data.consumeBoolean();
            byte[] chunk = data.consumeBytes(data.consumeInt(0, 1400));
            if (wrap) {
                byte[] d = raw.packet(chunk, chunk.length);
                endpoint.receive(d, 0, d.length);
            } else {
                endpoint.receive(chunk, 0, chunk.length);
            }
            time += 0.01;
            endpoint.update(time);
        }
        MessageStats stats = endpoint.stats();
        assertThat(stats.malformedPackets() + stats.rejectedPackets()).isLessThanOrEqualTo(stats.packetsReceived());
        assertThat(stats.listenerErrors()).isZero();
        // the packet layer's safety net (caught, counted malformed, logged) must never be what stopped an input
        assertThat(endpoint.packetLayerFailures()).as("packet-layer exceptions caught by the safety net").isZero();
    }
}
