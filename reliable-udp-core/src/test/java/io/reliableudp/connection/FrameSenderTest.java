package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameSender} on its own: frames carry the salt and go out whole; a frame or an accept moves the
 * last send (the keepalive schedule), a handshake packet does not; an encrypted sender without keys sends
 * nothing; every datagram that goes is counted.
 */
class FrameSenderTest {

    private final ConnectionTestSupport.Recorder wire = new ConnectionTestSupport.Recorder(new ArrayList<>());

    @Test
    void framesAndAcceptsMoveTheLastSendAndHandshakePacketsDoNot() {
        FrameSender out = new FrameSender(false, new FrameCodec(false, 1L, 1200), wire, 1300, 0);
        out.salt(0x5a17);
        out.at(1.0);
        out.handshake(new byte[] {9, 9, 9}, 3);
        assertThat(out.lastSend()).isEqualTo(Double.NEGATIVE_INFINITY);
        out.at(2.0);
        out.keepalive();
        assertThat(out.lastSend()).isEqualTo(2.0);
        out.at(3.0);
        out.accept(new byte[] {7, 7});
        assertThat(out.lastSend()).isEqualTo(3.0);
        assertThat(out.datagramsSent()).isEqualTo(3);
        assertThat(out.bytesSent()).isEqualTo(3 + Protocol.FRAME_HEADER_PLAIN + 2);
        byte[] keepalive = wire.sent.get(1);
        assertThat(keepalive).hasSize(Protocol.FRAME_HEADER_PLAIN);
        assertThat(keepalive[0]).isEqualTo(Protocol.KEEPALIVE);
    }

    @Test
    void anEncryptedSenderWithoutKeysSendsNoFrame() {
        FrameSender out = new FrameSender(true, new FrameCodec(true, 1L, 1200), wire, 1300, 0);
        out.keepalive();
        assertThat(wire.sent).isEmpty();
        assertThat(out.datagramsSent()).isZero();
        assertThat(out.lastSend()).isEqualTo(Double.NEGATIVE_INFINITY);
        assertThat(out.datagram().isDirect()).as("sealed in place through its array").isFalse();
    }

    @Test
    void aGrownBufferHoldsTheLargerDatagrams() {
        FrameSender out = new FrameSender(false, new FrameCodec(false, 1L, 1200), wire, 1300, 0);
        assertThat(out.datagram().isDirect()).isTrue();
        out.grow(4_100);
        assertThat(out.datagram().capacity()).isEqualTo(4_100);
    }
}
