package io.reliableudp.connection;

import io.reliableudp.internal.WireCodec;
import java.net.InetSocketAddress;
import java.security.SecureRandom;

/**
 * Stateless challenge cookies: the server seals the issue time with a key only it knows
 * (random per process, ChaCha20-Poly1305), authenticating as additional data everything the cookie
 * vouches for: protocol id, flags, both nonces, the salt and the client's address and port.
 * The server keeps nothing per unverified sender. Not thread-safe (the receive loop owns it).
 */
final class CookieJar {

    private final Aead aead;
    private final long protocolId;
    private final byte[] aad = new byte[8 + 1 + Protocol.NONCE_BYTES * 2 + 4 + 16 + 2];
    private final byte[] plain = new byte[8];
    private final byte[] opened = new byte[8];
    private long counter;

    /** A jar with a fresh random key. */
    public CookieJar(long protocolId, SecureRandom random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        this.aead = new Aead(key);
        this.protocolId = protocolId;
    }

    /** Seals a cookie issued at {@code nowMillis} into {@code out[outOff, outOff + COOKIE_SIZE)}. */
    public void seal(long nowMillis, int flags, byte[] clientNonce, byte[] serverNonce, int salt,
                     InetSocketAddress address, byte[] out, int outOff) {
        int aadLen = aad(flags, clientNonce, serverNonce, salt, address);
        long seq = counter++;
        WireCodec.putLongBE(out, outOff, seq);
        WireCodec.putLongBE(plain, 0, nowMillis);
        aead.seal(seq, aad, 0, aadLen, EMPTY, plain, 0, 8, out, outOff + 8);
    }

    /**
     * Opens a cookie.
     *
     * @return the issue time in milliseconds, or -1 when the cookie is forged, altered, or bound to
     *     other values or another address
     */
    public long open(byte[] cookie, int flags, byte[] clientNonce, byte[] serverNonce, int salt, InetSocketAddress address) {
        if (cookie.length != Protocol.COOKIE_SIZE) {
            return -1;
        }
        int aadLen = aad(flags, clientNonce, serverNonce, salt, address);
        long seq = WireCodec.getLongBE(cookie, 0);
        int n = aead.open(seq, aad, 0, aadLen, EMPTY, cookie, 8, 8 + Protocol.TAG_BYTES, opened, 0);
        return n == 8 ? WireCodec.getLongBE(opened, 0) : -1;
    }

    private static final byte[] EMPTY = new byte[0];

    private int aad(int flags, byte[] clientNonce, byte[] serverNonce, int salt, InetSocketAddress address) {
        int p = 0;
        WireCodec.putLongBE(aad, p, protocolId);
        p += 8;
        aad[p++] = (byte) flags;
        System.arraycopy(clientNonce, 0, aad, p, Protocol.NONCE_BYTES);
        p += Protocol.NONCE_BYTES;
        System.arraycopy(serverNonce, 0, aad, p, Protocol.NONCE_BYTES);
        p += Protocol.NONCE_BYTES;
        WireCodec.putIntBE(aad, p, salt);
        p += 4;
        byte[] ip = address.getAddress() == null ? new byte[0] : address.getAddress().getAddress();
        System.arraycopy(ip, 0, aad, p, ip.length);
        p += ip.length;
        WireCodec.putU16BE(aad, p, address.getPort());
        p += 2;
        return p;
    }

    @Override
    public String toString() {
        return "CookieJar[key=[redacted]]";
    }
}
