package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterTry;

/**
 * ChaCha20-Poly1305 must never seal twice with one (key, nonce) pair. Over many handshakes between the
 * same two ends (same pre-shared key, same static keys), with responses sent again and again (a client
 * repeating, an attacker replaying, during and after the connection), and frames both ways on every
 * connection, every pair either side seals with (frames, the handshake's own proofs, the cookies) is
 * collected through {@link Aead#observer} and none repeats; and no two connections share a session key.
 */
class HandshakeKeysPropertyTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);
    private static final byte[] PSK = new byte[32];

    @AfterTry
    void unhook() {
        Aead.observer = null;
    }

    @Property(tries = 40)
    void noKeyAndNonceIsEverSealedTwice(@ForAll @IntRange(min = 0, max = 3) int mode,
                                        @ForAll @IntRange(min = 2, max = 5) int handshakes,
                                        @ForAll @IntRange(min = 0, max = 3) int replays,
                                        @ForAll @IntRange(min = 0, max = 6) int frames) {
        Thread me = Thread.currentThread();
        Set<ByteBuffer> pairs = new HashSet<>();
        List<ByteBuffer> repeated = new ArrayList<>();
        Aead.observer = (key, counter) -> {
            if (Thread.currentThread() == me) {
                ByteBuffer pair = ByteBuffer.allocate(40).put(key).putLong(counter).flip();
                if (!pairs.add(pair)) {
                    repeated.add(pair);
                }
            }
        };
        byte[] psk = (mode & 1) != 0 ? PSK : null;
        boolean identities = (mode & 2) != 0;
        ConnectionSettings server = identities ? Identities.settings(psk, Identities.SERVER, Identities.CLIENT_KEY) : settings(psk);
        ConnectionSettings client = identities ? Identities.settings(psk, Identities.CLIENT, Identities.SERVER_KEY) : settings(psk);
        HandshakeServer hs = new HandshakeServer(server, new SecureRandom(), new ConnectionFuzzTest.CountingReporter());
        byte[] out = new byte[HandshakeServer.REPLY_BYTES];
        List<byte[]> responses = new ArrayList<>();
        Set<ByteBuffer> sessionKeys = new HashSet<>();
        int connections = 0;
        for (int i = 0; i < handshakes; i++) {
            ConnectionTestSupport.Recorder cr = new ConnectionTestSupport.Recorder(new ArrayList<>());
            Connection c = Connection.client(client, cr, cr, new byte[16], 0.0); // the same nonce every time
            byte[] request = cr.sent.get(0);
            int n = hs.onRequest(CLIENT, request, 0, request.length, 1_000 + i, true, true, out);
            c.receive(out, 0, n, 0.01);
            byte[] response = cr.sent.get(cr.sent.size() - 1);
            responses.add(response);
            HandshakeServer.Verified v = hs.onResponse(CLIENT, response, 0, response.length, 1_000 + i, out);
            assertThat(v).isNotNull();
            assertThat(v.repeat()).isFalse();
            byte[][] keys = v.keys();
            if (keys != null) {
                assertThat(sessionKeys.add(ByteBuffer.wrap(keys[0].clone()))).as("a client-to-server key seen before").isTrue();
                assertThat(sessionKeys.add(ByteBuffer.wrap(keys[1].clone()))).as("a server-to-client key seen before").isTrue();
            }
            ConnectionTestSupport.Recorder sr = new ConnectionTestSupport.Recorder(new ArrayList<>());
            Connection s = Connection.server(server, sr, sr, v, 0.02);
            connections++;
            // every response so far, sent again: a repeat of a used cookie never makes keys or a connection
            for (int r = 0; r < replays; r++) {
                for (byte[] old : responses) {
                    HandshakeServer.Verified again = hs.onResponse(CLIENT, old, 0, old.length, 1_000 + i, out);
                    assertThat(again).isNotNull();
                    assertThat(again.repeat()).isTrue();
                    assertThat(again.keys()).isNull();
                    s.onRepeatedResponse(0.021); // the live connection confirms again (the same accept)
                }
            }
            byte[] confirm = sr.sent.get(sr.sent.size() - 1);
            c.receive(confirm, 0, confirm.length, 0.03);
            assertThat(c.state()).isEqualTo(Connection.State.CONNECTED);
            for (int f = 0; f < frames; f++) {
                c.send(0, new byte[] {(byte) f}, null, 0.04);
                s.send(0, new byte[] {(byte) f}, null, 0.04);
                byte[] fromClient = cr.sent.get(cr.sent.size() - 1);
                s.receive(fromClient, 0, fromClient.length, 0.05);
            }
            c.disconnect(DisconnectReason.CLOSED_LOCALLY, "done", true, 0.06);
            s.disconnect(DisconnectReason.CLOSED_LOCALLY, "done", true, 0.06);
        }
        assertThat(connections).isEqualTo(handshakes);
        assertThat(repeated).as("(key, nonce) pairs sealed more than once").isEmpty();
        if (mode != 0) {
            assertThat(pairs).as("seals observed").isNotEmpty();
        }
    }

    private static ConnectionSettings settings(byte[] psk) {
        return new ConnectionSettings(0x1234_5678_9abc_def0L, psk, 0.1, 5, 5, 0.1,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(psk != null)).build(),
                ConnectionTestSupport.RECORDING);
    }
}
