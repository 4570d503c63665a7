package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
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
 * The handshake under overload (1,000 and 5,000 clients connecting at once must not collapse), client and server
 * connections driven by hand on a fake clock (no sockets, no timings): a server-side connection whose
 * client never sends a frame after the handshake (it gave up while its response waited in the
 * server's socket buffer) ends by {@link Liveness#unconfirmedDeadline}, not after the full timeout; a
 * client answering one challenge for {@link HandshakeSchedule#COOKIE_REFRESH_SECONDS} asks for a fresh one
 * instead of resending an expired cookie until its connect timeout.
 */
class HandshakeOverloadTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);

    /** Keepalive 0.5 s, timeout 30 s, resend 0.25 s. */
    private static ConnectionSettings settings(byte[] key, double connectTimeout) {
        return new ConnectionSettings(0x7e57L, key, 0.5, 30, connectTimeout, 0.25,
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

        /** Connect timeout 30 s: longer than the cookie's lifetime. */
        Handshaking(byte[] key) {
            this(key, 30);
        }

        Handshaking(byte[] key, double connectTimeout) {
            settings = settings(key, connectTimeout);
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
    void aServerConnectionMadeFromAResponseThatWaitedUntilItsClientGaveUpEndsOnTheShortDeadline(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null, 5);
        h.serverReads(0.01, true); // the cookie is issued at 10 ms
        h.client.update(0.3);
        // the response waited 4.5 s in the server's socket buffer; its client gives up at 5 s
        HandshakeServer.Verified verified = h.serverReads(4.8, false);
        assertThat(verified).isNotNull();
        ConnectionTestSupport.Recorder serverSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection server = Connection.server(h.settings, serverSide, serverSide, verified, 4.8);
        double deadline = 4.8 + Liveness.unconfirmedTimeout(h.settings);
        assertThat(Liveness.unconfirmedTimeout(h.settings)).isEqualTo(2.0).isLessThan(h.settings.timeout());
        assertThat(server.nextHousekeeping()).as("the owner's tick is asked to come by the deadline").isLessThanOrEqualTo(Math.nextUp(deadline));

        server.update(deadline - 0.01);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        server.update(deadline + 0.01);
        assertThat(server.state()).isEqualTo(Connection.State.DISCONNECTED);
        assertThat(serverSide.disconnects).containsExactly(DisconnectReason.TIMEOUT);
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aPromptHandshakeKeepsTheClientsConnectTimeoutToConfirm(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null, 5);
        h.serverReads(0.01, true);
        h.client.update(0.3);
        HandshakeServer.Verified verified = h.serverReads(0.3, false);
        ConnectionTestSupport.Recorder serverSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection server = Connection.server(h.settings, serverSide, serverSide, verified, 0.3);
        // a burst of clients: first frames may be dropped by a full socket buffer; the client may live until 5.01 s
        server.update(4.9);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        server.update(5.1);
        assertThat(server.state()).as("never confirmed by the client's connect timeout").isEqualTo(Connection.State.DISCONNECTED);
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aConfirmedServerConnectionKeepsTheFullTimeoutAndARepeatedResponseRestartsTheShortOne(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null, 5);
        h.serverReads(0.01, true);
        h.client.update(0.3);
        HandshakeServer.Verified verified = h.serverReads(4.0, false);
        ConnectionTestSupport.Recorder serverSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection server = Connection.server(h.settings, serverSide, serverSide, verified, 4.0);
        double shortTimeout = Liveness.unconfirmedTimeout(h.settings);

        // the confirmation was lost; the client repeats its response at 5.5 s: alive, at least 2 s more
        server.onRepeatedResponse(5.5);
        server.update(4.0 + shortTimeout + 0.5);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(server.confirmed()).isFalse();

        // the client gets the repeated confirmation (encrypted: the accept again; the keepalives sealed
        // since mean nothing to a client without the keys) and sends its first frame: the full timeout applies
        byte[] confirm = serverSide.sent.stream().filter(d -> d[0] == (encrypted ? Protocol.ACCEPT : Protocol.KEEPALIVE))
                .reduce((a, b) -> b).orElseThrow();
        h.client.receive(confirm, 0, confirm.length, 6.9);
        h.client.update(6.9);
        byte[] frame = h.clientSide.sent.get(h.clientSide.sent.size() - 1);
        server.receive(frame, 0, frame.length, 7.0);
        assertThat(server.confirmed()).isTrue();
        server.update(7.0 + h.settings.timeout() - 0.1);
        assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
        server.update(7.0 + h.settings.timeout() + 0.1);
        assertThat(server.state()).isEqualTo(Connection.State.DISCONNECTED);
        assertThat(serverSide.disconnects).containsExactly(DisconnectReason.TIMEOUT);
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aResponseThatWaitedPastTheLifetimeIsDroppedBeforeAnyCrypto(boolean encrypted) {
        Handshaking h = new Handshaking(encrypted ? new byte[32] : null);
        h.serverReads(0.01, true);
        byte[] response = h.clientSide.sent.get(h.clientSide.sent.size() - 1);
        byte[] out = new byte[HandshakeServer.REPLY_BYTES];
        // another client's request 3 s later keeps the server's cookie clock moving
        byte[] other = new byte[16];
        other[0] = 1;
        ConnectionTestSupport.Recorder otherSide = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection.client(h.settings, otherSide, otherSide, other, 3.0);
        h.server.onRequest(CLIENT, otherSide.sent.get(0), 0, otherSide.sent.get(0).length, 3_000, true, true, out);

        assertThat(h.server.onResponse(CLIENT, response, 0, response.length, 9_000, out)).as("within the lifetime").isNotNull();
        assertThat(h.server.staleResponses()).isZero();
        assertThat(h.server.onResponse(CLIENT, response, 0, response.length, 11_500, out)).as("after it").isNull();
        assertThat(h.server.staleResponses()).as("told from the counter alone").isEqualTo(1);
        assertThat(h.reasons.drops).containsEntry(DropReason.BAD_COOKIE, 1);
    }

    @org.junit.jupiter.api.Test
    void theCounterCheckNeverCallsAValidCookieExpired() {
        java.util.Random random = new java.util.Random(14);
        CookieJar jar = new CookieJar(1, new SecureRandom());
        byte[] nonce = new byte[16];
        List<byte[]> cookies = new ArrayList<>();
        List<Long> issued = new ArrayList<>();
        long now = 5_000;
        int flagged = 0;
        for (int i = 0; i < 5_000; i++) {
            now += random.nextInt(4) == 0 ? random.nextInt(3_000) : random.nextInt(20);
            byte[] cookie = new byte[Protocol.COOKIE_SIZE];
            jar.seal(now, 0, nonce, nonce, 1, CLIENT, cookie, 0);
            cookies.add(cookie);
            issued.add(now);
            int j = random.nextInt(cookies.size());
            long age = now - issued.get(j);
            if (jar.certainlyExpired(cookies.get(j), now, Protocol.COOKIE_LIFETIME_MILLIS)) {
                flagged++;
                assertThat(age).as("cookie %d flagged at %d", j, now).isGreaterThan(Protocol.COOKIE_LIFETIME_MILLIS);
            }
        }
        assertThat(flagged).as("the check finds expired cookies at all").isPositive();
    }
}
