package io.reliableudp.internal;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.XECPrivateKey;
import java.security.interfaces.XECPublicKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.security.spec.XECPrivateKeySpec;
import java.security.spec.XECPublicKeySpec;
import java.util.Arrays;
import javax.crypto.KeyAgreement;

/**
 * X25519 (RFC 7748) through the JDK ({@code KeyPairGenerator}, {@code KeyFactory} and
 * {@code KeyAgreement} "X25519"), with keys as raw 32-byte strings: a public key is the little-endian
 * u-coordinate, a private key the scalar as RFC 7748 writes it. Every method throws
 * {@link IllegalArgumentException} for a key the JDK refuses and {@link IllegalStateException} when
 * the JDK lacks X25519 (never on JDK 11 or later).
 *
 * <p>Erasing keys: the JDK's key objects keep their scalar in a field of their own that no API wipes
 * ({@code XECPrivateKey} is not {@code Destroyable} in practice), so "erasing" an ephemeral key means
 * dropping every reference to it and zeroing the raw copies this class hands out; the garbage
 * collector reclaims the object some time later. docs/connection.md, "Threat model", says what that
 * leaves to an attacker who can read the process's memory.
 */
public final class X25519 {

    /** Length of a public key, a private key and a shared secret. */
    public static final int KEY_BYTES = 32;

    private static final NamedParameterSpec CURVE = NamedParameterSpec.X25519;
    /** The base point's u-coordinate: DH(k, 9) is k's public key. */
    private static final BigInteger BASE_U = BigInteger.valueOf(9);

    private X25519() {
    }

    /** A fresh key pair from the JDK's default strong randomness. */
    public static KeyPair generate() {
        try {
            return KeyPairGenerator.getInstance("X25519").generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks X25519", e);
        }
    }

    /** A key pair as the handshake uses it: the JDK's private key and the raw public key. */
    public record Pair(PrivateKey privateKey, byte[] publicKey) {
        @Override
        public String toString() {
            return "X25519.Pair[redacted]";
        }
    }

    /**
     * A fresh key pair whose scalar is 32 bytes of {@code random} (RFC 7748 clamps it when used), so a
     * seeded source makes the same keys (the spec's examples); the raw scalar is zeroed after use.
     */
    public static Pair generate(java.security.SecureRandom random) {
        byte[] raw = new byte[KEY_BYTES];
        random.nextBytes(raw);
        try {
            PrivateKey key = privateKey(raw);
            return new Pair(key, publicKeyOf(key));
        } finally {
            erase(raw);
        }
    }

    /** The private key of a raw 32-byte scalar (the array is not kept). */
    public static PrivateKey privateKey(byte[] raw32) {
        if (raw32.length != KEY_BYTES) {
            throw new IllegalArgumentException("an X25519 private key is 32 bytes, was " + raw32.length);
        }
        try {
            return KeyFactory.getInstance("X25519").generatePrivate(new XECPrivateKeySpec(CURVE, raw32.clone()));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("not an X25519 private key", e);
        }
    }

    /** The private key of a PKCS#8 DER encoding (what {@code openssl genpkey -algorithm X25519} writes in PEM). */
    public static PrivateKey privateKeyFromPkcs8(byte[] der) {
        try {
            PrivateKey key = KeyFactory.getInstance("X25519").generatePrivate(new PKCS8EncodedKeySpec(der));
            if (!(key instanceof XECPrivateKey)) {
                throw new IllegalArgumentException("not an X25519 private key");
            }
            return key;
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new IllegalArgumentException("not a PKCS#8 X25519 private key", e);
        }
    }

    /** The raw 32-byte public key of an X.509 SubjectPublicKeyInfo DER encoding (PEM "PUBLIC KEY"). */
    public static byte[] rawPublicKeyFromX509(byte[] der) {
        try {
            PublicKey key = KeyFactory.getInstance("X25519").generatePublic(new X509EncodedKeySpec(der));
            return raw(key);
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new IllegalArgumentException("not an X.509 X25519 public key", e);
        }
    }

    /** The raw scalar of a private key (a copy the caller should zero after use). */
    public static byte[] raw(PrivateKey key) {
        return ((XECPrivateKey) key).getScalar().orElseThrow(() -> new IllegalArgumentException("the key hides its scalar"));
    }

    /** The raw 32-byte public key (little-endian u). */
    public static byte[] raw(PublicKey key) {
        BigInteger u = ((XECPublicKey) key).getU();
        byte[] be = u.toByteArray();
        byte[] le = new byte[KEY_BYTES];
        for (int i = 0; i < KEY_BYTES && i < be.length; i++) {
            le[i] = be[be.length - 1 - i];
        }
        return le;
    }

    /** The public key of a private key, as raw bytes: X25519(k, 9). */
    public static byte[] publicKeyOf(PrivateKey key) {
        return agree(key, BASE_U);
    }

    /** The shared secret X25519(k, u) with a raw 32-byte public key; throws IllegalArgumentException for a low-order point. */
    public static byte[] agree(PrivateKey key, byte[] publicRaw32) {
        if (publicRaw32.length != KEY_BYTES) {
            throw new IllegalArgumentException("an X25519 public key is 32 bytes, was " + publicRaw32.length);
        }
        byte[] be = new byte[KEY_BYTES];
        for (int i = 0; i < KEY_BYTES; i++) {
            be[i] = publicRaw32[KEY_BYTES - 1 - i];
        }
        be[0] &= 0x7f; // RFC 7748: the top bit of the last byte is masked
        return agree(key, new BigInteger(1, be));
    }

    private static byte[] agree(PrivateKey key, BigInteger u) {
        try {
            PublicKey peer = KeyFactory.getInstance("X25519").generatePublic(new XECPublicKeySpec(CURVE, u));
            KeyAgreement ka = KeyAgreement.getInstance("X25519");
            ka.init(key);
            ka.doPhase(peer, true);
            byte[] secret;
            try {
                secret = ka.generateSecret();
            } catch (IllegalStateException e) {
                throw new IllegalArgumentException("X25519 refused the public key (small order)", e);
            }
            if (secret.length != KEY_BYTES) {
                throw new IllegalArgumentException("unexpected shared secret length " + secret.length);
            }
            return secret;
        } catch (java.security.InvalidKeyException | java.security.spec.InvalidKeySpecException e) {
            // the JDK refuses a public key whose shared secret is all zeros (a low-order point), or a u it cannot take
            throw new IllegalArgumentException("X25519 refused the public key", e);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks X25519", e);
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("X25519 refused the public key", e);
        }
    }

    /** Zeroes a raw key copy. */
    public static void erase(byte @org.jspecify.annotations.Nullable [] raw) {
        if (raw != null) {
            Arrays.fill(raw, (byte) 0);
        }
    }
}
