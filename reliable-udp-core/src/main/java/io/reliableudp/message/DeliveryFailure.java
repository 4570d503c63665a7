package io.reliableudp.message;

/** Why a message was not (or may not have been) delivered. */
public enum DeliveryFailure {
    /** The local side closed the connection or node before the peer acknowledged the message. */
    CLOSED,
    /**
     * The connection ended before the peer acknowledged the message: the peer disconnected, or this
     * side disconnected it for a protocol error (e.g. it could not keep up: a send queue full for a
     * whole timeout). The peer may have received the message.
     */
    DISCONNECTED,
    /** The connection timed out before the peer acknowledged the message (which it may have received). */
    TIMEOUT,
    /** The channel's send queue was full (and stayed full for the configured wait). */
    QUEUE_FULL,
    /**
     * The message is larger than the configured maximum message size (or, on an unreliable channel,
     * than {@link MessageEndpoint#maxUnreliableMessageSize()}, or than the channel's maxQueuedBytes).
     */
    TOO_LARGE,
    /**
     * The message was refused, never sent: the peer is not connected yet, the connection failed, or it
     * has ended (whatever the reason, except a local close: {@link #CLOSED}).
     */
    NOT_CONNECTED,
    /**
     * The message's time-to-live passed before the peer acknowledged it: it is sent no more and the
     * peer skips it; the peer did not receive it in time and never delivers it.
     */
    EXPIRED
}
