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
    /**
     * Per second of the server clock (a ring of {@value #SECONDS} seconds, longer than the lifetime),
     * the counter of the first cookie sealed in that second or later: a cookie whose counter (its
     * plaintext nonce) is below the entry of second {@code s} was sealed before {@code s}, so its age can
     * be bounded without opening it ({@link #certainlyExpired}).
     */
    private final long[] firstCounter = new long[SECONDS];
    /** The second each {@link #firstCounter} entry is for (-1: none yet). */
    private final long[] firstCounterSecond = new long[SECONDS];
    private long lastSealSecond = -1;
    private static final int SECONDS = 16;
    /**
     * How many of the latest cookies {@link #markUsed} remembers: one bit each, keyed by the cookie's
     * counter (16 KiB). More than the cookies a node issues in a lifetime (the acceptor's token bucket
     * admits at most 10,000 handshake datagrams a second, a 10,000 burst: 110,000 in 10 s), so every
     * cookie still within its lifetime has its bit; an older one counts as used.
     */
    static final int USED_BITS = 1 << 17;
    /** Bit {@code c mod USED_BITS}: whether the cookie of counter {@code c} made a connection. Cleared when {@code c} is sealed. */
    private final long[] used = new long[USED_BITS / 64];

    /** A jar with a fresh random key. */
    public CookieJar(long protocolId, SecureRandom random) {
        byte[] key = new byte[32];
        random.nextBytes(key);
        this.aead = new Aead(key);
        this.protocolId = protocolId;
        java.util.Arrays.fill(firstCounterSecond, -1);
    }

    /** Seals a cookie issued at {@code nowMillis} into {@code out[outOff, outOff + COOKIE_SIZE)}. */
    public void seal(long nowMillis, int flags, byte[] clientNonce, byte[] serverNonce, int salt,
                     InetSocketAddress address, byte[] out, int outOff) {
        int aadLen = aad(flags, clientNonce, serverNonce, salt, address);
        long second = Math.floorDiv(nowMillis, 1000);
        if (second > lastSealSecond) {
            // every second since the last seal starts at this counter (no cookie was sealed in between)
            long from = Math.max(lastSealSecond + 1, second - SECONDS + 1);
            for (long s = from; s <= second; s++) {
                int i = (int) Math.floorMod(s, (long) SECONDS);
                firstCounter[i] = counter;
                firstCounterSecond[i] = s;
            }
            lastSealSecond = second;
        }
        long seq = counter++;
        used[(int) ((seq & (USED_BITS - 1)) >>> 6)] &= ~(1L << seq); // the slot now belongs to this cookie
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

    /**
     * Whether a cookie is expired for sure, from its plaintext counter alone (no crypto): it was sealed
     * before the second that began at least {@code lifetimeMillis} before {@code nowMillis}. False when
     * that cannot be told (the second is out of the ring, or a forged counter): then {@link #open} decides.
     */
    public boolean certainlyExpired(byte[] cookie, long nowMillis, long lifetimeMillis) {
        if (cookie.length != Protocol.COOKIE_SIZE) {
            return false;
        }
        long second = Math.floorDiv(nowMillis - lifetimeMillis, 1000);
        long first;
        if (second > lastSealSecond) {
            first = counter; // nothing sealed since that second began: every cookie so far is older
        } else {
            int i = (int) Math.floorMod(second, (long) SECONDS);
            if (firstCounterSecond[i] != second) {
                return false;
            }
            first = firstCounter[i];
        }
        // sealed before second * 1000 <= now - lifetime: older than the lifetime
        return Long.compareUnsigned(WireCodec.getLongBE(cookie, 0), first) < 0;
    }

    /**
     * Whether a cookie (opened by {@link #open}, so its counter is one this jar sealed) already made a
     * connection, or is too old for its bit to be remembered.
     */
    public boolean used(byte[] cookie) {
        long seq = WireCodec.getLongBE(cookie, 0);
        if (Long.compareUnsigned(seq, counter) >= 0 || counter - seq > USED_BITS) {
            return true;
        }
        return (used[(int) ((seq & (USED_BITS - 1)) >>> 6)] & (1L << seq)) != 0;
    }

    /** Remembers that a cookie (opened by {@link #open}) made a connection: a response with it again is a replay. */
    public void markUsed(byte[] cookie) {
        long seq = WireCodec.getLongBE(cookie, 0);
        used[(int) ((seq & (USED_BITS - 1)) >>> 6)] |= 1L << seq;
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
