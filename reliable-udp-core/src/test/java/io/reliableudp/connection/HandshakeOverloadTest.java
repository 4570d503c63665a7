package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The handshake under overload (issue 14, the 1,000 and 5,000 client collapse), client and server
 * connections driven by hand on a fake clock (no sockets, no timings): a server-side connection whose
 * client never sends a frame after the handshake (it gave up while its response waited in the
 * server's socket buffer) ends after {@link Connection#unconfirmedTimeout}, not the full timeout; a
 * client answering one challenge for {@link Connection#COOKIE_REFRESH_SECONDS} asks for a fresh one
 * instead of resending an expired cookie until its connect timeout.
 */
class HandshakeOverloadTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);

    /** Keepalive 0.5 s, timeout 30 s, connect timeout 30 s (longer than the cookie's lifetime), resend 0.25 s. */
    private static ConnectionSettings settings(byte[] key) {
        return new ConnectionSettings(0x7e57L, key, 0.5, 30, 30, 0.25,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(key != null)).build(),
                ConnectionTestSupport.RECORDING);
    }

    /** Counts the server's drops and failures by reason. */
    private static final class Reasons implements HandshakeServer.Reporter {
        final Map<DropReason, Integer> drops = new EnumMap<>(DropReason.class);
        final Map<HandshakeFailure, Integer> failures = new EnumMap<>(HandshakeFailure.class);

        @Override
        public void drop(DropReason reason) {
            drops.merge(reason, 1, Integer::sum);
        }

        @Override
        public void failure(HandshakeFailure failure) {
            failures.merge(failure, 1, Integer::sum);
        }
    }

    /** A client and the server's handshake half, joined by hand. */
    private static final class Handshaking {
        final ConnectionSettings settings;
        final Reasons reasons = new Reasons();
        final HandshakeServer server;
        final ConnectionTestSupport.Recorder clientSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        final Connection client;
        int read; // client datagrams the server has seen

        Handshaking(byte[] key) {
            settings = settings(key);
            server = new HandshakeServer(settings, new SecureRandom(), reasons);
            client = Connection.client(settings, clientSide, clientSide, new byte[16], 0.0);
        }

        /** The server reads what the client sent since the last call at {@code now}; the first verified response, or null. */
        HandshakeServer.Verified serverReads(double now, boolean responsesLost) {
            HandshakeServer.Verified verified = null;
            byte[] out = new byte[HandshakeServer.REPLY_BYTES];
            List<byte[]> sent = clientSide.sent;
            while (read < sent.size()) {
                byte[] d = sent.get(read++);
                long millis = (long) (now * 1000);
                if (HandshakeServer.isRequest(d[0])) {
                    int n = server.onRequest(CLIENT, d, 0, d.length, millis, true, true, out);
                    client.receive(out, 0, n, now);
                } else if (HandshakeServer.isResponse(d[0]) && !responsesLost) {
                    HandshakeServer.Verified v = server.onResponse(CLIENT, d, 0, d.length, millis, out);
                    if (verified == null) {
                        verified = v;
                    }
                }
            }
            return verified;
        }
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aClientWhoseResponsesAreLostPastTheCookieLifetimeAsksForAFreshChallenge(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null);
        h.serverReads(0.01, true);
        assertThat(h.client.state()).isEqualTo(Connection.State.RESPONDING);
        // 12 s of lost responses (an overloaded server, a blackhole): longer than the cookie's 10 s lifetime
        HandshakeServer.Verified verified = null;
        double now = 0.01;
        for (; now < 20 && verified == null; now += 0.05) {
            h.client.update(now);
            verified = h.serverReads(now, now < 12);
        }
        assertThat(verified).as("a response verified once responses get through again").isNotNull();
        assertThat(now).isLessThan(12.5);
        assertThat(h.reasons.drops).as("server drops").doesNotContainKey(DropReason.BAD_COOKIE);
        assertThat(h.client.cookieRefreshes()).as("fresh challenges asked for").isEqualTo(2);

        // the fresh challenge's keys and salt are the ones the connection uses
        ConnectionTestSupport.Recorder serverSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection server = Connection.server(h.settings, serverSide, serverSide, verified, now);
        byte[] confirm = serverSide.sent.get(0);
        h.client.receive(confirm, 0, confirm.length, now);
        assertThat(h.client.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(h.client.salt()).isEqualTo(server.salt());
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aServerConnectionWhoseClientNeverSpeaksAfterTheHandshakeEndsOnTheShortDeadline(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null);
        h.serverReads(0.01, true);
        h.client.update(0.3);
        HandshakeServer.Verified verified = h.serverReads(0.3, false);
        assertThat(verified).isNotNull();
        // the client gave up before this: our confirmation goes nowhere, and no frame ever comes back
        ConnectionTestSupport.Recorder serverSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection server = Connection.server(h.settings, serverSide, serverSide, verified, 1.0);
        double deadline = 1.0 + Connection.unconfirmedTimeout(h.settings);
        assertThat(Connection.unconfirmedTimeout(h.settings)).isEqualTo(2.0).isLessThan(h.settings.timeout());
        assertThat(server.nextHousekeeping()).as("the owner's tick is asked to come by the deadline").isLessThanOrEqualTo(Math.nextUp(deadline));

        server.update(deadline - 0.01);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        server.update(deadline + 0.01);
        assertThat(server.state()).isEqualTo(Connection.State.DISCONNECTED);
        assertThat(serverSide.disconnects).containsExactly(DisconnectReason.TIMEOUT);
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aConfirmedServerConnectionKeepsTheFullTimeoutAndARepeatedResponseRestartsTheShortOne(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null);
        h.serverReads(0.01, true);
        h.client.update(0.3);
        HandshakeServer.Verified verified = h.serverReads(0.3, false);
        ConnectionTestSupport.Recorder serverSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection server = Connection.server(h.settings, serverSide, serverSide, verified, 1.0);
        double shortTimeout = Connection.unconfirmedTimeout(h.settings);

        // the confirmation was lost; the client repeats its response at 2.5 s: alive, the deadline starts again
        server.onRepeatedResponse(2.5);
        server.update(1.0 + shortTimeout + 0.5);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(server.confirmed()).isFalse();

        // the client gets the repeated confirmation and sends its first frame: the full timeout applies
        byte[] confirm = serverSide.sent.get(serverSide.sent.size() - 1);
        h.client.receive(confirm, 0, confirm.length, 3.6);
        h.client.update(3.6);
        byte[] frame = h.clientSide.sent.get(h.clientSide.sent.size() - 1);
        server.receive(frame, 0, frame.length, 3.7);
        assertThat(server.confirmed()).isTrue();
        server.update(3.7 + h.settings.timeout() - 0.1);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        server.update(3.7 + h.settings.timeout() + 0.1);
        assertThat(server.state()).isEqualTo(Connection.State.DISCONNECTED);
        assertThat(serverSide.disconnects).containsExactly(DisconnectReason.TIMEOUT);
    }
}
