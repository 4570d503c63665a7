package io.reliableudp.transport;

import io.reliableudp.internal.X25519;
import java.util.Arrays;
import java.util.Base64;

/**
 * A node's public X25519 key (32 bytes, RFC 7748's encoding): what a peer's allow-list holds and what
 * a handshake proves. Value equality over the bytes; {@link #toString()} is the Base64 text, which is
 * not secret. Build one with {@link #fromBase64(String)} or {@link NodeIdentity#publicKey()}.
 *
 * @param key the 32 key bytes (copied in, and copied out by {@link #bytes()})
 */
public record PeerKey(byte[] key) {

    /** A key of exactly 32 bytes (copied). */
    public PeerKey {
        if (key == null || key.length != X25519.KEY_BYTES) {
            throw new IllegalArgumentException("an X25519 public key is 32 bytes, was " + (key == null ? "null" : key.length));
        }
        key = key.clone();
    }

    /**
     * A key from text: the 32 raw bytes in Base64 (44 characters, as {@link #toBase64()} writes and
     * WireGuard's {@code wg pubkey} prints), or a PEM {@code PUBLIC KEY} block of an X25519 key (as
     * {@code openssl pkey -pubout} writes); surrounding white space is ignored.
     *
     * @throws IllegalArgumentException when the text is neither (the message never echoes the text)
     */
    public static PeerKey fromBase64(String text) {
        String t = text.strip();
        if (t.startsWith("-----BEGIN")) {
            byte[] der = Pem.decode(t, "PUBLIC KEY");
            return new PeerKey(X25519.rawPublicKeyFromX509(der));
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a peer key must be 32 bytes in Base64 or a PEM PUBLIC KEY block");
        }
        if (raw.length != X25519.KEY_BYTES) {
            throw new IllegalArgumentException("a peer key must be 32 bytes in Base64, was " + raw.length + " bytes");
        }
        return new PeerKey(raw);
    }

    /** The key as Base64 of its 32 bytes. */
    public String toBase64() {
        return Base64.getEncoder().encodeToString(key);
    }

    /** The key's 32 bytes (a copy). */
    public byte[] bytes() {
        return key.clone();
    }

    /** Same as {@link #bytes()}: the record component, copied. */
    @Override
    public byte[] key() {
        return key.clone();
    }

    /** The 32 bytes, without copying (package use). */
    byte[] raw() {
        return key;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PeerKey other && Arrays.equals(key, other.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    /** The Base64 text (a public key is not secret). */
    @Override
    public String toString() {
        return toBase64();
    }
}
