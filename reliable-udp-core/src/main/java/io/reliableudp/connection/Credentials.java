package io.reliableudp.connection;

import io.reliableudp.internal.X25519;
import java.nio.ByteBuffer;
import java.security.PrivateKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A node's static identity and allow-list, as the handshake uses them: replaceable at run time
 * (volatile snapshots; a handshake reads each once), fixed in kind (a node with identities keeps
 * them, one without never gets them, so the handshake's mode never changes). Keys are raw 32-byte
 * X25519 strings; names are the application's. Thread-safe. Never shows a private key.
 *
 * <p>The connection layer's contract with the transport; not user API.
 */
public final class Credentials {

    /** A key pair: the private key and its raw public key. */
    record StaticKey(PrivateKey privateKey, byte[] publicKey) {
        @Override
        public String toString() {
            return "StaticKey[redacted]";
        }
    }

    private final boolean identities;
    private volatile @Nullable StaticKey current;
    /** The key replaced last, still good for handshakes a peer began with it (their challenge named it). */
    private volatile @Nullable StaticKey previous;
    private volatile Map<ByteBuffer, String> allowed = Map.of();

    private Credentials(boolean identities) {
        this.identities = identities;
    }

    /** No identities: plain or pre-shared-key mode only. */
    public static Credentials none() {
        return new Credentials(false);
    }

    /**
     * Identities: this node's private key and the allow-list (raw public keys and their names, the two
     * lists of the same length; a key listed twice keeps its first name).
     */
    public static Credentials of(PrivateKey identity, List<byte[]> allowedKeys, List<String> names) {
        Credentials c = new Credentials(true);
        c.identity(identity);
        c.allow(allowedKeys, names);
        return c;
    }

    /** Whether handshakes prove static keys. */
    public boolean identities() {
        return identities;
    }

    /** Replaces this node's key for new handshakes (the previous one stays good for those begun with it). */
    public void identity(PrivateKey key) {
        if (!identities) {
            throw new IllegalStateException("this node was started without an identity; its mode cannot change at run time");
        }
        StaticKey next = new StaticKey(Objects.requireNonNull(key), X25519.publicKeyOf(key));
        previous = current;
        current = next;
    }

    /** Replaces the allow-list for new handshakes. */
    public void allow(List<byte[]> keys, List<String> names) {
        if (!identities) {
            throw new IllegalStateException("this node was started without an identity; it has no allow-list to change");
        }
        if (keys.size() != names.size() || keys.isEmpty()) {
            throw new IllegalArgumentException("the allow-list must name at least one key, a name per key");
        }
        Map<ByteBuffer, String> m = new HashMap<>();
        for (int i = 0; i < keys.size(); i++) {
            byte[] k = keys.get(i);
            if (k.length != X25519.KEY_BYTES) {
                throw new IllegalArgumentException("an allowed key is 32 bytes, was " + k.length);
            }
            m.putIfAbsent(ByteBuffer.wrap(k.clone()), names.get(i));
        }
        allowed = Map.copyOf(m);
    }

    /** The current key pair (null without identities). */
    @Nullable StaticKey current() {
        return current;
    }

    /** The key pair whose public key is {@code publicKey}: the current or the previous one, else null. */
    @Nullable StaticKey byPublicKey(byte[] publicKey) {
        StaticKey c = current;
        if (c != null && java.security.MessageDigest.isEqual(c.publicKey(), publicKey)) {
            return c;
        }
        StaticKey p = previous;
        if (p != null && java.security.MessageDigest.isEqual(p.publicKey(), publicKey)) {
            return p;
        }
        return null;
    }

    /** The name of an allowed key, or null when the key is not on the list. */
    @Nullable String nameOf(byte[] publicKey) {
        return allowed.get(ByteBuffer.wrap(publicKey));
    }

    @Override
    public String toString() {
        return "Credentials[identities=" + identities + ", allowed=" + allowed.size() + ", key=[redacted]]";
    }
}
