package io.reliableudp.connection;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The frame keys of one direction of a connection, updated every {@code 2^epochBits} frames without
 * a message (spec 3.8, "Key update"): the frame of sequence {@code s} is sealed with key
 * {@code K(s >>> epochBits)}, where {@code K(0)} is the session key of the handshake and
 * {@code K(n+1) = HKDF(K(n), "reliable-udp v4 key update")} (first output). Both ends know from the
 * sequence which key a frame needs, so an update costs no round trip and no pause; the update is one
 * way, so a key taken from a live process opens nothing sealed before its epoch once the older keys
 * are gone (the key of the previous epoch is kept for frames reordered across the boundary, then
 * dropped). The receiver takes at most the next epoch, and moves to it only once a frame of it
 * authenticated: a forged sequence far ahead costs one HMAC and moves nothing.
 *
 * <p>The same idea as QUIC's key update (RFC 9001, 6) with the epoch in the sequence instead of a
 * key-phase bit. Not thread-safe; never shows a key.
 */
final class FrameKeys {

    /** A new key every 2^20 frames of a direction (about a million; at 100,000 frames/s, every 10 s). */
    static final int EPOCH_BITS = 20;

    private static final byte[] LABEL = "reliable-udp v4 key update".getBytes(StandardCharsets.US_ASCII);

    private final int epochBits;
    private byte[] key;
    private long epoch;
    private Aead current;
    private @Nullable Aead previous;
    /** The next epoch's key and cipher, made when a frame of it arrives, kept until one authenticates. */
    private byte @Nullable [] nextKey;
    private @Nullable Aead next;
    private long updates;

    /** {@link #EPOCH_BITS}, lowered by tests that watch keys change within a few frames. */
    static volatile int epochBitsOfNewConnections = EPOCH_BITS;

    /** The keys of a direction from its session key (copied; the caller zeroes its array). */
    FrameKeys(byte[] sessionKey) {
        this(sessionKey, epochBitsOfNewConnections);
    }

    FrameKeys(byte[] sessionKey, int epochBits) {
        this.epochBits = epochBits;
        this.key = sessionKey.clone();
        this.current = new Aead(key);
    }

    /** The next key in the chain: {@code HKDF(k, label)}'s first output. */
    static byte[] update(byte[] k) {
        byte[][] out = Transcript.hkdf(k, LABEL);
        Arrays.fill(out[1], (byte) 0);
        return out[0];
    }

    /** Sender: the cipher for the frame of this sequence (sequences only grow, so epochs move one at a time). */
    Aead sealer(long sequence) {
        long e = sequence >>> epochBits;
        while (epoch < e) {
            advance(update(key));
        }
        return current;
    }

    /**
     * Receiver: the cipher that opens the frame of this sequence, or null when its epoch is neither the
     * current one, the previous one, nor the next (a forgery, or a peer 2^epochBits frames ahead).
     */
    @Nullable Aead opener(long sequence) {
        long e = sequence >>> epochBits;
        if (e == epoch) {
            return current;
        }
        if (e == epoch - 1) {
            return previous;
        }
        if (e == epoch + 1) {
            if (next == null) {
                byte[] k = update(key);
                nextKey = k;
                next = new Aead(k);
            }
            return next;
        }
        return null;
    }

    /** Receiver: the frame of this sequence authenticated; a frame of the next epoch moves the keys on. */
    void opened(long sequence) {
        long e = sequence >>> epochBits;
        if (e == epoch + 1 && nextKey != null) {
            byte[] k = nextKey;
            Aead n = next;
            nextKey = null;
            next = null;
            advance(k, n);
        } else if (e == epoch && previous != null && (sequence & ((1L << epochBits) - 1)) >= ReplayWindow.SIZE) {
            previous = null; // the window no longer admits a frame of the previous epoch
        }
    }

    private void advance(byte[] k) {
        advance(k, new Aead(k));
    }

    private void advance(byte[] k, @Nullable Aead cipher) {
        Arrays.fill(key, (byte) 0);
        key = k;
        previous = current;
        current = cipher == null ? new Aead(k) : cipher;
        epoch++;
        updates++;
    }

    /** Key updates so far (statistics, tests). */
    long updates() {
        return updates;
    }

    @Override
    public String toString() {
        return "FrameKeys[epoch=" + epoch + ", key=[redacted]]";
    }
}
