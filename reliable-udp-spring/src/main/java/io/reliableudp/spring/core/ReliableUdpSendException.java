package io.reliableudp.spring.core;

import io.reliableudp.message.DeliveryFailure;
import java.io.Serial;
import org.jspecify.annotations.Nullable;
import org.springframework.core.NestedRuntimeException;

/**
 * A send that failed: the future of a {@link ReliableUdpTemplate} send completes exceptionally with this.
 * {@link #reason()} says why; the cause is the transport's {@link io.reliableudp.message.DeliveryException}
 * (or the connect failure).
 */
public class ReliableUdpSendException extends NestedRuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final DeliveryFailure reason;
    private final String peer;
    private final String channel;

    /**
     * Creates the exception.
     *
     * @param reason why the send failed
     * @param peer the peer (name or address) it was sent to
     * @param channel the channel name
     * @param cause the underlying failure
     */
    public ReliableUdpSendException(DeliveryFailure reason, String peer, String channel, @Nullable Throwable cause) {
        super("send to " + peer + " on channel '" + channel + "' failed: " + reason
                + (cause != null && cause.getMessage() != null ? " (" + cause.getMessage() + ")" : ""), cause);
        this.reason = reason;
        this.peer = peer;
        this.channel = channel;
    }

    /** Why the message was not (or may not have been) delivered. */
    public DeliveryFailure reason() {
        return reason;
    }

    /** The peer (name or address) the message was sent to. */
    public String peer() {
        return peer;
    }

    /** The channel name. */
    public String channel() {
        return channel;
    }
}
