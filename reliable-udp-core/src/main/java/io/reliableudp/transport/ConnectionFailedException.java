package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import java.io.IOException;
import java.io.Serial;

/** Why {@link ReliableUdpNode#connect} failed: the future completes exceptionally with this. */
public class ConnectionFailedException extends IOException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final DisconnectReason reason;

    /** A failure with its reason and a human-readable detail. */
    public ConnectionFailedException(DisconnectReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** The reason (DENIED, SERVER_FULL, CONNECT_TIMEOUT, CLOSED_LOCALLY, ...). */
    public DisconnectReason reason() {
        return reason;
    }
}
