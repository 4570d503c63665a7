package io.reliableudp;

/** Why a handshake failed. The name is the counter key in the node statistics. */
public enum HandshakeFailure {
    /** Protocol id or version differ. */
    WRONG_PROTOCOL("wrong_protocol"),
    /** One side encrypted, the other plain. */
    MODE_MISMATCH("mode_mismatch"),
    /** The key proof did not verify. */
    WRONG_KEY("wrong_key"),
    /** The peer proved a static key that is not on this node's allow-list. */
    UNKNOWN_PEER_KEY("unknown_peer_key"),
    /** A response whose cookie already made a connection (a recorded handshake sent again). */
    REPLAYED_RESPONSE("replayed_response"),
    /** Cookie forged, altered, for another address, or expired. */
    BAD_COOKIE("bad_cookie"),
    /** No free slot. */
    SERVER_FULL("server_full"),
    /** The node does not accept incoming connections. */
    NOT_ACCEPTING("not_accepting"),
    /** The server denied our request. */
    DENIED_BY_PEER("denied_by_peer"),
    /** The handshake did not finish in time. */
    CONNECT_TIMEOUT("connect_timeout");

    private final String key;

    HandshakeFailure(String key) {
        this.key = key;
    }

    /** The counter key (snake_case). */
    public String key() {
        return key;
    }
}
