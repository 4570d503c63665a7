package io.reliableudp.transport;

/** Life cycle of a peer connection. */
public enum PeerState {
    /** Handshake in progress. */
    CONNECTING,
    /** Handshake done; messages flow. */
    CONNECTED,
    /** Closing: disconnect packets are being sent. */
    DISCONNECTING,
    /** Ended; see the disconnect reason. */
    DISCONNECTED
}
