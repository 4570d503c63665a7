package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.reliableudp.DropReason;
import io.reliableudp.message.MessageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Makes the example datagrams of {@code docs/spec.md} with the real stack (handshake, connection,
 * message and packet layers, in memory, every random value drawn from a fixed seed) and checks that
 * the annotated hex dumps between the doc's {@code spec-example} markers are exactly those bytes,
 * offsets included, so the spec cannot drift from the code. The encrypted example is also opened
 * with the key schedule, nonce and associated data exactly as the spec words them (plain JDK
 * SHA-256, HMAC, X25519 and cipher, not the connection classes), which checks those sections too.
 */
class SpecExamplesTest {

    /** The example's application protocol id ("SPEC", 1). */
    private static final long PROTOCOL_ID = 0x5350_4543_0000_0001L;
    /** The example's pre-shared key: bytes 0x00..0x1f. */
    private static final byte[] PSK = psk();
    private static final InetSocketAddress CLIENT = address();

    @Test
    void plainDatagramMatchesTheSpec() {
        Exchange x = Exchange.run(null);
        assertDumpMatches("plain", x.datagram);
        assertThat(x.datagram.length).isEqualTo(13 + 4 + 9 + 6);

        // section 1: a version-1 receiver reads an over-long varint (85 00 = 5) by its value
        byte[] next = x.datagram.clone();
        next[12]++;                    // the client's next frame sequence
        next[14] = 1;                  // packet sequence 1; the ack (difference 1) still names the server's packet 0
        next[16] = 1;
        byte[] frames = HexFormat.ofDelimiter(" ").parseHex("00 02 00 85 00 61 67 61 69 6e"); // MSG ch 0, id 2, "again"
        byte[] overlong = concat(Arrays.copyOf(next, 17), frames);
        java.util.Objects.requireNonNull(x.server).receive(overlong, 0, overlong.length, 0.008);
        assertThat(x.serverGot).extracting(SpecExamplesTest::text).containsExactly("hello", "world", "again");

        // section 3.9: the same datagram again is dropped by the replay window, in plain mode too
        x.server.receive(overlong, 0, overlong.length, 0.009);
        assertThat(x.serverDrops).containsExactly(DropReason.REPLAYED);
        assertThat(x.serverGot).hasSize(3);
    }

    @Test
    void encryptedDatagramMatchesTheSpecAndOpensAsTheSpecSays() throws GeneralSecurityException {
        Exchange sealed = Exchange.run(PSK);

        // the key schedule of spec 3.8 in plain JDK calls (pre-shared key, no identities)
        byte[] h = sha256("reliable-udp v4 X25519 ChaCha20-Poly1305 SHA-256".getBytes(StandardCharsets.US_ASCII));
        byte[] ck = h.clone();
        byte[] r = sealed.response;
        h = sha256(concat(h, Arrays.copyOf(r, 115)));                       // 1. the response's clear part
        byte[][] kdf = hkdf(ck, PSK);                                        // 2. the pre-shared key
        ck = kdf[0];
        byte[] eC = Arrays.copyOfRange(r, 115, 147);
        h = sha256(concat(h, eC));                                           // 3. the client's ephemeral key
        kdf = hkdf(ck, eC);
        ck = kdf[0];
        h = sha256(concat(h, Arrays.copyOfRange(r, 147, 195)));              // 4. no static key: 48 zeros
        byte[] k = kdf[1];
        assertThat(seal(k, h, new byte[0])).as("proof of the response").isEqualTo(Arrays.copyOfRange(r, 195, 211));
        h = sha256(concat(h, Arrays.copyOfRange(r, 195, 211)));
        byte[] a = sealed.accept;
        byte[] eS = Arrays.copyOfRange(a, 6, 38);
        h = sha256(concat(h, eS));                                           // 6. the server's ephemeral key
        kdf = hkdf(ck, eS);
        ck = kdf[0];
        kdf = hkdf(ck, x25519(sealed.clientEphemeralScalar, eS));            // 7. ee
        ck = kdf[0];
        assertThat(seal(kdf[1], h, new byte[0])).as("proof of the accept").isEqualTo(Arrays.copyOfRange(a, 38, 54));
        byte[][] session = hkdf(ck, new byte[0]);                            // 9. split
        byte[] clientToServer = session[0];

        // nonce = 4 zero bytes || sequence (u64 big-endian); AAD = bytes 0..12 || version || protocol id
        byte[] d = sealed.datagram;
        byte[] nonce = new byte[12];
        System.arraycopy(d, 5, nonce, 4, 8);
        Cipher cipher = Cipher.getInstance("ChaCha20-Poly1305");
        cipher.init(Cipher.DECRYPT_MODE, new SecretKeySpec(clientToServer, "ChaCha20"), new IvParameterSpec(nonce));
        cipher.updateAAD(d, 0, 13);
        cipher.updateAAD(concat(new byte[] {(byte) Protocol.VERSION}, bigEndian(PROTOCOL_ID)));
        byte[] body = cipher.doFinal(d, 13, d.length - 13);

        // the sealed body is the same packet-layer packet the plain example carries in the clear
        Exchange plain = Exchange.run(null);
        assertThat(body).isEqualTo(Arrays.copyOfRange(plain.datagram, 13, plain.datagram.length));
        // and the header is the plain one's but for nothing: type, salt, sequence
        assertThat(Arrays.copyOf(d, 13)).isEqualTo(Arrays.copyOf(plain.datagram, 13));
        assertThat(d.length).isEqualTo(13 + body.length + 16);

        assertDumpMatches("challenge", sealed.challenge);
        assertDumpMatches("response", sealed.response);
        assertDumpMatches("accept", sealed.accept);
        assertDumpMatches("encrypted", sealed.datagram);
    }

