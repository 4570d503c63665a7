package io.reliableudp.connection;

import io.reliableudp.internal.WireCodec;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Encoders and decoders of the four handshake packets (byte tables in {@code docs/connection.md}).
 * Decoders never throw for any input: they return null for anything malformed.
 */
final class Handshake {

    private Handshake() {
    }

    /** A decoded request. {@code version} may differ from ours: the caller denies then. */
    public record Request(int version, long protocolId, int flags, byte[] clientNonce) {
    }

    /** A decoded challenge. */
    public record Challenge(byte[] clientNonce, byte[] serverNonce, int salt, byte[] cookie) {
    }

    /** A decoded response. {@code proof} is zeros in plain mode. */
    public record Response(long protocolId, int flags, byte[] clientNonce, byte[] serverNonce, int salt,
                           byte[] cookie, byte[] proof) {
    }

    /** A decoded denial. */
    public record Denied(byte[] clientNonce, int reason) {
    }

    /** Writes a request (exactly {@link Protocol#REQUEST_SIZE} bytes, zero padded) into {@code out}. */
    public static int encodeRequest(long protocolId, int flags, byte[] clientNonce, byte[] out) {
        Arrays.fill(out, 0, Protocol.REQUEST_SIZE, (byte) 0);
        out[0] = Protocol.REQUEST;
        WireCodec.putIntBE(out, 1, Protocol.MAGIC);
        out[5] = (byte) Protocol.VERSION;
        WireCodec.putLongBE(out, 6, protocolId);
        out[14] = (byte) flags;
        System.arraycopy(clientNonce, 0, out, 15, Protocol.NONCE_BYTES);
        return Protocol.REQUEST_SIZE;
    }

    /**
     * Decodes a request. A request of our version must be exactly {@link Protocol#REQUEST_SIZE} long
     * (the padding is what makes answering it safe); one of another version needs only its header.
     */
    public static @Nullable Request decodeRequest(byte[] b, int off, int len) {
        if (len < 31 || b[off] != Protocol.REQUEST || WireCodec.getIntBE(b, off + 1) != Protocol.MAGIC) {
            return null;
        }
        int version = b[off + 5] & 0xff;
        if (version == Protocol.VERSION && len != Protocol.REQUEST_SIZE) {
            return null;
        }
        return new Request(version, WireCodec.getLongBE(b, off + 6), b[off + 14] & 0xff,
                Arrays.copyOfRange(b, off + 15, off + 31));
    }

    /** Writes a challenge into {@code out}. */
    public static int encodeChallenge(byte[] clientNonce, byte[] serverNonce, int salt, byte[] cookie, byte[] out) {
        out[0] = Protocol.CHALLENGE;
        out[1] = (byte) Protocol.VERSION;
        System.arraycopy(clientNonce, 0, out, 2, Protocol.NONCE_BYTES);
        System.arraycopy(serverNonce, 0, out, 18, Protocol.NONCE_BYTES);
        WireCodec.putIntBE(out, 34, salt);
        System.arraycopy(cookie, 0, out, 38, Protocol.COOKIE_SIZE);
        return Protocol.CHALLENGE_SIZE;
    }

    /** Decodes a challenge. */
    public static @Nullable Challenge decodeChallenge(byte[] b, int off, int len) {
        if (len != Protocol.CHALLENGE_SIZE || b[off] != Protocol.CHALLENGE || (b[off + 1] & 0xff) != Protocol.VERSION) {
            return null;
        }
        return new Challenge(Arrays.copyOfRange(b, off + 2, off + 18), Arrays.copyOfRange(b, off + 18, off + 34),
                WireCodec.getIntBE(b, off + 34), Arrays.copyOfRange(b, off + 38, off + 38 + Protocol.COOKIE_SIZE));
    }

    /** Length of the part of a response covered by the proof. */
    public static final int RESPONSE_PROOF_OFFSET = Protocol.RESPONSE_SIZE - Protocol.TAG_BYTES;

    /**
     * Writes a response into {@code out}; in pre-shared-key mode {@code keys} adds the proof over
     * every byte before it, else the proof is zeros.
     */
    public static int encodeResponse(long protocolId, int flags, Challenge challenge, @Nullable Keys keys, byte[] out) {
        out[0] = Protocol.RESPONSE;
        WireCodec.putIntBE(out, 1, Protocol.MAGIC);
        out[5] = (byte) Protocol.VERSION;
        WireCodec.putLongBE(out, 6, protocolId);
        out[14] = (byte) flags;
        System.arraycopy(challenge.clientNonce(), 0, out, 15, Protocol.NONCE_BYTES);
        System.arraycopy(challenge.serverNonce(), 0, out, 31, Protocol.NONCE_BYTES);
        WireCodec.putIntBE(out, 47, challenge.salt());
        System.arraycopy(challenge.cookie(), 0, out, 51, Protocol.COOKIE_SIZE);
        if (keys == null) {
            Arrays.fill(out, RESPONSE_PROOF_OFFSET, Protocol.RESPONSE_SIZE, (byte) 0);
        } else {
            byte[] proof = keys.proof(out, 0, RESPONSE_PROOF_OFFSET);
            System.arraycopy(proof, 0, out, RESPONSE_PROOF_OFFSET, Protocol.TAG_BYTES);
        }
        return Protocol.RESPONSE_SIZE;
    }

    /** Decodes a response (any version byte but ours is refused: the request was checked already). */
    public static @Nullable Response decodeResponse(byte[] b, int off, int len) {
        if (len != Protocol.RESPONSE_SIZE || b[off] != Protocol.RESPONSE
                || WireCodec.getIntBE(b, off + 1) != Protocol.MAGIC || (b[off + 5] & 0xff) != Protocol.VERSION) {
            return null;
        }
        return new Response(WireCodec.getLongBE(b, off + 6), b[off + 14] & 0xff,
                Arrays.copyOfRange(b, off + 15, off + 31), Arrays.copyOfRange(b, off + 31, off + 47),
                WireCodec.getIntBE(b, off + 47), Arrays.copyOfRange(b, off + 51, off + 51 + Protocol.COOKIE_SIZE),
                Arrays.copyOfRange(b, off + RESPONSE_PROOF_OFFSET, off + Protocol.RESPONSE_SIZE));
    }

    /** Writes a denial into {@code out}. */
    public static int encodeDenied(byte[] clientNonce, int reason, byte[] out) {
        out[0] = Protocol.DENIED;
        out[1] = (byte) Protocol.VERSION;
        System.arraycopy(clientNonce, 0, out, 2, Protocol.NONCE_BYTES);
        out[18] = (byte) reason;
        return Protocol.DENIED_SIZE;
    }

    /** Decodes a denial (any version: a server of another version denies us in our format). */
    public static @Nullable Denied decodeDenied(byte[] b, int off, int len) {
        if (len != Protocol.DENIED_SIZE || b[off] != Protocol.DENIED) {
            return null;
        }
        return new Denied(Arrays.copyOfRange(b, off + 2, off + 18), b[off + 18] & 0xff);
    }
}
