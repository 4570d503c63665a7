package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Properties of the codecs, cookies, AEAD and replay window. */
class ConnectionPropertiesTest {

    @Property
    void requestRoundTrips(@ForAll long protocolId, @ForAll @IntRange(min = 0, max = 1) int flags,
                           @ForAll @Size(16) List<Byte> nonce) {
        byte[] n = bytes(nonce);
        byte[] out = new byte[Protocol.REQUEST_SIZE];
        assertThat(Handshake.encodeRequest(protocolId, flags, n, out)).isEqualTo(Protocol.REQUEST_SIZE);
        Handshake.Request r = Handshake.decodeRequest(out, 0, out.length);
        assertThat(r).isNotNull();
        assertThat(r.protocolId()).isEqualTo(protocolId);
        assertThat(r.flags()).isEqualTo(flags);
        assertThat(r.clientNonce()).isEqualTo(n);
        // a request that lost its padding is not answered
        assertThat(Handshake.decodeRequest(out, 0, out.length - 1)).isNull();
    }

    @Property
    void challengeResponseAndAcceptRoundTrip(@ForAll long protocolId, @ForAll int salt, @ForAll @Size(16) List<Byte> cn,
                                             @ForAll @Size(16) List<Byte> sn, @ForAll @Size(32) List<Byte> cookie,
                                             @ForAll @Size(32) List<Byte> serverStatic, @ForAll @Size(32) List<Byte> ephemeral,
                                             @ForAll @IntRange(min = 0, max = 3) int flags) {
        Handshake.Challenge c = new Handshake.Challenge(bytes(cn), bytes(sn), salt, bytes(cookie), bytes(serverStatic));
        byte[] out = new byte[Protocol.REQUEST_SIZE];
        int n = Handshake.encodeChallenge(c.clientNonce(), c.serverNonce(), c.salt(), c.cookie(), c.serverStatic(), out);
        assertThat(n).isEqualTo(Protocol.CHALLENGE_SIZE).isLessThan(Protocol.REQUEST_SIZE);
        Handshake.Challenge back = Handshake.decodeChallenge(out, 0, n);
        assertThat(back).isNotNull();
        assertThat(back.salt()).isEqualTo(salt);
        assertThat(back.cookie()).isEqualTo(c.cookie());
        assertThat(back.serverStatic()).isEqualTo(c.serverStatic());
        n = Handshake.encodeResponse(protocolId, flags, c, bytes(ephemeral), out);
        assertThat(n).isEqualTo(Protocol.RESPONSE_SIZE).isLessThan(Protocol.REQUEST_SIZE);
        Handshake.Response r = Handshake.decodeResponse(out, 0, n);
        assertThat(r).isNotNull();
        assertThat(r.salt()).isEqualTo(salt);
        assertThat(r.flags()).isEqualTo(flags);
        assertThat(r.serverNonce()).isEqualTo(c.serverNonce());
        assertThat(r.serverStatic()).isEqualTo(c.serverStatic());
        assertThat(r.clientEphemeral()).isEqualTo(bytes(ephemeral));
        // the answer to a response (an accept or a denial) is smaller than it
        n = Handshake.encodeAccept(salt, bytes(ephemeral), out);
        assertThat(n).isEqualTo(Protocol.ACCEPT_SIZE).isLessThan(Protocol.RESPONSE_SIZE);
        Handshake.Accept a = Handshake.decodeAccept(out, 0, n);
        assertThat(a).isNotNull();
        assertThat(a.salt()).isEqualTo(salt);
        assertThat(a.serverEphemeral()).isEqualTo(bytes(ephemeral));
        assertThat(Protocol.DENIED_SIZE).isLessThan(Protocol.RESPONSE_SIZE);
    }

    @Property(tries = 200)
    void cookiesOpenOnlyForTheSameValuesAndAddress(@ForAll int salt, @ForAll @IntRange(min = 0, max = 65535) int port,
                                                   @ForAll @IntRange(min = 0, max = 6) int change) throws Exception {
        CookieJar jar = new CookieJar(42, new SecureRandom());
        byte[] cn = new byte[16];
        byte[] sn = new byte[16];
        sn[3] = 9;
        InetSocketAddress from = new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, 1}), port);
        byte[] cookie = new byte[Protocol.COOKIE_SIZE];
        jar.seal(123_456, 0, cn, sn, salt, from, cookie, 0);
        assertThat(jar.open(cookie, 0, cn, sn, salt, from)).isEqualTo(123_456);
        switch (change) {
            case 0 -> cookie[cookie.length - 1] ^= 1;
            case 1 -> cn[0] ^= 1;
            case 2 -> sn[15] ^= 1;
            case 3 -> salt ^= 1;
            case 4 -> from = new InetSocketAddress(from.getAddress(), port ^ 1);
            case 5 -> from = new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 0, 0, 2}), port);
            default -> cookie[9] ^= 1;
        }
        assertThat(jar.open(cookie, 0, cn, sn, salt, from)).isEqualTo(-1);
        // another server (another key) cannot open it either
        assertThat(new CookieJar(42, new SecureRandom()).open(cookie, 0, cn, sn, salt, from)).isEqualTo(-1);
    }

    @Property(tries = 300)
    void aeadOpensWhatItSealsAndNothingAltered(@ForAll @Size(max = 1200) List<Byte> plain, @ForAll long counter,
                                                @ForAll @IntRange(min = 0, max = 1300) int flip) {
        byte[] key = new byte[32];
        key[5] = 1;
        Aead sealer = new Aead(key);
        Aead opener = new Aead(key);
        byte[] p = bytes(plain);
        byte[] aad = {1, 2, 3};
        byte[] tail = {9};
        byte[] sealed = new byte[p.length + 16];
        assertThat(sealer.seal(counter, aad, 0, 3, tail, p, 0, p.length, sealed, 0)).isEqualTo(sealed.length);
        byte[] out = new byte[p.length];
        assertThat(opener.open(counter, aad, 0, 3, tail, sealed, 0, sealed.length, out, 0)).isEqualTo(p.length);
        assertThat(out).isEqualTo(p);
        assertThat(opener.open(counter + 1, aad, 0, 3, tail, sealed, 0, sealed.length, out, 0)).isEqualTo(-1);
        sealed[flip % sealed.length] ^= 0x10;
        assertThat(opener.open(counter, aad, 0, 3, tail, sealed, 0, sealed.length, out, 0)).isEqualTo(-1);
    }

    @Provide
    Arbitrary<List<Long>> sequences() {
        return Arbitraries.longs().between(0, 2_000).list().ofMaxSize(600);
    }

    /** The window accepts a sequence iff it is new and not older than the newest minus 255. */
    @Property
    void replayWindowMatchesAModel(@ForAll("sequences") List<Long> sequences) {
        ReplayWindow w = new ReplayWindow();
        Set<Long> seen = new HashSet<>();
        long newest = 0;
        for (long s : sequences) {
            boolean expectedReplay = seen.contains(s) || s + ReplayWindow.SIZE <= newest;
            assertThat(w.alreadyReceived(s)).as("sequence %d, newest %d", s, newest).isEqualTo(expectedReplay);
            if (!expectedReplay) {
                w.advance(s);
                seen.add(s);
                newest = Math.max(newest, s);
            }
        }
    }

    private static byte[] bytes(List<Byte> list) {
        byte[] b = new byte[list.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = list.get(i);
        }
        return b;
    }
}