    /** A client and a server connection over the production message layer, handshake included. */
    private static final class Exchange {
        byte[] clientNonce = new byte[Protocol.NONCE_BYTES];
        byte[] serverNonce = new byte[0];
        byte[] challenge = new byte[0];
        byte[] response = new byte[0];
        byte[] accept = new byte[0];
        byte[] clientEphemeralScalar = new byte[32];
        byte[] datagram = new byte[0];
        @Nullable Connection server;
        List<byte[]> serverGot = new ArrayList<>();
        List<DropReason> serverDrops = List.of();

        static Exchange run(byte @Nullable [] psk) {
            Exchange x = new Exchange();
            ConnectionSettings settings = new ConnectionSettings(PROTOCOL_ID, psk, 0.1, 5, 5, 0.1,
                    MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(psk != null)).build(),
                    MessageSession.FACTORY);
            new SeededRandom(1).nextBytes(x.clientNonce);
            List<byte[]> clientGot = new ArrayList<>();
            List<byte[]> serverGot = x.serverGot;
            ConnectionTestSupport.Recorder c = new ConnectionTestSupport.Recorder(clientGot);
            ConnectionTestSupport.Recorder s = new ConnectionTestSupport.Recorder(serverGot);
            ConnectionFuzzTest.CountingReporter reporter = new ConnectionFuzzTest.CountingReporter();
            HandshakeServer handshake = new HandshakeServer(settings, new SeededRandom(2), reporter);

            new SeededRandom(3).nextBytes(x.clientEphemeralScalar);
            Connection client = Connection.client(settings, c, c, x.clientNonce, new SeededRandom(3), 0.000);
            byte[] request = last(c.sent);
            byte[] reply = new byte[Protocol.REQUEST_SIZE];
            int n = handshake.onRequest(CLIENT, request, 0, request.length, 1_000, true, true, reply);
            x.challenge = Arrays.copyOf(reply, n);
            x.serverNonce = Arrays.copyOfRange(x.challenge, 18, 34);
            client.receive(x.challenge, 0, x.challenge.length, 0.001);
            x.response = last(c.sent);
            HandshakeServer.Verified verified = handshake.onResponse(CLIENT, x.response, 0, x.response.length, 1_002, reply);
            assertThat(verified).isNotNull();
            Connection server = x.server = Connection.server(settings, s, s, verified, 0.002);
            byte[] confirm = last(s.sent);
            x.accept = confirm;
            client.receive(confirm, 0, confirm.length, 0.003);
            assertThat(client.state()).isEqualTo(Connection.State.CONNECTED);

            // the server speaks first, so the example packet acknowledges something
            server.send(0, utf8("hi"), null, 0.004);
            server.flush(0.004);
            byte[] fromServer = last(s.sent);
            client.receive(fromServer, 0, fromServer.length, 0.005);

            // the example: two small reliable messages on channel 0 (reliable-ordered) in one datagram
            int before = c.sent.size();
            client.send(0, utf8("hello"), null, 0.006);
            client.send(0, utf8("world"), null, 0.006);
            client.flush(0.006);
            assertThat(c.sent).hasSize(before + 1);
            x.datagram = last(c.sent);
            server.receive(x.datagram, 0, x.datagram.length, 0.007);

