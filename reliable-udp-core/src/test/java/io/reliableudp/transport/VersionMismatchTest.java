package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.connection.WireForTests;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Peers of different wire versions refuse each other at the handshake (spec.md, section 8): version 3
 * changed the handshake (ephemeral keys, identities, the accept), version 4 the frames (connection ids,
 * path validation, time-to-live), so a request of version 3, 2 or 1, byte for byte what such a client
 * sends (256 bytes, its version byte), is answered with DENIED reason 3
 * ({@code wrong_protocol}) in our format, counted as {@code wrong_protocol}, and no connection is made.
 */
@Timeout(30)
class VersionMismatchTest {

    @ParameterizedTest(name = "version {0}")
    @ValueSource(ints = {1, 2, 3})
    void anOlderVersionsRequestIsDeniedAsAnotherProtocol(int version) throws Exception {
        assertThat(WireForTests.VERSION).isEqualTo(4);
        RecordingListener events = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), events);
                DatagramChannel client = DatagramChannel.open()) {
            client.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            byte[] request = WireForTests.request(server.config().protocolId());
            for (int i = 0; i < 16; i++) {
                request[15 + i] = (byte) (0xA0 + i); // the client nonce
            }
            byte[] nonce = Arrays.copyOfRange(request, 15, 31);
            request[5] = (byte) version; // what such a client sends
            client.send(ByteBuffer.wrap(request), target(server));

            ByteBuffer in = ByteBuffer.allocate(2048);
            client.receive(in); // blocking: the denial comes at once
            in.flip();
            byte[] denied = new byte[in.remaining()];
            in.get(denied);
            assertThat(denied).hasSize(19);
            assertThat(denied[0]).as("type DENIED").isEqualTo((byte) 4);
            assertThat(denied[1]).as("the server's version").isEqualTo((byte) 4);
            assertThat(Arrays.copyOfRange(denied, 2, 18)).as("the client's nonce, echoed").isEqualTo(nonce);
            assertThat(denied[18]).as("reason: protocol id or version differ").isEqualTo((byte) 3);
            assertThat(server.stats().datagramsDropped()).containsEntry("wrong_protocol", 1L);
            assertThat(server.stats().connections()).isZero();
        }
    }
}
