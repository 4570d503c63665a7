package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.reliableudp.internal.WireCodec;
import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzz targets for every decoder of the connection layer. In the normal build they run in
 * regression mode over the seeds in {@code src/test/resources/.../ConnectionFuzzTestInputs};
 * {@code JAZZER_FUZZ=1} fuzzes for real.
 */
class ConnectionFuzzTest {

    private static final long PROTOCOL = 0x1234_5678_9abc_def0L;
    private static final InetSocketAddress FROM = address();

    private static InetSocketAddress address() {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 40_000);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The four handshake decoders: never throw; what decodes re-encodes to the same bytes. */
    @FuzzTest
    void handshakeDecoders(byte[] data) {
        Handshake.Request request = Handshake.decodeRequest(data, 0, data.length);
        if (request != null && request.version() == Protocol.VERSION) {
            byte[] again = new byte[Protocol.REQUEST_SIZE];
            Handshake.encodeRequest(request.protocolId(), request.flags(), request.clientNonce(), again);
            assertThat(Arrays.copyOf(again, 31)).isEqualTo(Arrays.copyOf(data, 31));
        }
        Handshake.Challenge challenge = Handshake.decodeChallenge(data, 0, data.length);
        if (challenge != null) {
            byte[] again = new byte[Protocol.CHALLENGE_SIZE];
            Handshake.encodeChallenge(challenge.clientNonce(), challenge.serverNonce(), challenge.salt(), challenge.cookie(), again);
            assertThat(again).isEqualTo(data);
        }
        Handshake.Response response = Handshake.decodeResponse(data, 0, data.length);
        if (response != null) {
            assertThat(response.cookie()).hasSize(Protocol.COOKIE_SIZE);
        }
        Handshake.Denied denied = Handshake.decodeDenied(data, 0, data.length);
        if (denied != null) {
            assertThat(denied.clientNonce()).hasSize(Protocol.NONCE_BYTES);
        }
    }

    private static final CookieJar JAR = new CookieJar(PROTOCOL, new SecureRandom());

    /** Cookies: opening arbitrary bytes never throws and never yields a valid time. */
    @FuzzTest
    void cookie(FuzzedDataProvider in) {
        byte[] cookie = in.consumeBytes(Protocol.COOKIE_SIZE);
        byte[] clientNonce = Arrays.copyOf(in.consumeBytes(16), 16);
        byte[] serverNonce = Arrays.copyOf(in.consumeBytes(16), 16);
        long opened = JAR.open(cookie, in.consumeInt(0, 255), clientNonce, serverNonce, in.consumeInt(), FROM);
        assertThat(opened).isEqualTo(-1);
    }

    /** The server handshake on arbitrary datagrams: no exception, no answer larger than the datagram. */
    @FuzzTest
    void handshakeServer(byte[] data) {
        ConnectionSettings settings = settings(null);
        HandshakeServer server = new HandshakeServer(settings, new SecureRandom(), new CountingReporter());
        byte[] out = new byte[Protocol.REQUEST_SIZE];
        int n = server.onRequest(FROM, data, 0, data.length, 1_000, true, true, out);
        assertThat(n).isLessThanOrEqualTo(data.length);
        assertThat(server.onResponse(FROM, data, 0, data.length, 1_000, out)).isNull();
        assertThat(server.lastReplyLength()).isLessThanOrEqualTo(data.length);
    }

    /** Connected frames (encrypted mode) on arbitrary datagrams: never throws, nothing forged gets through. */
    @FuzzTest
    void encryptedFrame(byte[] data) {
        List<byte[]> delivered = new ArrayList<>();
        ConnectionSettings settings = settings(new byte[32]);
        Connection c = ConnectionTestSupport.serverConnection(settings, delivered);
        c.receive(data, 0, data.length, 1.0);
        assertThat(delivered).isEmpty();
        c.update(2.0);
    }

    /** Connected frames (plain mode): never throws; the session sees only what carried the salt. */
    @FuzzTest
    void plainFrame(byte[] data) {
        List<byte[]> delivered = new ArrayList<>();
        Connection c = ConnectionTestSupport.serverConnection(settings(null), delivered);
        c.receive(data, 0, data.length, 1.0);
        if (!delivered.isEmpty()) {
            assertThat(data[0]).isEqualTo(Protocol.PAYLOAD);
            assertThat(WireCodec.getIntBE(data, 1)).isEqualTo(c.salt());
        }
    }

    static ConnectionSettings settings(byte[] key) {
        return new ConnectionSettings(PROTOCOL, key, 0.1, 5, 5, 0.1,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(key != null)).build(),
                ConnectionTestSupport.RECORDING);
    }

    static final class CountingReporter implements HandshakeServer.Reporter {
        int drops;
        int failures;

        @Override
        public void drop(DropReason reason) {
            drops++;
        }

        @Override
        public void failure(HandshakeFailure failure) {
            failures++;
        }
    }
}
