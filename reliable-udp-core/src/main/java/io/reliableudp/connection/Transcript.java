package io.reliableudp.connection;

import io.reliableudp.internal.X25519;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * The handshake's symmetric state, as the Noise framework (revision 34, section 5.2) defines it: a
 * chaining key {@code ck} that every Diffie-Hellman result and the pre-shared key are mixed into with
 * HKDF-SHA256, a transcript hash {@code h} over every handshake field, and a key {@code k} (the last
 * HKDF output) that seals the handshake's own fields with ChaCha20-Poly1305, nonce 0, {@code h} as
 * associated data. Each seal or open is followed by mixing its ciphertext into {@code h}, and every
 * key is used for one seal only (it is replaced by the next {@link #mixKey}), so nonce 0 never repeats
 * under a key. {@link #split} derives the two session keys and erases the state.
 * The key schedule is spec section 3.8. Not thread-safe; never shows a key.
 */
final class Transcript {

    /** The protocol name: the initial {@code h} and {@code ck} are its SHA-256. */
    static final byte[] PROTOCOL_NAME = "reliable-udp v4 X25519 ChaCha20-Poly1305 SHA-256".getBytes(StandardCharsets.US_ASCII);

    private static final byte[] INITIAL = sha256(PROTOCOL_NAME, 0, PROTOCOL_NAME.length);
    private static final byte[] EMPTY = new byte[0];

    private final byte[] ck;
    private final byte[] h;
    private byte @Nullable [] k;

    private Transcript(byte[] ck, byte[] h, byte @Nullable [] k) {
        this.ck = ck;
        this.h = h;
        this.k = k;
    }

    /** The initial state: {@code h = ck = SHA-256(PROTOCOL_NAME)}, no key. */
    static Transcript start() {
        return new Transcript(INITIAL.clone(), INITIAL.clone(), null);
    }

    /**
     * The steps both ends take over a response's clear part (spec 3.8, steps 1-4): start, mix the
     * response's bytes up to and with the server's static key, the pre-shared key when there is one,
     * then the client's ephemeral key (into {@code h} and, as Noise's pre-shared-key modes do, into
     * {@code ck}).
     */
    static Transcript ofResponse(byte[] response, int off, byte @Nullable [] preSharedKey) {
        Transcript t = start();
        t.mixHash(response, off, Handshake.RESPONSE_EPHEMERAL);
        if (preSharedKey != null) {
            t.mixKey(preSharedKey.clone());
        }
        t.mixHash(response, off + Handshake.RESPONSE_EPHEMERAL, Protocol.KEY_BYTES);
        t.mixKey(Arrays.copyOfRange(response, off + Handshake.RESPONSE_EPHEMERAL, off + Handshake.RESPONSE_SEALED_STATIC));
        return t;
    }

    /** An independent copy (the server finishes a copy, so a failure leaves the verified state unchanged). */
    Transcript copy() {
        return new Transcript(ck.clone(), h.clone(), k == null ? null : k.clone());
    }

    /** {@code h = SHA-256(h || data)}. */
    void mixHash(byte[] data, int off, int len) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(h);
            d.update(data, off, len);
            d.digest(h, 0, 32);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }

    void mixHash(byte[] data) {
        mixHash(data, 0, data.length);
    }

    /** {@code ck, k = HKDF(ck, ikm)} (two outputs); the input is zeroed afterwards. */
    void mixKey(byte[] ikm) {
        byte[][] out = hkdf(ck, ikm);
        System.arraycopy(out[0], 0, ck, 0, 32);
        X25519.erase(out[0]);
        X25519.erase(k);
        k = out[1];
    }

    /** Mixes a Diffie-Hellman result (zeroed afterwards). */
    void mixDh(byte[] shared) {
        try {
            mixKey(shared);
        } finally {
            X25519.erase(shared);
        }
    }

    /**
     * Seals {@code plain} under {@code k}, nonce 0, {@code h} as associated data, writes ciphertext
     * and tag into {@code out} at {@code outOff}, and mixes them into {@code h}.
     *
     * @return bytes written ({@code plain.length + 16})
     */
    int sealAndHash(byte[] plain, byte[] out, int outOff) {
        byte[] key = requireKey();
        int n = new Aead(key).seal(0, h, 0, h.length, EMPTY, plain, 0, plain.length, out, outOff);
        mixHash(out, outOff, n);
        return n;
    }

    /**
     * Opens {@code in[off, off+len)} (ciphertext and tag) under {@code k}, nonce 0, {@code h} as
     * associated data, and mixes the ciphertext into {@code h}.
     *
     * @return the plaintext, or null when the tag does not verify ({@code h} is then unchanged)
     */
    byte @Nullable [] openAndHash(byte[] in, int off, int len) {
        byte[] key = requireKey();
        byte[] plain = new byte[Math.max(0, len - Protocol.TAG_BYTES)];
        int n = new Aead(key).open(0, h, 0, h.length, EMPTY, in, off, len, plain, 0);
        if (n < 0) {
            return null;
        }
        mixHash(in, off, len);
        return plain;
    }

    private byte[] requireKey() {
        byte[] key = k;
        if (key == null) {
            throw new IllegalStateException("no key mixed in yet");
        }
        return key;
    }

    /**
     * The session keys: {@code HKDF(ck, empty)}, the first output sealing client-to-server frames, the
     * second server-to-client. Erases this state.
     */
    byte[][] split() {
        byte[][] out = hkdf(ck, EMPTY);
        Arrays.fill(ck, (byte) 0);
        Arrays.fill(h, (byte) 0);
        X25519.erase(k);
        k = null;
        return out;
    }

    /** The transcript hash (a copy; tests and spec examples). */
    byte[] hash() {
        return h.clone();
    }

    /** HKDF with two outputs as Noise uses it: {@code t = HMAC(ck, ikm); o1 = HMAC(t, 0x01); o2 = HMAC(t, o1 || 0x02)}. */
    static byte[][] hkdf(byte[] chainingKey, byte[] ikm) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(chainingKey, "HmacSHA256"));
            byte[] temp = mac.doFinal(ikm);
            mac.init(new SecretKeySpec(temp, "HmacSHA256"));
            byte[] o1 = mac.doFinal(new byte[] {1});
            mac.update(o1);
            byte[] o2 = mac.doFinal(new byte[] {2});
            Arrays.fill(temp, (byte) 0);
            return new byte[][] {o1, o2};
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks HmacSHA256", e);
        }
    }

    private static byte[] sha256(byte[] data, int off, int len) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(data, off, len);
            return d.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks SHA-256", e);
        }
    }

    /** Erases the state without splitting (a failed handshake). */
    void erase() {
        Arrays.fill(ck, (byte) 0);
        Arrays.fill(h, (byte) 0);
        X25519.erase(k);
        k = null;
    }

    @Override
    public String toString() {
        return "Transcript[redacted]";
    }
}
