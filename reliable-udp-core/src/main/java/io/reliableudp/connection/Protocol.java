package io.reliableudp.connection;

/**
 * Wire constants of the connection layer: packet types, sizes and offsets. All integers big-endian,
 * read and written with {@link io.reliableudp.internal.WireCodec}.
 * The byte tables are in {@code docs/connection.md}.
 */
final class Protocol {

    /** Version of this wire format; a request with another version is denied. */
    public static final int VERSION = 4;

    /** "RUDP": the magic that starts request and response packets. */
    public static final int MAGIC = 0x52554450;

    /** Client to server: please connect (padded to {@link #REQUEST_SIZE}). */
    public static final byte REQUEST = 1;
    /** Server to client: echo this sealed cookie. */
    public static final byte CHALLENGE = 2;
    /** Client to server: the echoed cookie, the client's ephemeral key, its sealed static key, a proof. */
    public static final byte RESPONSE = 3;
    /** Server to client: refused, with a reason code. */
    public static final byte DENIED = 4;
    /** Either way: nothing to say, still here. */
    public static final byte KEEPALIVE = 5;
    /** Either way: message-layer bytes. */
    public static final byte PAYLOAD = 6;
    /** Either way: the connection is over. */
    public static final byte DISCONNECT = 7;
    /** Server to client, encrypted modes: the server's ephemeral key and its proof; the connection is made. */
    public static final byte ACCEPT = 8;

    /** Length of client and server handshake nonces. */
    public static final int NONCE_BYTES = 16;
    /** Length of an AEAD tag. */
    public static final int TAG_BYTES = 16;
    /** Length of an X25519 public key. */
    public static final int KEY_BYTES = 32;
    /** A static public key sealed in the handshake: the key and its tag. */
    public static final int SEALED_KEY_BYTES = KEY_BYTES + TAG_BYTES;

    /** Every request is exactly this long: the padding pays for the challenge the server answers with. */
    public static final int REQUEST_SIZE = 256;
    /** Cookie: 8-byte sealing counter, 8-byte sealed timestamp, 16-byte tag. */
    public static final int COOKIE_SIZE = 8 + 8 + TAG_BYTES;
    /** type, version, client nonce, server nonce, salt, cookie, server static key. */
    public static final int CHALLENGE_SIZE = 1 + 1 + NONCE_BYTES + NONCE_BYTES + 4 + COOKIE_SIZE + KEY_BYTES;
    /**
     * type, magic, version, protocol id, flags, client nonce, server nonce, salt, cookie, server static
     * key, client ephemeral key, sealed client static key, proof.
     */
    public static final int RESPONSE_SIZE = 1 + 4 + 1 + 8 + 1 + NONCE_BYTES + NONCE_BYTES + 4 + COOKIE_SIZE + KEY_BYTES
            + KEY_BYTES + SEALED_KEY_BYTES + TAG_BYTES;
    /** type, version, salt, server ephemeral key, proof. */
    public static final int ACCEPT_SIZE = 1 + 1 + 4 + KEY_BYTES + TAG_BYTES;
    /** type, version, client nonce, reason. */
    public static final int DENIED_SIZE = 1 + 1 + NONCE_BYTES + 1;

    /**
     * Header of a connected frame, in both modes: type, salt, 64-bit sequence (spec 3.7). Plain frames
     * carry the sequence too, so that an old datagram is recognised as old (spec 3.9): 8 bytes as in
     * encrypted mode, one layout for both, and a sequence that never wraps (4 bytes would wrap after
     * about 70 minutes at a million datagrams a second, after which a recording looks new again).
     */
    public static final int FRAME_HEADER = 1 + 4 + 8;
    /** Header of a connected frame in plain mode: {@link #FRAME_HEADER}. */
    public static final int FRAME_HEADER_PLAIN = FRAME_HEADER;
    /** Header of a connected frame in encrypted mode: {@link #FRAME_HEADER}. */
    public static final int FRAME_HEADER_ENCRYPTED = FRAME_HEADER;

