package io.reliableudp.connection;

import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.internal.X25519;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import org.jspecify.annotations.Nullable;

/**
 * The server half of the handshake, before any per-connection state exists. Requests are answered
 * with a challenge whose cookie carries everything needed later, so an unverified address costs no
 * memory; responses are checked (cookie, age, key proof) before a connection is made.
 * Every answer is smaller than the datagram it answers (anti-amplification) and goes to the
 * datagram's source address (the caller's job: it passes {@code from}).
 * Not thread-safe: the receive loop owns it.
 *
 * <p>The connection layer's contract with the transport; not user API.
 */
public final class HandshakeServer {

    /** Room an answer needs: pass an {@code out} array at least this long. */
    public static final int REPLY_BYTES = Protocol.REQUEST_SIZE;

    /**
     * Counts a repeat that confirms no connection (its cookie made one that has ended, or that another
     * address holds): a recorded response sent again. The acceptor calls it.
     */
    public void replayed() {
        reporter.drop(DropReason.REPLAYED);
        reporter.failure(HandshakeFailure.REPLAYED_RESPONSE);
    }

    /** Counts what the handshake refused. */
    public interface Reporter {
        /** A datagram was dropped. */
        void drop(DropReason reason);

        /** A handshake failed. */
        void failure(HandshakeFailure failure);
    }

    /**
     * A response that passed every check: what {@link Connection#server} needs to make the connection.
     * Opaque to the transport except for the values that tell a repeated or an older handshake apart.
     */
    public static final class Verified {
        private final Handshake.Response response;
        private final byte @Nullable [][] keys;
        private final byte @Nullable [] accept;
        private final long cookieTime;
        private final boolean repeat;
        private final @Nullable AuthenticatedPeer client;

        Verified(Handshake.Response response, byte @Nullable [][] keys, byte @Nullable [] accept, long cookieTime,
                 boolean repeat, @Nullable AuthenticatedPeer client) {
            this.response = response;
            this.keys = keys;
            this.accept = accept;
            this.cookieTime = cookieTime;
            this.repeat = repeat;
            this.client = client;
        }

        Handshake.Response response() {
            return response;
        }

        /** The session keys {client-to-server, server-to-client} (encrypted modes; null for a repeat). */
        byte @Nullable [][] keys() {
            return keys;
        }

        /** The accept to send (encrypted modes; null for a repeat). */
        byte @Nullable [] accept() {
            return accept;
        }

        /**
         * Whether this response's cookie already made a connection: it can only confirm that connection
         * again (the client did not hear our accept), never make one (a recorded response sent again).
         * No key was derived for it.
         */
        public boolean repeat() {
            return repeat;
        }

        /** The client's allow-list entry (identities), else null. */
        public @Nullable AuthenticatedPeer client() {
            return client;
        }

        /** The connection salt the client answered with. */
        public int salt() {
            return response.salt();
        }

        /**
         * Whether the client keeps another connection to this node open from the same address (request
         * flag bit 2): then this handshake is not a restart of that client.
         */
        public boolean another() {
            return (response.flags() & Protocol.FLAG_ANOTHER) != 0;
        }

        /** When the cookie was issued (server clock, ms): a newer handshake from the same address means a restart. */
        public long cookieTime() {
            return cookieTime;
        }

        @Override
        public String toString() {
            return "Verified[salt=" + Integer.toHexString(response.salt()) + ", cookieTime=" + cookieTime + ", repeat=" + repeat + "]";
        }
    }

    /** Whether a datagram of this type (its first byte) is a connection request. */
    public static boolean isRequest(byte type) {
        return type == Protocol.REQUEST;
    }

    /** Whether a datagram of this type (its first byte) is a handshake response. */
    public static boolean isResponse(byte type) {
        return type == Protocol.RESPONSE;
    }

    /**
     * Whether {@code data[offset, offset+length)} has the shape of a request or a response, as their
     * decoders check it: the magic after the type byte, and the exact length for our version (a request
     * of another version needs only its header, to get its denial). Cheap (no allocation, no crypto),
     * for dropping garbage before any handshake work.
     */
    public static boolean hasHandshakeShape(byte[] data, int offset, int length) {
        if (length < 31) {
            return false;
        }
        int magic = (data[offset + 1] & 0xff) << 24 | (data[offset + 2] & 0xff) << 16 | (data[offset + 3] & 0xff) << 8
                | data[offset + 4] & 0xff;
        if (magic != Protocol.MAGIC) {
            return false;
        }
        boolean ours = (data[offset + 5] & 0xff) == Protocol.VERSION;
        return switch (data[offset]) {
            case Protocol.REQUEST -> !ours || length == Protocol.REQUEST_SIZE;
            case Protocol.RESPONSE -> ours && length == Protocol.RESPONSE_SIZE;
            default -> false;
        };
    }

