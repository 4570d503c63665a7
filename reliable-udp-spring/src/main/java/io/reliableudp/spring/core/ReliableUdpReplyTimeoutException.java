package io.reliableudp.spring.core;

import java.io.Serial;
import java.time.Duration;
import org.springframework.core.NestedRuntimeException;

/**
 * No reply came in time: the future of {@link ReplyingReliableUdpOperations#sendAndReceive sendAndReceive}
 * completes exceptionally with this once the reply timeout has passed (the request itself may have been
 * acknowledged: the listener may still be working, may have returned on an unreliable channel, or no
 * listener took the request).
 */
public class ReliableUdpReplyTimeoutException extends NestedRuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String peer;
    private final String channel;
    private final transient Duration timeout;

    /**
     * Creates the exception.
     *
     * @param peer the peer the request went to
     * @param channel the request's channel
     * @param correlationId the request's correlation id
     * @param timeout how long the requester waited
     */
    public ReliableUdpReplyTimeoutException(String peer, String channel, long correlationId, Duration timeout) {
        super("no reply from " + peer + " on channel '" + channel + "' within " + timeout + " (correlation id "
                + Long.toUnsignedString(correlationId, 16) + ")");
        this.peer = peer;
        this.channel = channel;
        this.timeout = timeout;
    }

    /** The peer the request went to. */
    public String peer() {
        return peer;
    }

    /** The request's channel. */
    public String channel() {
        return channel;
    }

    /** How long the requester waited. */
    public Duration timeout() {
        return timeout;
    }
}
