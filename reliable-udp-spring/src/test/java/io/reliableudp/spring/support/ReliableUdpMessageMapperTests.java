package io.reliableudp.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.transport.Peer;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.util.MimeTypeUtils;

/** The one message mapper both ways, and the header mapper's patterns and fixed exclusions. */
class ReliableUdpMessageMapperTests {

    private static final InetSocketAddress FROM = new InetSocketAddress("127.0.0.1", 40000);

    /** A peer that only knows its address and has no identity: the mapper asks for nothing else. */
    private static Peer peer() {
        return (Peer) Proxy.newProxyInstance(Peer.class.getClassLoader(), new Class<?>[] { Peer.class }, (p, m, a) -> {
            if (m.getName().equals("address")) {
                return FROM;
            }
            if (m.getName().equals("identity")) {
                return null;
            }
            throw new UnsupportedOperationException(m.getName());
        });
    }

    private static Message<byte[]> roundTrip(ReliableUdpMessageMapper mapper, Object payload, Map<String, ?> headers) {
        byte[] wire = mapper.toOutbound(payload, headers).encode();
        InboundUdpMessage in = new InboundUdpMessage(peer(), null, new UdpChannel("events", 0, DeliveryMode.RELIABLE_ORDERED), 7, wire);
        return mapper.toMessage(in, EnvelopeCodec.decode(wire));
    }

    @Test
    void carriesApplicationHeadersNeverTransportOrLocalOnesAndSetsTransportHeadersFromTheConnection() {
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-abc-def-01");
        headers.put("count", 3);
        headers.put(ReliableUdpHeaders.PEER_NAME, "forged");
        headers.put(ReliableUdpHeaders.CHANNEL, 9);
        headers.put(MessageHeaders.REPLY_CHANNEL, "somewhere");
        DefaultUdpHeaderMapper everything = new DefaultUdpHeaderMapper();
        everything.setInboundHeaderNames("*");
        Message<byte[]> m = roundTrip(ReliableUdpMessageMapper.createDefault().withHeaderMapper(everything), "hello", headers);
        assertThat(new String(m.getPayload(), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(m.getHeaders()).containsEntry("traceparent", "00-abc-def-01").containsEntry("count", 3)
                .containsEntry(ReliableUdpHeaders.PEER_NAME, "127.0.0.1:40000")
                .containsEntry(ReliableUdpHeaders.CHANNEL, 0).containsEntry(ReliableUdpHeaders.CHANNEL_NAME, "events")
                .containsEntry(ReliableUdpHeaders.MESSAGE_ID, 7).doesNotContainKey(MessageHeaders.REPLY_CHANNEL);
        assertThat(m.getHeaders().get(MessageHeaders.CONTENT_TYPE).toString()).startsWith("text/plain");
    }

    @Test
    void byDefaultNoCarriedHeaderReachesTheListenerOnlyTheTransportHeadersAndTheContentType() {
        Message<byte[]> m = roundTrip(ReliableUdpMessageMapper.createDefault(), "hello",
                Map.of("json__TypeId__", "java.lang.ProcessBuilder", "correlationId", "c", "sequenceNumber", 1, "priority", 9));
        assertThat(m.getHeaders()).doesNotContainKeys("json__TypeId__", "correlationId", "sequenceNumber", "priority");
        assertThat(m.getHeaders()).containsKeys(ReliableUdpHeaders.PEER_NAME, ReliableUdpHeaders.PEER_ADDRESS, ReliableUdpHeaders.CHANNEL,
                ReliableUdpHeaders.CHANNEL_NAME, ReliableUdpHeaders.MESSAGE_ID, MessageHeaders.CONTENT_TYPE);
    }

    @Test
    void patternsNarrowBothWaysFirstMatchDecides() {
        DefaultUdpHeaderMapper headerMapper = new DefaultUdpHeaderMapper();
        headerMapper.setOutboundHeaderNames("!secret*", "*");
        headerMapper.setInboundHeaderNames("trace*");
        ReliableUdpMessageMapper mapper = ReliableUdpMessageMapper.createDefault().withHeaderMapper(headerMapper);
        Message<byte[]> m = roundTrip(mapper, new byte[] { 1, 2 },
                Map.of("secretToken", "x", "traceparent", "t", "tenant", "acme"));
        assertThat(m.getHeaders()).containsEntry("traceparent", "t").doesNotContainKeys("secretToken", "tenant");
        assertThat(m.getHeaders().get(MessageHeaders.CONTENT_TYPE)).isEqualTo(MimeTypeUtils.APPLICATION_OCTET_STREAM);
        // outbound: the secret never reached the envelope at all
        Map<String, Object> carried = mapper.toOutbound("x", Map.of("secretToken", "x", "tenant", "acme")).headers();
        assertThat(carried).containsOnlyKeys("tenant");
    }
}
