package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageEndpoint;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A client and a server connection in memory, handshake driven by hand (no sockets). */
class ConnectionTest {

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void handshakeFramesKeepalivesTimeoutAndDisconnect(boolean encrypted) throws Exception {
        byte[] key = encrypted ? new byte[32] : null;
        ConnectionSettings settings = ConnectionFuzzTest.settings(key);
        InetSocketAddress clientAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);
        ConnectionFuzzTest.CountingReporter reporter = new ConnectionFuzzTest.CountingReporter();
        HandshakeServer hs = new HandshakeServer(settings, new SecureRandom(), reporter);
        List<byte[]> clientGot = new ArrayList<>();
        List<byte[]> serverGot = new ArrayList<>();
        ConnectionTestSupport.Recorder cr = new ConnectionTestSupport.Recorder(clientGot);
        Connection client = Connection.client(settings, cr, cr, new byte[16], 0.0);
        assertThat(cr.sent).hasSize(1);
        byte[] request = cr.sent.get(0);
        assertThat(request).hasSize(Protocol.REQUEST_SIZE);

        byte[] out = new byte[Protocol.REQUEST_SIZE];
        int n = hs.onRequest(clientAddress, request, 0, request.length, 10, true, true, out);
        assertThat(n).isEqualTo(Protocol.CHALLENGE_SIZE).isLessThanOrEqualTo(request.length);
        client.receive(out, 0, n, 0.01);
        assertThat(client.state()).isEqualTo(Connection.State.RESPONDING);
        byte[] response = cr.sent.get(1);
        HandshakeServer.Verified v = hs.onResponse(clientAddress, response, 0, response.length, 20, out);
        assertThat(v).isNotNull();
        // the same response from another address does not verify (cookie bound to the address)
        assertThat(hs.onResponse(new InetSocketAddress(clientAddress.getAddress(), 5001), response, 0, response.length, 20, out)).isNull();
        // nor after the cookie lifetime
        assertThat(hs.onResponse(clientAddress, response, 0, response.length, 10 + Protocol.COOKIE_LIFETIME_MILLIS + 1, out)).isNull();

        ConnectionTestSupport.Recorder sr = new ConnectionTestSupport.Recorder(serverGot);
        Connection server = Connection.server(settings, sr, sr, v, 0.02);
        assertThat(sr.sent).hasSize(1); // the confirmation: an accept when encrypted, a keepalive when plain
        byte[] confirm = sr.sent.get(0);
        assertThat(confirm).hasSize(encrypted ? Protocol.ACCEPT_SIZE : Protocol.frameOverhead(false))
                .hasSizeLessThan(response.length);
        // the same response again is a repeat: it confirms nothing new and derives no key
        HandshakeServer.Verified again = hs.onResponse(clientAddress, response, 0, response.length, 25, out);
        assertThat(again).isNotNull();
        assertThat(again.repeat()).isTrue();
        if (encrypted) {
            // an accept with a flipped bit of its proof (or its ephemeral key) does not connect the client
            byte[] forged = confirm.clone();
            forged[forged.length - 1] ^= 1;
            client.receive(forged, 0, forged.length, 0.025);
            assertThat(client.state()).isEqualTo(Connection.State.RESPONDING);
            assertThat(cr.drops).containsExactly(DropReason.DECRYPT_FAILED);
            cr.drops.clear();
        }
        client.receive(confirm, 0, confirm.length, 0.03);
        assertThat(client.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(cr.connects).isEqualTo(1);

        ConnectionTestSupport.Outcomes outcomes = new ConnectionTestSupport.Outcomes();
        assertThat(client.send(0, "hello".getBytes(StandardCharsets.UTF_8), outcomes, 0.04)).isZero();
        assertThat(outcomes.delivered).containsExactly(0);
        byte[] frame = cr.sent.get(cr.sent.size() - 1);
        server.receive(frame, 0, frame.length, 0.05);
        assertThat(serverGot).hasSize(1);
        assertThat(new String(serverGot.get(0), StandardCharsets.UTF_8)).isEqualTo("hello");
        server.receive(frame, 0, frame.length, 0.05);
        // the same frame again is dropped as replayed, plain or encrypted
        assertThat(sr.drops).containsExactly(DropReason.REPLAYED);
        assertThat(serverGot).hasSize(1);

        // keepalive after the interval of silence
        int before = sr.sent.size();
        server.update(0.2);
        assertThat(sr.sent).hasSize(before + 1);
        assertThat(sr.sent.get(before)[0]).isEqualTo(Protocol.KEEPALIVE);

        // timeout: nothing from the client for more than 5 s
        server.update(5.2);
        assertThat(server.state()).isEqualTo(Connection.State.DISCONNECTED);
        assertThat(sr.disconnects).containsExactly(DisconnectReason.TIMEOUT);
        assertThat(((ConnectionTestSupport.EchoSession) server.session()).closedWith).containsExactly(DeliveryFailure.TIMEOUT);

        // client closes: ten disconnect packets
        before = cr.sent.size();
        client.disconnect(DisconnectReason.CLOSED_LOCALLY, "test", true, 0.3);
        assertThat(cr.sent.size() - before).isEqualTo(Protocol.REDUNDANT_DISCONNECTS);
        assertThat(cr.sent.get(before)[0]).isEqualTo(Protocol.DISCONNECT);
        assertThat(client.send(0, new byte[1], outcomes, 0.31)).isEqualTo(MessageEndpoint.OFFER_CLOSED);
        assertThat(outcomes.failed).singleElement().satisfies(e -> assertThat(e.reason()).isNotNull());
    }

    @ParameterizedTest(name = "reason code {0}")
    @ValueSource(ints = {Protocol.DENY_SERVER_FULL, Protocol.DENY_WRONG_KEY})
    void deniedEndsTheClientOnlyWithItsOwnNonce(int code) {
        ConnectionSettings settings = ConnectionFuzzTest.settings(null);
        ConnectionTestSupport.Recorder cr = new ConnectionTestSupport.Recorder(new ArrayList<>());
        byte[] nonce = new byte[16];
        nonce[0] = 1;
        Connection client = Connection.client(settings, cr, cr, nonce, 0.0);
        byte[] out = new byte[Protocol.DENIED_SIZE];
        Handshake.encodeDenied(new byte[16], code, out); // someone else's nonce: spoofed
        client.receive(out, 0, out.length, 0.1);
        assertThat(client.state()).isEqualTo(Connection.State.REQUESTING);
        assertThat(cr.drops).containsExactly(DropReason.UNEXPECTED);
        Handshake.encodeDenied(nonce, code, out);
        client.receive(out, 0, out.length, 0.1);
        assertThat(cr.disconnects).containsExactly(code == Protocol.DENY_SERVER_FULL ? DisconnectReason.SERVER_FULL : DisconnectReason.DENIED);
    }
}
