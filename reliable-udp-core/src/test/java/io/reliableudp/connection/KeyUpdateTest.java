package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DropReason;
import io.reliableudp.internal.WireCodec;
import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Frame keys change every 2^epochBits frames of a direction, with no message and no pause (spec 3.8,
 * "Key update"). Here a key lasts 8 frames: a few hundred messages each way, some reordered across
 * key boundaries, all arrive; both directions moved through dozens of keys, no (key, nonce) pair was
 * sealed twice; a forged sequence far ahead moves nothing.
 */
class KeyUpdateTest {

    private static final InetSocketAddress CLIENT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);

    @AfterEach
    void restore() {
        FrameKeys.epochBitsOfNewConnections = FrameKeys.EPOCH_BITS;
        Aead.observer = null;
    }

    @Test
    void theChainIsHkdfOfThePreviousKeyAsTheSpecWordsIt() throws Exception {
        byte[] k0 = new byte[32];
        new SecureRandom().nextBytes(k0);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(k0, "HmacSHA256"));
        byte[] t = mac.doFinal("reliable-udp v4 key update".getBytes(StandardCharsets.US_ASCII));
        mac.init(new SecretKeySpec(t, "HmacSHA256"));
        assertThat(FrameKeys.update(k0)).isEqualTo(mac.doFinal(new byte[] {1}));
    }

    @Test
    void keysChangeEveryFewFramesWithoutLosingOrRepeatingAnything() {
        FrameKeys.epochBitsOfNewConnections = 3;
        Thread me = Thread.currentThread();
        Set<ByteBuffer> pairs = new HashSet<>();
        Set<ByteBuffer> keys = new HashSet<>();
        List<ByteBuffer> repeated = new ArrayList<>();
        Aead.observer = (key, counter) -> {
            if (Thread.currentThread() == me) {
                keys.add(ByteBuffer.wrap(key));
                if (!pairs.add(ByteBuffer.allocate(40).put(key).putLong(counter).flip())) {
                    repeated.add(ByteBuffer.wrap(key));
                }
            }
        };
        byte[] psk = new byte[32];
        ConnectionSettings settings = new ConnectionSettings(0x7e57L, psk, 0.1, 5, 5, 0.1,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(true)).build(), ConnectionTestSupport.RECORDING);
        HandshakeServer hs = new HandshakeServer(settings, new SecureRandom(), new ConnectionFuzzTest.CountingReporter());
        List<byte[]> clientGot = new ArrayList<>();
        List<byte[]> serverGot = new ArrayList<>();
        ConnectionTestSupport.Recorder cr = new ConnectionTestSupport.Recorder(clientGot);
        ConnectionTestSupport.Recorder sr = new ConnectionTestSupport.Recorder(serverGot);
        Connection c = Connection.client(settings, cr, cr, new byte[16], 0.0);
        byte[] out = new byte[HandshakeServer.REPLY_BYTES];
        byte[] request = cr.sent.get(0);
        c.receive(out, 0, hs.onRequest(CLIENT, request, 0, request.length, 1_000, true, true, out), 0.01);
        byte[] response = cr.sent.get(1);
        Connection s = Connection.server(settings, sr, sr, hs.onResponse(CLIENT, response, 0, response.length, 1_000, out), 0.02);
        byte[] accept = sr.sent.get(0);
        c.receive(accept, 0, accept.length, 0.03);
        assertThat(c.state()).isEqualTo(Connection.State.CONNECTED);

        int messages = 300;
        for (int i = 0; i < messages; i++) {
            c.send(0, ("c" + i).getBytes(StandardCharsets.UTF_8), null, 0.04);
            s.send(0, ("s" + i).getBytes(StandardCharsets.UTF_8), null, 0.04);
        }
        // delivered in blocks of 5 in reverse order: every key boundary is crossed by reordered frames
        deliver(cr.sent.subList(2, cr.sent.size()), s); // after the request and the response
        deliver(sr.sent.subList(1, sr.sent.size()), c);

        assertThat(serverGot).hasSize(messages);
        assertThat(clientGot).hasSize(messages);
        assertThat(cr.drops).isEmpty();
        assertThat(sr.drops).isEmpty();
        assertThat(c.keyUpdates()).as("client key updates, both directions").isGreaterThanOrEqualTo(2L * (messages / 8 - 1));
        assertThat(s.keyUpdates()).as("server key updates, both directions").isGreaterThanOrEqualTo(2L * (messages / 8 - 1));
        assertThat(keys.size()).as("distinct keys sealed with").isGreaterThan(2 * (messages / 8));
        assertThat(repeated).as("(key, nonce) pairs sealed twice").isEmpty();

        // a forged frame far ahead (and one of the next epoch) moves nothing: the next real frame still opens
        byte[] real = cr.sent.get(cr.sent.size() - 1).clone();
        byte[] farAhead = real.clone();
        WireCodec.putLongBE(farAhead, 5, WireCodec.getLongBE(real, 5) + (8 << 5));
        s.receive(farAhead, 0, farAhead.length, 0.05);
        byte[] nextEpoch = real.clone();
        WireCodec.putLongBE(nextEpoch, 5, (WireCodec.getLongBE(real, 5) | 7) + 1);
        s.receive(nextEpoch, 0, nextEpoch.length, 0.05);
        assertThat(sr.drops).containsExactly(DropReason.DECRYPT_FAILED, DropReason.DECRYPT_FAILED);
        c.send(0, "after".getBytes(StandardCharsets.UTF_8), null, 0.06);
        byte[] after = cr.sent.get(cr.sent.size() - 1);
        s.receive(after, 0, after.length, 0.06);
        assertThat(new String(serverGot.get(serverGot.size() - 1), StandardCharsets.UTF_8)).isEqualTo("after");
    }

    private static void deliver(List<byte[]> frames, Connection to) {
        List<byte[]> all = new ArrayList<>(frames);
        for (int i = 0; i < all.size(); i += 5) {
            List<byte[]> block = new ArrayList<>(all.subList(i, Math.min(all.size(), i + 5)));
            Collections.reverse(block);
            for (byte[] d : block) {
                to.receive(d, 0, d.length, 0.05);
            }
        }
    }
}
