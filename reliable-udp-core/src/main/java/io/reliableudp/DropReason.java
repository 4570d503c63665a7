package io.reliableudp;

/** Why a datagram was dropped. The name is the counter key in the node statistics. */
public enum DropReason {
    /** Too short, unknown type, bad magic or bad length. */
    MALFORMED("malformed"),
    /** A connected-phase packet from an address with no connection. */
    UNKNOWN_SENDER("unknown_sender"),
    /** A sequence already seen or older than the replay window. */
    REPLAYED("replayed"),
    /** The AEAD tag did not verify: tampered, wrong key or forged. */
    DECRYPT_FAILED("decrypt_failed"),
    /** Another protocol id or version. */
    WRONG_PROTOCOL("wrong_protocol"),
    /** Larger than the datagram budget. */
    TOO_LARGE("too_large"),
    /** Refused to bound the work or memory an address can cause. */
    RATE_LIMITED("rate_limited"),
    /** A handshake datagram beyond the budget of its source address (one source may not spend the node's). */
    SOURCE_RATE_LIMITED("source_rate_limited"),
    /** Carries the salt of another (earlier) connection of the same address. */
    STALE_CONNECTION("stale_connection"),
    /** A valid packet that makes no sense in the current state (e.g. a challenge nobody asked for). */
    UNEXPECTED("unexpected"),
    /** A handshake response whose cookie was forged, altered, expired or for another address. */
    BAD_COOKIE("bad_cookie"),
    /** A handshake response whose key proof failed. */
    WRONG_KEY("wrong_key");

    private final String key;

    DropReason(String key) {
        this.key = key;
    }

    /** The counter key (snake_case). */
    public String key() {
        return key;
    }
}
