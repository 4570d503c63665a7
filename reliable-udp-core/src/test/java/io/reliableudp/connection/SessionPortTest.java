package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link SessionPort} on its own: it makes the session when opened, frames what the session sends where
 * it was composed (PAYLOAD frames, counted), refuses loudly a packet over the budget, passes calls on only
 * while open, and closes the session with the failure given.
 */
class SessionPortTest {

    private final ConnectionTestSupport.Recorder wire = new ConnectionTestSupport.Recorder(new ArrayList<>());
    private final List<String> delivered = new ArrayList<>();
    private final FrameSender out = new FrameSender(false, new FrameCodec(false, 1L, 1200), wire, 1200 + Protocol.REQUEST_SIZE, 0);
    private final SessionPort port = new SessionPort(out, new SizeProbe(1200, 1200),
            (channel, id, data, offset, length) -> delivered.add(new String(data, offset, length, java.nio.charset.StandardCharsets.US_ASCII)));
    private final MessageConfig config = MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(false)).build();

    @Test
    void beforeOpenNothingPassesAndQueueingRefuses() {
        assertThat(port.session()).isNull();
        assertThat(port.offer(0, new byte[1])).isEqualTo(MessageEndpoint.OFFER_CLOSED);
        assertThat(port.nextDeadline()).isEqualTo(Double.POSITIVE_INFINITY);
        port.send(new byte[3], 0, 3);
        assertThat(wire.sent).isEmpty();
    }

    @Test
    void anOpenSessionsPacketsGoOutAsPayloadFramesInPlaceAndItsMessagesToTheListener() {
        port.open(ConnectionTestSupport.RECORDING, config, 0);
        assertThat(port.isOpen()).isTrue();
        ByteBuffer d = port.datagramBuffer();
        assertThat(d).isSameAs(out.datagram());
        d.put(port.headroom(), new byte[] {1, 2, 3});
        port.send(d, port.headroom(), 3);
        assertThat(wire.sent).hasSize(1);
        assertThat(wire.sent.getFirst()[0]).isEqualTo(Protocol.PAYLOAD);
        assertThat(wire.sent.getFirst()).hasSize(Protocol.FRAME_HEADER_PLAIN + 3);
        assertThat(out.datagramsSent()).isEqualTo(1);
        port.receive("hi".getBytes(java.nio.charset.StandardCharsets.US_ASCII), 0, 2, 0);
        assertThat(delivered).containsExactly("hi");
    }

    @Test
    void aPacketOverTheBudgetIsABugAndFailsLoudly() {
        port.open(ConnectionTestSupport.RECORDING, config, 0);
        int tooLong = 1200 - Protocol.frameOverhead(false) + 1;
        assertThatThrownBy(() -> port.send(new byte[tooLong], 0, tooLong)).isInstanceOf(IllegalStateException.class);
        assertThat(wire.sent).isEmpty();
    }

    @Test
    void closingFailsThePendingWithTheFailureGivenAndStopsEverySend() {
        port.open(ConnectionTestSupport.RECORDING, config, 0);
        ConnectionTestSupport.EchoSession session = (ConnectionTestSupport.EchoSession) port.session();
        port.close(DeliveryFailure.TIMEOUT);
        assertThat(session.closedWith).containsExactly(DeliveryFailure.TIMEOUT);
        assertThat(port.isOpen()).isFalse();
        assertThat(port.offer(0, new byte[1])).isEqualTo(MessageEndpoint.OFFER_CLOSED);
        port.send(new byte[3], 0, 3);
        assertThat(wire.sent).isEmpty();
    }
}