    /** Disconnect packets sent when a connection is closed (they may be lost: send several). */
    public static final int REDUNDANT_DISCONNECTS = 10;

    /**
     * KEEPALIVE body flag (its 1-byte body, bit 0): PROBE, "answer at once" (spec 3.7). The answer is a
     * plain KEEPALIVE with an empty body, never a probe; other bits are ignored by a receiver.
     */
    public static final int KEEPALIVE_PROBE = 0x01;

    /** The body length of a probe KEEPALIVE (the flags byte). */
    public static final int KEEPALIVE_PROBE_BODY = 1;

    /**
     * KEEPALIVE body flag (bit 1): SIZE probe, "tell me you received a datagram this long" (spec 3.7).
     * The frame is padded with zeros to the size probed; the answer is a KEEPALIVE with
     * {@link #KEEPALIVE_SIZE_ANSWER} and the probe's length. A receiver that predates it ignores the bit.
     */
    public static final int KEEPALIVE_SIZE_PROBE = 0x02;

    /** KEEPALIVE body flag (bit 2): the answer to a SIZE probe; the body's bytes 1-4 hold the probe's datagram length (u32). */
    public static final int KEEPALIVE_SIZE_ANSWER = 0x04;

    /** The body length of a SIZE answer (the flags byte and the length). */
    public static final int KEEPALIVE_SIZE_ANSWER_BODY = 5;

    /** How long a challenge cookie stays valid, in milliseconds. */
    public static final long COOKIE_LIFETIME_MILLIS = 10_000;

    /** Request flag: the client uses a pre-shared key. */
    public static final int FLAG_ENCRYPTED = 1;
    /** Request flag: the client proves a static identity (and checks the server's). */
    public static final int FLAG_IDENTITY = 2;

    /** Denied reason: the server does not accept connections. */
    public static final int DENY_NOT_ACCEPTING = 1;
    /** Denied reason: no free slot. */
    public static final int DENY_SERVER_FULL = 2;
    /** Denied reason: protocol id or version differ. */
    public static final int DENY_WRONG_PROTOCOL = 3;
    /** Denied reason: the key proof did not verify. */
    public static final int DENY_WRONG_KEY = 4;
    /** Denied reason: one side is encrypted, the other plain, or one proves an identity and the other not. */
    public static final int DENY_MODE_MISMATCH = 5;
    /** Denied reason: the client proved a static key that is not on the server's allow-list. */
    public static final int DENY_UNKNOWN_PEER_KEY = 6;

    private Protocol() {
    }

    /** Bytes a connected frame adds around the message-layer bytes (header, plus tag when encrypted). */
    public static int frameOverhead(boolean encrypted) {
        return encrypted ? FRAME_HEADER + TAG_BYTES : FRAME_HEADER;
    }

    /** Whether a type byte is a connected frame. */
    public static boolean isFrame(byte type) {
        return type == KEEPALIVE || type == PAYLOAD || type == DISCONNECT;
    }

    static String denyText(int code) {
        return switch (code) {
            case DENY_NOT_ACCEPTING -> "server does not accept connections";
            case DENY_SERVER_FULL -> "server full";
            case DENY_WRONG_PROTOCOL -> "wrong_protocol: protocol id or wire version mismatch (this node speaks version "
                    + VERSION + ")";
            case DENY_WRONG_KEY -> "wrong_key: key proof rejected (wrong pre-shared key, or a static key the server could not check)";
            case DENY_MODE_MISMATCH -> "mode_mismatch: the two ends differ in their security mode (pre-shared key,"
                    + " identity, or plain)";
            case DENY_UNKNOWN_PEER_KEY -> "unknown_peer_key: this node's public key is not on the server's allow-list";
            default -> "denied (code " + code + ")";
        };
    }
}
