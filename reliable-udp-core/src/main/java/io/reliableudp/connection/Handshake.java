package io.reliableudp.connection;

import io.reliableudp.internal.WireCodec;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Encoders and decoders of the five handshake packets (byte tables in {@code docs/spec.md} 3.2-3.6).
 * Decoders never throw for any input: they return null for anything malformed.
 */
final class Handshake {

    private Handshake() {
    }

    /** A decoded request. {@code version} may differ from ours: the caller denies then. */
    public record Request(int version, long protocolId, int flags, byte[] clientNonce) {
    }

    /** A decoded challenge; {@code serverStatic} is zeros when the server proves no identity. */
    public record Challenge(byte[] clientNonce, byte[] serverNonce, int salt, byte[] cookie, byte[] serverStatic) {
    }

    /**
     * A decoded response. {@code clientEphemeral}, {@code sealedStatic} and {@code proof} are zeros in
     * plain mode; {@code sealedStatic} is zeros when the client proves no identity.
     */
    public record Response(long protocolId, int flags, byte[] clientNonce, byte[] serverNonce, int salt,
                           byte[] cookie, byte[] serverStatic, byte[] clientEphemeral, byte[] sealedStatic, byte[] proof) {
    }

    /** A decoded accept. */
    public record Accept(int salt, byte[] serverEphemeral, byte[] proof) {
    }

    /** A decoded denial. */
    public record Denied(byte[] clientNonce, int reason) {
    }

    // offsets in a response
    static final int RESPONSE_COOKIE = 51;
    /** Where the server's static key is in a response; the bytes before it and it are the response's prologue. */
    static final int RESPONSE_SERVER_STATIC = RESPONSE_COOKIE + Protocol.COOKIE_SIZE;
    static final int RESPONSE_EPHEMERAL = RESPONSE_SERVER_STATIC + Protocol.KEY_BYTES;
    static final int RESPONSE_SEALED_STATIC = RESPONSE_EPHEMERAL + Protocol.KEY_BYTES;
    /** Where the proof starts: every byte before it is covered by it (through the transcript). */
    static final int RESPONSE_PROOF_OFFSET = RESPONSE_SEALED_STATIC + Protocol.SEALED_KEY_BYTES;
    // offsets in an accept
    static final int ACCEPT_EPHEMERAL = 6;
    static final int ACCEPT_PROOF = ACCEPT_EPHEMERAL + Protocol.KEY_BYTES;

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
    public static int encodeChallenge(byte[] clientNonce, byte[] serverNonce, int salt, byte[] cookie, byte[] serverStatic,
                                      byte[] out) {
        out[0] = Protocol.CHALLENGE;
        out[1] = (byte) Protocol.VERSION;
        System.arraycopy(clientNonce, 0, out, 2, Protocol.NONCE_BYTES);
        System.arraycopy(serverNonce, 0, out, 18, Protocol.NONCE_BYTES);
        WireCodec.putIntBE(out, 34, salt);
        System.arraycopy(cookie, 0, out, 38, Protocol.COOKIE_SIZE);
        System.arraycopy(serverStatic, 0, out, 70, Protocol.KEY_BYTES);
        return Protocol.CHALLENGE_SIZE;
    }

    /** Decodes a challenge. */
    public static @Nullable Challenge decodeChallenge(byte[] b, int off, int len) {
        if (len != Protocol.CHALLENGE_SIZE || b[off] != Protocol.CHALLENGE || (b[off + 1] & 0xff) != Protocol.VERSION) {
            return null;
        }
        return new Challenge(Arrays.copyOfRange(b, off + 2, off + 18), Arrays.copyOfRange(b, off + 18, off + 34),
                WireCodec.getIntBE(b, off + 34), Arrays.copyOfRange(b, off + 38, off + 70),
                Arrays.copyOfRange(b, off + 70, off + 70 + Protocol.KEY_BYTES));
    }

    /**
     * Writes the clear part of a response into {@code out}: every field up to the client's ephemeral
     * key; the sealed static key and the proof are left zero for the caller ({@link ClientHandshake})
     * to fill in (they are zeros in plain mode).
     */
    public static int encodeResponse(long protocolId, int flags, Challenge challenge, byte[] clientEphemeral, byte[] out) {
        Arrays.fill(out, 0, Protocol.RESPONSE_SIZE, (byte) 0);
        out[0] = Protocol.RESPONSE;
        WireCodec.putIntBE(out, 1, Protocol.MAGIC);
        out[5] = (byte) Protocol.VERSION;
        WireCodec.putLongBE(out, 6, protocolId);
        out[14] = (byte) flags;
        System.arraycopy(challenge.clientNonce(), 0, out, 15, Protocol.NONCE_BYTES);
        System.arraycopy(challenge.serverNonce(), 0, out, 31, Protocol.NONCE_BYTES);
        WireCodec.putIntBE(out, 47, challenge.salt());
        System.arraycopy(challenge.cookie(), 0, out, RESPONSE_COOKIE, Protocol.COOKIE_SIZE);
        System.arraycopy(challenge.serverStatic(), 0, out, RESPONSE_SERVER_STATIC, Protocol.KEY_BYTES);
        System.arraycopy(clientEphemeral, 0, out, RESPONSE_EPHEMERAL, Protocol.KEY_BYTES);
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
                WireCodec.getIntBE(b, off + 47),
                Arrays.copyOfRange(b, off + RESPONSE_COOKIE, off + RESPONSE_SERVER_STATIC),
                Arrays.copyOfRange(b, off + RESPONSE_SERVER_STATIC, off + RESPONSE_EPHEMERAL),
                Arrays.copyOfRange(b, off + RESPONSE_EPHEMERAL, off + RESPONSE_SEALED_STATIC),
                Arrays.copyOfRange(b, off + RESPONSE_SEALED_STATIC, off + RESPONSE_PROOF_OFFSET),
                Arrays.copyOfRange(b, off + RESPONSE_PROOF_OFFSET, off + Protocol.RESPONSE_SIZE));
    }

    /** Writes the clear part of an accept (type, version, salt, server ephemeral key); the proof is the caller's. */
    public static int encodeAccept(int salt, byte[] serverEphemeral, byte[] out) {
        out[0] = Protocol.ACCEPT;
        out[1] = (byte) Protocol.VERSION;
        WireCodec.putIntBE(out, 2, salt);
        System.arraycopy(serverEphemeral, 0, out, ACCEPT_EPHEMERAL, Protocol.KEY_BYTES);
        Arrays.fill(out, ACCEPT_PROOF, Protocol.ACCEPT_SIZE, (byte) 0);
        return Protocol.ACCEPT_SIZE;
    }

    /** Decodes an accept. */
    public static @Nullable Accept decodeAccept(byte[] b, int off, int len) {
        if (len != Protocol.ACCEPT_SIZE || b[off] != Protocol.ACCEPT || (b[off + 1] & 0xff) != Protocol.VERSION) {
            return null;
        }
        return new Accept(WireCodec.getIntBE(b, off + 2), Arrays.copyOfRange(b, off + ACCEPT_EPHEMERAL, off + ACCEPT_PROOF),
                Arrays.copyOfRange(b, off + ACCEPT_PROOF, off + Protocol.ACCEPT_SIZE));
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