    private final ConnectionSettings settings;
    private @Nullable CookieJar cookies;
    private final SecureRandom random;
    private final Reporter reporter;
    private final byte[] serverNonce = new byte[Protocol.NONCE_BYTES];
    private final byte[] cookie = new byte[Protocol.COOKIE_SIZE];

    /** A responder with a fresh cookie key. */
    public HandshakeServer(ConnectionSettings settings, SecureRandom random, Reporter reporter) {
        this.settings = settings;
        this.random = random;
        this.reporter = reporter;
    }

    /** The cookie key is drawn on first use: a client-only node never needs one. */
    private CookieJar cookies() {
        CookieJar jar = cookies;
        if (jar == null) {
            jar = new CookieJar(settings.protocolId(), random);
            cookies = jar;
        }
        return jar;
    }

    /**
     * Answers a request.
     *
     * @param accepting whether this node takes connections at all
     * @param hasRoom whether a slot is free now (checked again on the response)
     * @return bytes of the answer written into {@code out} (a challenge or a denial), 0 for no answer
     */
    public int onRequest(InetSocketAddress from, byte[] data, int offset, int length, long nowMillis,
                         boolean accepting, boolean hasRoom, byte[] out) {
        Handshake.Request request = Handshake.decodeRequest(data, offset, length);
        if (request == null) {
            reporter.drop(DropReason.MALFORMED);
            return 0;
        }
        int deny = 0;
        if (request.version() != Protocol.VERSION || request.protocolId() != settings.protocolId()) {
            reporter.drop(DropReason.WRONG_PROTOCOL);
            reporter.failure(HandshakeFailure.WRONG_PROTOCOL);
            deny = Protocol.DENY_WRONG_PROTOCOL;
        } else if ((request.flags() & ~Protocol.FLAG_ANOTHER) != settings.flags()) {
            reporter.failure(HandshakeFailure.MODE_MISMATCH);
            deny = Protocol.DENY_MODE_MISMATCH;
        } else if (!accepting) {
            reporter.failure(HandshakeFailure.NOT_ACCEPTING);
            deny = Protocol.DENY_NOT_ACCEPTING;
        } else if (!hasRoom) {
            reporter.failure(HandshakeFailure.SERVER_FULL);
            deny = Protocol.DENY_SERVER_FULL;
        }
        if (deny != 0) {
            return length >= Protocol.DENIED_SIZE ? Handshake.encodeDenied(request.clientNonce(), deny, out) : 0;
        }
        random.nextBytes(serverNonce);
        int salt = random.nextInt();
        if (salt == 0) {
            salt = 1; // 0 means "no salt yet" on a client
        }
        cookies().seal(nowMillis, request.flags(), request.clientNonce(), serverNonce, salt, from, cookie, 0);
        Credentials.StaticKey me = settings.credentials().current();
        int n = Handshake.encodeChallenge(request.clientNonce(), serverNonce, salt, cookie,
                me == null ? NO_KEY : me.publicKey(), out);
        assert n <= length : "challenge larger than request";
        return n;
    }

    private static final byte[] NO_KEY = new byte[Protocol.KEY_BYTES];

