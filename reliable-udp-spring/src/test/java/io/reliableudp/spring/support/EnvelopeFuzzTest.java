package io.reliableudp.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.transport.Peer;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.util.MimeTypeUtils;

/**
 * Jazzer targets for what a peer's bytes reach in the Spring layer: {@link EnvelopeCodec#decode} and,
 * after it, the listener's conversion ({@link ReliableUdpMessageMapper#toTypedMessage}: header mapping,
 * the {@link UdpTypeMapper} resolving the envelope's type id, JSON conversion with Jackson). Each target
 * asserts that only the documented exceptions come out, the ones the listener container catches,
 * counts and logs; anything else would escape the listener's thread.
 * <ul>
 *   <li>{@link #decodeThrowsOnlyEnvelopeException}: decoding throws only {@link EnvelopeException},
 *       {@link EnvelopeCodec#isReply} agrees with it, and an envelope it decodes encodes again to one that
 *       decodes to the same fields (JSON's charset aside, and a name whose malformed UTF-8 became
 *       replacement characters may no longer fit);</li>
 *   <li>{@link #typedConversionThrowsOnlyWhatTheContainerCatches}: {@link UdpTypeNotTrustedException},
 *       {@link IllegalStateException} or {@link MessageConversionException}, and a payload converted to
 *       a named type is an instance of the class the mapper resolved.</li>
 * </ul>
 * In the normal build they run in regression mode over {@code EnvelopeFuzzTestInputs/}; to fuzz:
 * {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-spring -am test -Dtest=EnvelopeFuzzTest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class EnvelopeFuzzTest {

    /** A payload type mapped to an id, as an application maps its messages. */
    public record Position(double x, double y, String name) {
    }

    /** The mapper of a listener: one mapped id, class names from this test's package trusted, JSON on. */
    private static final ReliableUdpMessageMapper MAPPER = new ReliableUdpMessageMapper(
            ReliableUdpMessageConverters.createDefault(), new DefaultUdpHeaderMapper(),
            new UdpTypeMapper(Map.of("pos", Position.class, "text", String.class), List.of("io.reliableudp.spring.support"), false));

    private static final Peer PEER = (Peer) Proxy.newProxyInstance(Peer.class.getClassLoader(), new Class<?>[] {Peer.class},
            (proxy, method, args) -> switch (method.getName()) {
                case "address" -> new InetSocketAddress("127.0.0.1", 9000);
                case "identity" -> null;
                case "toString" -> "fuzz peer";
                case "hashCode" -> 1;
                case "equals" -> proxy == args[0];
                default -> throw new UnsupportedOperationException(method.getName());
            });

    private static final UdpChannel CHANNEL = new UdpChannel("events", 0, DeliveryMode.RELIABLE_ORDERED);

    @FuzzTest(maxDuration = "30s")
    void decodeThrowsOnlyEnvelopeException(byte[] payload) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(payload);
        } catch (EnvelopeException e) {
            return; // the documented refusal
        }
        boolean reply = EnvelopeCodec.isReply(payload);
        assertThat(reply).as("isReply agrees with the decoded flags").isEqualTo(envelope.isReply());
        if (!envelope.enveloped()) {
            assertThat(envelope.body()).as("a raw payload is its own body").isEqualTo(payload);
            return;
        }
        assertThat(envelope.body().length).isLessThanOrEqualTo(payload.length);
        byte[] again;
        try {
            again = EnvelopeCodec.encode(envelope.contentType(), envelope.headers(), envelope.body(), envelope.flags(),
                    envelope.correlationId(), envelope.typeId());
        } catch (EnvelopeException e) {
            // decoding replaces malformed UTF-8 with U+FFFD (3 bytes each in UTF-8): a name of 255 bytes
            // can come back longer than the encoder allows; any other refusal is a codec defect
            boolean replaced = envelope.headers().keySet().stream().anyMatch(k -> k.indexOf('\uFFFD') >= 0)
                    || (envelope.typeId() != null && envelope.typeId().indexOf('\uFFFD') >= 0);
            assertThat(replaced).as("re-encoding a decoded envelope refused: %s", e.getMessage()).isTrue();
            return;
        }
        Envelope decoded = EnvelopeCodec.decode(again);
        if (envelope.contentType() != null && envelope.contentType().equalsTypeAndSubtype(MimeTypeUtils.APPLICATION_JSON)
                && StandardCharsets.UTF_8.equals(envelope.contentType().getCharset()) && envelope.contentType().getParameters().size() == 1) {
            // JSON is UTF-8: its charset parameter is carried as the code of plain application/json
            assertThat(decoded.contentType()).isEqualTo(MimeTypeUtils.APPLICATION_JSON);
        } else {
            assertThat(decoded.contentType()).isEqualTo(envelope.contentType());
        }
        assertThat(decoded.typeId()).isEqualTo(envelope.typeId());
        assertThat(decoded.flags()).isEqualTo(envelope.flags());
        assertThat(decoded.correlationId()).isEqualTo(envelope.isRequest() || envelope.isReply() ? envelope.correlationId() : 0);
        assertThat(decoded.body()).isEqualTo(envelope.body());
        assertThat(decoded.headers().keySet()).isEqualTo(envelope.headers().keySet());
        envelope.headers().forEach((k, v) -> {
            Object w = decoded.headers().get(k);
            if (v instanceof byte[] b) {
                assertThat(Arrays.equals(b, (byte[]) w)).as("header %s", k).isTrue();
            } else if (v instanceof Double d) {
                assertThat(Double.doubleToRawLongBits((Double) w)).as("header %s", k).isEqualTo(Double.doubleToRawLongBits(d));
            } else {
                assertThat(w).as("header %s", k).isEqualTo(v);
            }
        });
    }

    @FuzzTest(maxDuration = "30s")
    void typedConversionThrowsOnlyWhatTheContainerCatches(byte[] payload) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(payload);
        } catch (EnvelopeException e) {
            return;
        }
        InboundUdpMessage in = new InboundUdpMessage(PEER, null, CHANNEL, 7, payload);
        Message<?> message;
        try {
            message = MAPPER.toTypedMessage(in, envelope, EnvelopeFuzzTest.class.getClassLoader());
        } catch (UdpTypeNotTrustedException | IllegalStateException | MessageConversionException e) {
            return; // what UdpMessageListenerContainer catches, counts and logs
        }
        assertThat(message.getPayload()).isNotNull();
        if (envelope.typeId() != null) {
            Class<?> type = MAPPER.getTypeMapper().resolve(envelope.typeId(), EnvelopeFuzzTest.class.getClassLoader());
            assertThat(message.getPayload()).isInstanceOf(type);
        } else {
            assertThat(message.getPayload()).isInstanceOf(byte[].class);
        }
    }
}
