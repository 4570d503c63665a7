package io.reliableudp.transport;

import io.reliableudp.internal.X25519;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.util.Base64;

/**
 * A node's static X25519 key pair: the identity it proves in every handshake (docs/connection.md,
 * "Identities"). Peers admit it when its {@link #publicKey()} is on their allow-list
 * ({@link NodeConfig#allowedPeers()}). Immutable and thread-safe; {@link #toString()} shows the
 * public key only, never the private one.
 *
 * <p>Make one with {@link #generate()} (then store its private key, e.g. as
 * {@code openssl genpkey -algorithm X25519} would, or as Base64 of the 32 raw bytes), or load one
 * with {@link #fromBase64(String)} / {@link #fromPrivateKey(byte[])}.
 */
public final class NodeIdentity {

    private final PrivateKey privateKey;
    private final PeerKey publicKey;

    private NodeIdentity(PrivateKey privateKey) {
        this.privateKey = privateKey;
        this.publicKey = new PeerKey(X25519.publicKeyOf(privateKey));
    }

    /** A fresh key pair from the JDK's strong randomness. */
    public static NodeIdentity generate() {
        KeyPair pair = X25519.generate();
        return new NodeIdentity(pair.getPrivate());
    }

    /**
     * The identity of a raw 32-byte X25519 private key (RFC 7748's scalar encoding, as WireGuard's
     * {@code wg genkey} makes one). The array is not kept; the caller may zero it afterwards.
     */
    public static NodeIdentity fromPrivateKey(byte[] raw32) {
        if (raw32 == null || raw32.length != X25519.KEY_BYTES) {
            throw new IllegalArgumentException("an X25519 private key is 32 bytes, was "
                    + (raw32 == null ? "null" : raw32.length));
        }
        return new NodeIdentity(X25519.privateKey(raw32));
    }

    /**
     * The identity of a private key in text: the 32 raw bytes in Base64, or a PEM {@code PRIVATE KEY}
     * block (PKCS#8) of an X25519 key as {@code openssl genpkey -algorithm X25519} writes it; surrounding
     * white space is ignored.
     *
     * @throws IllegalArgumentException when the text is neither (the message never echoes the text)
     */
    public static NodeIdentity fromBase64(String privateKeyBase64) {
        String t = privateKeyBase64.strip();
        if (t.startsWith("-----BEGIN")) {
            return new NodeIdentity(X25519.privateKeyFromPkcs8(Pem.decode(t, "PRIVATE KEY")));
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(t);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("a node identity must be a 32-byte private key in Base64 or a PEM PRIVATE KEY block");
        }
        try {
            return fromPrivateKey(raw);
        } finally {
            X25519.erase(raw);
        }
    }

    /** The public half: what peers put on their allow-list. */
    public PeerKey publicKey() {
        return publicKey;
    }

    /** The private key, for the handshake (package use; never logged). */
    PrivateKey privateKey() {
        return privateKey;
    }

    /** The private key as Base64 of its 32 raw bytes, to store a {@link #generate() generated} identity. */
    public String privateKeyBase64() {
        byte[] raw = X25519.raw(privateKey);
        try {
            return Base64.getEncoder().encodeToString(raw);
        } finally {
            X25519.erase(raw);
        }
    }

    /** The public key only; the private key is redacted. */
    @Override
    public String toString() {
        return "NodeIdentity[publicKey=" + publicKey + ", privateKey=[redacted]]";
    }
}