    /**
     * Checks a response: format, protocol, mode, cookie (sealed by us, for this address and these
     * values, not expired), whether the cookie made a connection already (then it is a {@link
     * Verified#repeat() repeat}, no crypto), and in the encrypted modes the client's proof (of the
     * pre-shared key, of its static key) and its key against the allow-list; then it makes this end's
     * ephemeral key, the accept and the session keys (spec 3.8). On a wrong or unknown key a denial is
     * written into {@code out} and its length stored in {@link #lastReplyLength()}.
     *
     * @return the verified response, or null (counted) when it must not create a connection
     */
    public @Nullable Verified onResponse(InetSocketAddress from, byte[] data, int offset, int length, long nowMillis, byte[] out) {
        lastReplyLength = 0;
        Handshake.Response response = Handshake.decodeResponse(data, offset, length);
        if (response == null) {
            reporter.drop(DropReason.MALFORMED);
            return null;
        }
        if (response.protocolId() != settings.protocolId()) {
            reporter.drop(DropReason.WRONG_PROTOCOL);
            reporter.failure(HandshakeFailure.WRONG_PROTOCOL);
            return null;
        }
        if ((response.flags() & ~Protocol.FLAG_ANOTHER) != settings.flags()) {
            reporter.drop(DropReason.UNEXPECTED);
            reporter.failure(HandshakeFailure.MODE_MISMATCH);
            return null;
        }
        if (cookies().certainlyExpired(response.cookie(), nowMillis, Protocol.COOKIE_LIFETIME_MILLIS)) {
            // a response that waited too long (an overloaded server's buffer, a client past the lifetime): no crypto
            staleResponses++;
            reporter.drop(DropReason.BAD_COOKIE);
            reporter.failure(HandshakeFailure.BAD_COOKIE);
            return null;
        }
        long issued = cookies().open(response.cookie(), response.flags(), response.clientNonce(), response.serverNonce(),
                response.salt(), from);
        if (issued < 0 || nowMillis - issued > Protocol.COOKIE_LIFETIME_MILLIS || issued > nowMillis) {
            reporter.drop(DropReason.BAD_COOKIE);
            reporter.failure(HandshakeFailure.BAD_COOKIE);
            return null;
        }
        if (cookies().used(response.cookie())) {
            return new Verified(response, null, null, issued, true, null); // the acceptor tells a repeat from a replay
        }
        byte[][] keys = null;
        byte[] accept = null;
        AuthenticatedPeer client = null;
        if (settings.encrypted()) {
            Transcript t = Transcript.ofResponse(data, offset, settings.preSharedKey());
            byte[] clientStatic = null;
            int deny = 0;
            try {
                Credentials credentials = settings.credentials();
                if (credentials.identities()) {
                    Credentials.StaticKey me = credentials.byPublicKey(response.serverStatic());
                    if (me == null) {
                        deny = Protocol.DENY_WRONG_KEY; // answered to a key this node no longer has
                    } else {
                        t.mixDh(X25519.agree(me.privateKey(), response.clientEphemeral()));       // es
                        clientStatic = t.openAndHash(data, offset + Handshake.RESPONSE_SEALED_STATIC, Protocol.SEALED_KEY_BYTES);
                        if (clientStatic == null) {
                            deny = Protocol.DENY_WRONG_KEY;
                        } else {
                            t.mixDh(X25519.agree(me.privateKey(), clientStatic));                 // ss
                        }
                    }
                } else {
                    t.mixHash(data, offset + Handshake.RESPONSE_SEALED_STATIC, Protocol.SEALED_KEY_BYTES);
                }
                if (deny == 0 && t.openAndHash(data, offset + Handshake.RESPONSE_PROOF_OFFSET, Protocol.TAG_BYTES) == null) {
                    deny = Protocol.DENY_WRONG_KEY;
                }
                if (deny == 0 && clientStatic != null) {
                    String name = credentials.nameOf(clientStatic);
                    if (name == null) {
                        deny = Protocol.DENY_UNKNOWN_PEER_KEY; // proven, but not admitted
                    } else {
                        client = new AuthenticatedPeer(name, clientStatic);
                    }
                }
                if (deny == 0) {
                    X25519.Pair ephemeral = X25519.generate(random);
                    byte[] e = ephemeral.publicKey();
                    accept = new byte[Protocol.ACCEPT_SIZE];
                    Handshake.encodeAccept(response.salt(), e, accept);
                    t.mixHash(e);
                    t.mixKey(e.clone());
                    t.mixDh(X25519.agree(ephemeral.privateKey(), response.clientEphemeral()));     // ee
                    if (clientStatic != null) {
                        t.mixDh(X25519.agree(ephemeral.privateKey(), clientStatic));              // se
                    }
                    t.sealAndHash(EMPTY, accept, Handshake.ACCEPT_PROOF);
                    keys = t.split();
                    // the ephemeral key pair goes out of scope here: all the erasing the JDK allows (see X25519)
                }
            } catch (IllegalArgumentException lowOrder) {
                deny = Protocol.DENY_WRONG_KEY; // an ephemeral or static key X25519 refuses
            } finally {
                t.erase();
            }
            if (deny != 0) {
                boolean unknown = deny == Protocol.DENY_UNKNOWN_PEER_KEY;
                reporter.drop(unknown ? DropReason.UNEXPECTED : DropReason.WRONG_KEY);
                reporter.failure(unknown ? HandshakeFailure.UNKNOWN_PEER_KEY : HandshakeFailure.WRONG_KEY);
                lastReplyLength = Handshake.encodeDenied(response.clientNonce(), deny, out);
                return null;
            }
        }
        cookies().markUsed(response.cookie());
        return new Verified(response, keys, accept, issued, false, client);
    }

    private static final byte[] EMPTY = new byte[0];

    private int lastReplyLength;
    private long staleResponses;

    /** Responses dropped as expired from the cookie's plaintext counter alone, before any crypto (a part of the {@code bad_cookie} drops). */
    public long staleResponses() {
        return staleResponses;
    }

    /**
     * Refuses a verified response because this node does not accept connections or has no room:
     * counts the failure and writes the denial into {@code out}.
     *
     * @return bytes of the denial in {@code out}
     */
    public int refuse(Verified verified, boolean accepting, byte[] out) {
        reporter.failure(accepting ? HandshakeFailure.SERVER_FULL : HandshakeFailure.NOT_ACCEPTING);
        return Handshake.encodeDenied(verified.response().clientNonce(),
                accepting ? Protocol.DENY_SERVER_FULL : Protocol.DENY_NOT_ACCEPTING, out);
    }

    /** Length of the answer {@link #onResponse} wrote into {@code out} (0 = none). */
    public int lastReplyLength() {
        return lastReplyLength;
    }

    @Override
    public String toString() {
        return "HandshakeServer[" + settings + "]";
    }
}
