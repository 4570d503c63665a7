package io.reliableudp.message;

/** Why a message was not (or may not have been) delivered. */
public enum DeliveryFailure {
    /** The local side closed the connection or node before the peer acknowledged the message. */
    CLOSED,
    /** The peer disconnected (or was disconnected) before acknowledging the message. */
    DISCONNECTED,
    /** The connection timed out before the peer acknowledged the message. */
    TIMEOUT,
    /** The channel's send queue was full (and stayed full for the configured wait). */
    QUEUE_FULL,
    /**
     * The message is larger than the configured maximum message size (or, on an unreliable channel,
     * than {@link MessageEndpoint#maxUnreliableMessageSize()}, or than the channel's maxQueuedBytes).
     */
    TOO_LARGE,
    /** The peer is not connected (yet) or the connection failed. */
    NOT_CONNECTED
}