            assertThat(clientGot).extracting(SpecExamplesTest::text).containsExactly("hi");
            assertThat(serverGot).extracting(SpecExamplesTest::text).containsExactly("hello", "world");
            assertThat(c.drops).isEmpty();
            assertThat(s.drops).isEmpty();
            x.serverDrops = s.drops;
            assertThat(reporter.drops + reporter.failures).isZero();
            return x;
        }
    }

    // ------------------------------------------------------------------ the doc's dumps

    /** One line of a dump: decimal offset or range, the bytes in lower-case hex, then the meaning. */
    private static final Pattern LINE =
            Pattern.compile("^(\\d+)(?:-(\\d+))?\\s+([0-9a-f]{2}(?: [0-9a-f]{2})*)(?:\\s{2,}(\\S.*))?$");

    private static void assertDumpMatches(String name, byte[] actual) {
        List<String> lines = block(name);
        byte[] documented = new byte[0];
        for (String line : lines) {
            if (line.startsWith("```") || line.startsWith("offset") || line.isBlank()) {
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                fail("docs/spec.md, example '" + name + "': not an 'offset  bytes  meaning' line: " + line
                        + "\nthe code produced:\n" + rawDump(actual));
            }
            byte[] bytes = HexFormat.ofDelimiter(" ").parseHex(m.group(3));
            int start = Integer.parseInt(m.group(1));
            int end = m.group(2) == null ? start : Integer.parseInt(m.group(2));
            assertThat(start).as("offset of line '%s' in example '%s'", line, name).isEqualTo(documented.length);
            assertThat(end - start + 1).as("byte count of range in line '%s'", line).isEqualTo(bytes.length);
            documented = concat(documented, bytes);
        }
        if (!Arrays.equals(documented, actual)) {
            fail("docs/spec.md, example '" + name + "' no longer matches the code. Documented:\n" + rawDump(documented)
                    + "\nthe code produced (re-annotate the ranges in the doc):\n" + rawDump(actual));
        }
    }

    /** The lines between {@code <!-- spec-example: name -->} and {@code <!-- /spec-example: name -->}. */
    private static List<String> block(String name) {
        List<String> all = specLines();
        int from = all.indexOf("<!-- spec-example: " + name + " -->");
        int to = all.indexOf("<!-- /spec-example: " + name + " -->");
        assertThat(from).as("start marker of example '%s' in docs/spec.md", name).isNotNegative();
        assertThat(to).as("end marker of example '%s' in docs/spec.md", name).isGreaterThan(from);
        return all.subList(from + 1, to);
    }

    private static List<String> specLines() {
        for (Path p : List.of(Path.of("docs", "spec.md"), Path.of("..", "docs", "spec.md"))) {
            if (Files.isRegularFile(p)) {
                try {
                    return Files.readAllLines(p, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new AssertionError("docs/spec.md not found from " + Path.of("").toAbsolutePath());
    }

    private static String rawDump(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < b.length; i += 16) {
            int end = Math.min(b.length, i + 16);
            sb.append(String.format("%-6s", i + "-" + (end - 1)))
                    .append(HexFormat.ofDelimiter(" ").formatHex(b, i, end)).append('\n');
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ helpers

    /** A SecureRandom whose bytes come from a fixed seed: the handshake's nonces, salt and cookie key. */
    private static final class SeededRandom extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final transient SplittableRandom random;

        SeededRandom(long seed) {
            this.random = new SplittableRandom(seed);
        }

        @Override
        public void nextBytes(byte[] bytes) {
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) random.nextInt(256);
            }
        }
    }

    private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    /** HKDF as spec 3.8 words it: t = HMAC(ck, ikm); o1 = HMAC(t, 01); o2 = HMAC(t, o1 || 02). */
    private static byte[][] hkdf(byte[] ck, byte[] ikm) throws GeneralSecurityException {
        byte[] t = hmac(ck, ikm);
        byte[] o1 = hmac(t, new byte[] {1});
        return new byte[][] {o1, hmac(t, concat(o1, new byte[] {2}))};
    }

    private static byte[] sha256(byte[] data) throws GeneralSecurityException {
        return java.security.MessageDigest.getInstance("SHA-256").digest(data);
    }

    /** ChaCha20-Poly1305 with nonce 0 and {@code h} as associated data. */
    private static byte[] seal(byte[] key, byte[] h, byte[] plain) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("ChaCha20-Poly1305");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(new byte[12]));
        cipher.updateAAD(h);
        return cipher.doFinal(plain);
    }

    /** X25519(scalar, u) with the JDK's KeyAgreement (raw little-endian encodings, RFC 7748). */
    private static byte[] x25519(byte[] scalar, byte[] u) throws GeneralSecurityException {
        java.security.KeyFactory kf = java.security.KeyFactory.getInstance("X25519");
        java.security.PrivateKey priv = kf.generatePrivate(new java.security.spec.XECPrivateKeySpec(
                java.security.spec.NamedParameterSpec.X25519, scalar));
        byte[] be = new byte[32];
        for (int i = 0; i < 32; i++) {
            be[i] = u[31 - i];
        }
        be[0] &= 0x7f;
        java.security.PublicKey pub = kf.generatePublic(new java.security.spec.XECPublicKeySpec(
                java.security.spec.NamedParameterSpec.X25519, new java.math.BigInteger(1, be)));
        javax.crypto.KeyAgreement ka = javax.crypto.KeyAgreement.getInstance("X25519");
        ka.init(priv);
        ka.doPhase(pub, true);
        return ka.generateSecret();
    }

    private static byte[] bigEndian(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private static byte[] last(List<byte[]> sent) {
        return sent.get(sent.size() - 1);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] psk() {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) i;
        }
        return k;
    }

    private static InetSocketAddress address() {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 7}), 40_001);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
