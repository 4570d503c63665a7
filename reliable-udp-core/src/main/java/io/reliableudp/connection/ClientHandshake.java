package io.reliableudp.connection;

import io.reliableudp.DisconnectReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.internal.X25519;
import java.util.Arrays;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * The client half of the handshake (spec 3.2-3.6, 3.8), beside {@link HandshakeServer}: the request,
 * the answer to a challenge (the response, with this end's ephemeral key, its sealed static key and
 * the proof), the check of the server's accept or denial, and the session keys. It sends nothing and
 * keeps no time: the owner ({@link Connection}) transmits {@link #packet()}, resends it, and asks for a
 * fresh challenge when the cookie grows old ({@link #requestAgain()}).
 *
 * <p>The ephemeral key pair is made once per handshake and dropped when the handshake ends (connected
 * or failed); the transcript is erased by the split into session keys. Not thread-safe.
 */
final class ClientHandshake {

    /** What a datagram did to the handshake. */
    enum Answer {
        /** Malformed: count and ignore. */
        MALFORMED,
        /** Well-formed but not for this handshake now (another nonce, a late packet): count and ignore. */
        UNEXPECTED,
        /** An accept whose proof did not verify: count and ignore (a forgery cannot end the handshake). */
        DECRYPT_FAILED,
        /** A response is ready in {@link #packet()}: send it. */
        RESPOND,
        /** The handshake failed for good: {@link #failure()}, {@link #detail()}. */
        FAILED,
        /** The server accepted: {@link #keys()} (encrypted modes). */
        CONNECTED
    }

    private enum Step { REQUESTING, RESPONDING, DONE }

    private final ConnectionSettings settings;
    private final byte[] clientNonce;
    private final byte @Nullable [] preSharedKey;
    private final boolean identities;
    /** This end's static key for this handshake (read once: a replaced identity applies to the next one). */
    private final Credentials.@Nullable StaticKey identity;
    private X25519.@Nullable Pair ephemeral;
    private byte @Nullable [] ephemeralPublic;
    private final byte[] packet = new byte[Protocol.REQUEST_SIZE];
    private int packetLength;
    private Step step = Step.REQUESTING;
    private int salt;
    private @Nullable Transcript transcript;
    private byte @Nullable [] serverStatic;
    private @Nullable AuthenticatedPeer server;
    private byte @Nullable [][] keys;
    private @Nullable HandshakeFailure failure;
    /** The flags of the request and response: the mode, and {@link Protocol#FLAG_ANOTHER} when asked. */
    private final int flags;
    private String detail = "";
    private @Nullable DisconnectReason reason;

    ClientHandshake(ConnectionSettings settings, byte[] clientNonce, java.security.SecureRandom random, boolean another) {
        this.settings = settings;
        this.flags = settings.flags() | (another ? Protocol.FLAG_ANOTHER : 0);
        this.clientNonce = clientNonce.clone();
        this.preSharedKey = settings.preSharedKey();
        this.identities = settings.credentials().identities();
        this.identity = identities ? settings.credentials().current() : null;
        if (settings.encrypted()) {
            X25519.Pair pair = X25519.generate(random);
            ephemeral = pair;
            ephemeralPublic = pair.publicKey();
        }
        packetLength = Handshake.encodeRequest(settings.protocolId(), flags, clientNonce, packet);
    }

    /** The client nonce of this attempt (it matches the challenge and denial to the connection). */
    byte[] clientNonce() {
        return clientNonce;
    }

    /** The packet to send (and resend): the request, then the response. Valid until the next call. */
    byte[] packet() {
        return packet;
    }

    /** Length of {@link #packet()}. */
    int packetLength() {
        return packetLength;
    }

    /** The connection salt from the challenge (0 before one). */
    int salt() {
        return salt;
    }

    /** Whether a challenge was answered (the response is what is resent). */
    boolean responding() {
        return step == Step.RESPONDING;
    }

    /** The session keys {client-to-server, server-to-client} once connected in an encrypted mode. */
    byte @Nullable [][] keys() {
        return keys;
    }

    /** The server's allow-list entry once its static key was proven, else null. */
    @Nullable AuthenticatedPeer server() {
        return step == Step.DONE ? server : null;
    }

    /** Why the handshake failed ({@link Answer#FAILED}), for the counters. */
    @Nullable HandshakeFailure failure() {
        return failure;
    }

    /** The disconnect reason of a failure. */
    @Nullable DisconnectReason reason() {
        return reason;
    }

    /** The human-readable text of a failure, naming the problem. */
    String detail() {
        return detail;
    }

    /** Back to a fresh challenge (the cookie grew old): the request again, same nonce and ephemeral key. */
    void requestAgain() {
        step = Step.REQUESTING;
        salt = 0;
        Transcript t = transcript;
        if (t != null) {
            t.erase();
        }
        transcript = null;
        packetLength = Handshake.encodeRequest(settings.protocolId(), flags, clientNonce, packet);
    }

    /** A challenge: check it and write the response into {@link #packet()}. */
    Answer onChallenge(byte[] data, int offset, int length) {
        Handshake.Challenge challenge = Handshake.decodeChallenge(data, offset, length);
        if (challenge == null) {
            return Answer.MALFORMED;
        }
        if (step != Step.REQUESTING || !Arrays.equals(challenge.clientNonce(), clientNonce)) {
            return Answer.UNEXPECTED;
        }
        byte[] e = ephemeralPublic;
        Handshake.encodeResponse(settings.protocolId(), flags, challenge, e == null ? new byte[Protocol.KEY_BYTES] : e,
                packet);
        if (settings.encrypted()) {
            Transcript t = Transcript.ofResponse(packet, 0, preSharedKey);
            Credentials.StaticKey me = identity;
            if (identities && me != null) {
                byte[] s = challenge.serverStatic();
                String name = settings.credentials().nameOf(s);
                if (name == null) {
                    t.erase();
                    return fail(HandshakeFailure.UNKNOWN_PEER_KEY, DisconnectReason.DENIED, "unknown_peer_key: the server's key "
                            + Base64.getEncoder().encodeToString(s) + " is not on this node's allow-list");
                }
                try {
                    t.mixDh(X25519.agree(ephemeralPrivate(), s));                 // es
                    t.sealAndHash(me.publicKey(), packet, Handshake.RESPONSE_SEALED_STATIC);
                    t.mixDh(X25519.agree(me.privateKey(), s));                     // ss
                } catch (IllegalArgumentException bad) {
                    t.erase();
                    return fail(HandshakeFailure.WRONG_KEY, DisconnectReason.DENIED, "wrong_key: the server's static key is not a valid X25519 key");
                }
                serverStatic = s;
                server = new AuthenticatedPeer(name, s);
            } else {
                t.mixHash(packet, Handshake.RESPONSE_SEALED_STATIC, Protocol.SEALED_KEY_BYTES);
            }
            t.sealAndHash(new byte[0], packet, Handshake.RESPONSE_PROOF_OFFSET);
            Transcript old = transcript;
            if (old != null) {
                old.erase();
            }
            transcript = t;
        }
        packetLength = Protocol.RESPONSE_SIZE;
        salt = challenge.salt();
        step = Step.RESPONDING;
        return Answer.RESPOND;
    }

    /** An accept (encrypted modes): check the server's proof and derive the session keys. */
    Answer onAccept(byte[] data, int offset, int length) {
        Handshake.Accept accept = Handshake.decodeAccept(data, offset, length);
        if (accept == null) {
            return Answer.MALFORMED;
        }
        Transcript base = transcript;
        if (step != Step.RESPONDING || base == null || accept.salt() != salt) {
            return Answer.UNEXPECTED;
        }
        Transcript t = base.copy();
        try {
            byte[] es = accept.serverEphemeral();
            t.mixHash(es);
            t.mixKey(es.clone());
            t.mixDh(X25519.agree(ephemeralPrivate(), es));                         // ee
            Credentials.StaticKey me = identity;
            if (identities && me != null) {
                t.mixDh(X25519.agree(me.privateKey(), es));                        // se
            }
        } catch (IllegalArgumentException bad) {
            t.erase();
            return Answer.DECRYPT_FAILED;
        }
        if (t.openAndHash(data, offset + Handshake.ACCEPT_PROOF, Protocol.TAG_BYTES) == null) {
            t.erase();
            return Answer.DECRYPT_FAILED;
        }
        keys = t.split();
        base.erase();
        transcript = null;
        step = Step.DONE;
        forgetEphemeral();
        return Answer.CONNECTED;
    }

    /**
     * Plain mode: the server's first frame confirms the handshake.
     *
     * @return whether it did (false in encrypted modes, whose confirmation is the accept)
     */
    boolean confirmedByFrame() {
        if (step != Step.RESPONDING || settings.encrypted()) {
            return false;
        }
        step = Step.DONE;
        return true;
    }

    /** A denial: for this handshake (our nonce, not yet connected), it ends it. */
    Answer onDenied(byte[] data, int offset, int length) {
        Handshake.Denied denied = Handshake.decodeDenied(data, offset, length);
        if (denied == null) {
            return Answer.MALFORMED;
        }
        if (step == Step.DONE || !Arrays.equals(denied.clientNonce(), clientNonce)) {
            return Answer.UNEXPECTED;
        }
        DisconnectReason why = denied.reason() == Protocol.DENY_SERVER_FULL ? DisconnectReason.SERVER_FULL : DisconnectReason.DENIED;
        return fail(HandshakeFailure.DENIED_BY_PEER, why, Protocol.denyText(denied.reason()));
    }

    /** The handshake is over without a connection (timeout, close): drop the secrets. */
    void abandon() {
        Transcript t = transcript;
        if (t != null) {
            t.erase();
        }
        transcript = null;
        forgetEphemeral();
    }

    private Answer fail(HandshakeFailure why, DisconnectReason disconnect, String text) {
        failure = why;
        reason = disconnect;
        detail = text;
        abandon();
        step = Step.DONE;
        return Answer.FAILED;
    }

    private java.security.PrivateKey ephemeralPrivate() {
        X25519.Pair pair = ephemeral;
        if (pair == null) {
            throw new IllegalArgumentException("no ephemeral key (the handshake ended)");
        }
        return pair.privateKey();
    }

    /** Drops the ephemeral key pair: all the JDK allows (its key object cannot be wiped, see X25519). */
    private void forgetEphemeral() {
        ephemeral = null;
    }

    @Override
    public String toString() {
        return "ClientHandshake[" + step + ", salt=" + Integer.toHexString(salt) + "]";
    }
}
