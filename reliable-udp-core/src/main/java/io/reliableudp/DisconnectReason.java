package io.reliableudp;

/** Why a connection ended (or never started). */
public enum DisconnectReason {
    /** Closed locally by the application or node shutdown. */
    CLOSED_LOCALLY,
    /** The peer sent a disconnect. */
    CLOSED_BY_PEER,
    /** Nothing was heard from the peer within the timeout. */
    TIMEOUT,
    /** The server refused the connection request (wrong protocol id/version, wrong key, not accepted). */
    DENIED,
    /** The server has no free connection slot. */
    SERVER_FULL,
    /** The peer broke the protocol (e.g. could not keep up: queue caps exceeded, malformed traffic). */
    PROTOCOL_ERROR,
    /** The handshake did not complete within the connect timeout. */
    CONNECT_TIMEOUT
}
