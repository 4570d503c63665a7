package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
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

    /** The five handshake decoders: never throw; what decodes re-encodes to the same bytes. */
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
            Handshake.encodeChallenge(challenge.clientNonce(), challenge.serverNonce(), challenge.salt(), challenge.cookie(),
                    challenge.serverStatic(), again);
            assertThat(again).isEqualTo(data);
        }
        Handshake.Response response = Handshake.decodeResponse(data, 0, data.length);
        if (response != null) {
            assertThat(response.cookie()).hasSize(Protocol.COOKIE_SIZE);
            byte[] again = new byte[Protocol.RESPONSE_SIZE];
            Handshake.encodeResponse(response.protocolId(), response.flags(), new Handshake.Challenge(response.clientNonce(),
                    response.serverNonce(), response.salt(), response.cookie(), response.serverStatic()), response.clientEphemeral(), again);
            System.arraycopy(response.sealedStatic(), 0, again, Handshake.RESPONSE_SEALED_STATIC, Protocol.SEALED_KEY_BYTES);
            System.arraycopy(response.proof(), 0, again, Handshake.RESPONSE_PROOF_OFFSET, Protocol.TAG_BYTES);
            assertThat(again).isEqualTo(data);
        }
        Handshake.Accept accept = Handshake.decodeAccept(data, 0, data.length);
        if (accept != null) {
            byte[] again = new byte[Protocol.ACCEPT_SIZE];
            Handshake.encodeAccept(accept.salt(), accept.serverEphemeral(), again);
            System.arraycopy(accept.proof(), 0, again, Handshake.ACCEPT_PROOF, Protocol.TAG_BYTES);
            assertThat(again).isEqualTo(data);
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

    private static final byte[] PSK = new byte[32];

    /**
     * The server handshake with keys (pre-shared key and identities) on arbitrary datagrams, and on a
     * real client's response with fuzzed bytes written over it: no exception, no answer larger than
     * the datagram, and no connection unless the response is the client's own.
     */
    @FuzzTest
    void handshakeServerWithKeys(FuzzedDataProvider in) {
        boolean identities = in.consumeBoolean();
        ConnectionSettings settings = identities ? Identities.settings(PSK, Identities.SERVER, Identities.CLIENT_KEY)
                : settings(PSK);
        ConnectionSettings clientSettings = identities ? Identities.settings(PSK, Identities.CLIENT, Identities.SERVER_KEY)
                : settings(PSK);
        HandshakeServer server = new HandshakeServer(settings, new SecureRandom(), new CountingReporter());
        byte[] out = new byte[Protocol.REQUEST_SIZE];
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection client = Connection.client(clientSettings, r, r, new byte[16], 0.0);
        byte[] request = r.sent.get(0);
        int n = server.onRequest(FROM, request, 0, request.length, 1_000, true, true, out);
        client.receive(out, 0, n, 0.01);
        byte[] response = r.sent.get(r.sent.size() - 1).clone();
        byte[] datagram;
        boolean untouched = true;
        if (in.consumeBoolean()) {
            datagram = in.consumeRemainingAsBytes(); // anything at all
            untouched = false;
        } else {
            datagram = response; // the real response, a few bytes written over
            byte[] original = response.clone();
            int edits = in.consumeInt(0, 4);
            for (int i = 0; i < edits; i++) {
                response[in.consumeInt(0, response.length - 1)] = in.consumeByte();
            }
            untouched = Arrays.equals(response, original); // an edit may write a byte's own value, or undo another
        }
        HandshakeServer.Verified v = server.onResponse(FROM, datagram, 0, datagram.length, 1_000, out);
        assertThat(server.lastReplyLength()).isLessThanOrEqualTo(datagram.length);
        if (v != null) {
            // every byte of a response is bound by the cookie or the transcript: only the client's own passes
            assertThat(untouched).as("a changed response was accepted").isTrue();
            assertThat(v.accept()).hasSize(Protocol.ACCEPT_SIZE);
        }
    }

    /**
     * The client's handshake state machine on arbitrary datagrams while it requests, and while it
     * responds (challenge, denial, accept and frames): never throws; it connects only on the server's
     * real accept, and ends only on a denial with its nonce.
     */
    @FuzzTest
    void clientHandshake(FuzzedDataProvider in) {
        boolean encrypted = in.consumeBoolean();
        boolean answerFirst = in.consumeBoolean();
        ConnectionSettings settings = settings(encrypted ? PSK : null);
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        byte[] nonce = new byte[16];
        nonce[0] = 1;
        Connection client = Connection.client(settings, r, r, nonce, 0.0);
        if (answerFirst) {
            HandshakeServer server = new HandshakeServer(settings, new SecureRandom(), new CountingReporter());
            byte[] out = new byte[Protocol.REQUEST_SIZE];
            byte[] request = r.sent.get(0);
            int n = server.onRequest(FROM, request, 0, request.length, 1_000, true, true, out);
            client.receive(out, 0, n, 0.01);
            assertThat(client.state()).isEqualTo(Connection.State.RESPONDING);
        }
        while (in.remainingBytes() > 0) {
            byte[] d = in.consumeBytes(in.consumeInt(0, 300));
            Connection.State before = client.state();
            client.receive(d, 0, d.length, 0.02);
            if (client.state() == Connection.State.CONNECTED && before != Connection.State.CONNECTED) {
                // only plain mode connects on a (forgeable) frame; an accept needs the server's key
                assertThat(encrypted).isFalse();
            }
            if (client.state() == Connection.State.DISCONNECTED && before != Connection.State.DISCONNECTED) {
                assertThat(d[0] == Protocol.DENIED || d[0] == Protocol.DISCONNECT).isTrue();
            }
            client.update(0.03);
        }
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
