package io.reliableudp.connection;

import io.reliableudp.internal.WireCodec;
import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * ChaCha20-Poly1305 (JDK) with one key and one reused {@link Cipher}; the 96-bit nonce is four zero
 * bytes followed by a 64-bit counter that the caller never repeats for the same key when sealing.
 * Not thread-safe. {@link #toString()} never shows the key.
 */
final class Aead {

    private static final String ALGORITHM = "ChaCha20-Poly1305";

    /** Sees every (key, counter) pair a seal uses: a test hook (the key-and-nonce-reuse property), null in production. */
    interface SealObserver {
        void sealed(byte[] key, long counter);
    }

    /** The test hook; one volatile read per seal when unset. */
    static volatile @org.jspecify.annotations.Nullable SealObserver observer;

    private final Cipher cipher;
    private final SecretKeySpec key;
    private final byte[] nonce = new byte[12];

    /** A sealer/opener for a 32-byte key (copied). */
    public Aead(byte[] key32) {
        if (key32.length != 32) {
            throw new IllegalArgumentException("key must be 32 bytes, was " + key32.length);
        }
        this.key = new SecretKeySpec(key32, "ChaCha20");
        try {
            this.cipher = Cipher.getInstance(ALGORITHM);
        } catch (NoSuchAlgorithmException | NoSuchPaddingException e) {
            throw new IllegalStateException("the JDK lacks " + ALGORITHM, e);
        }
    }

    /**
     * Seals {@code in[inOff, inOff+inLen)} into {@code out} at {@code outOff} (ciphertext then tag),
     * authenticating {@code aad1} and {@code aad2} too.
     *
     * @return bytes written: {@code inLen + 16}
     */
    public int seal(long counter, byte[] aad1, int aad1Off, int aad1Len, byte[] aad2,
                    byte[] in, int inOff, int inLen, byte[] out, int outOff) {
        SealObserver o = observer;
        if (o != null) {
            o.sealed(key.getEncoded(), counter);
        }
        try {
            init(Cipher.ENCRYPT_MODE, counter);
            cipher.updateAAD(aad1, aad1Off, aad1Len);
            cipher.updateAAD(aad2);
            return cipher.doFinal(in, inOff, inLen, out, outOff);
        } catch (GeneralSecurityException e) {
            // only a programming error (short buffer, reused nonce) can get here
            throw new IllegalStateException("sealing failed", e);
        }
    }

    /**
     * Opens {@code in[inOff, inOff+inLen)} (ciphertext then tag) into {@code out} at {@code outOff}.
     *
     * @return plaintext length, or -1 when the tag does not verify (tampered, wrong key, wrong nonce)
     */
    public int open(long counter, byte[] aad1, int aad1Off, int aad1Len, byte[] aad2,
                    byte[] in, int inOff, int inLen, byte[] out, int outOff) {
        if (inLen < Protocol.TAG_BYTES) {
            return -1;
        }
        try {
            init(Cipher.DECRYPT_MODE, counter);
            cipher.updateAAD(aad1, aad1Off, aad1Len);
            cipher.updateAAD(aad2);
            return cipher.doFinal(in, inOff, inLen, out, outOff);
        } catch (AEADBadTagException e) {
            return -1;
        } catch (ShortBufferException e) {
            return -1;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("opening failed", e);
        }
    }

    private void init(int mode, long counter) throws InvalidKeyException, InvalidAlgorithmParameterException {
        WireCodec.putLongBE(nonce, 4, counter);
        cipher.init(mode, key, new IvParameterSpec(nonce));
    }

    @Override
    public String toString() {
        return "Aead[ChaCha20-Poly1305, key=[redacted]]";
    }
}
