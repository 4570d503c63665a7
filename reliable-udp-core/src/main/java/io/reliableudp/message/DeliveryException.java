package io.reliableudp.message;

import java.io.Serial;

/** A send that failed, with the reason. Futures of failed sends complete exceptionally with this. */
public class DeliveryException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final DeliveryFailure reason;

    /**
     * @param reason why the send failed
     * @param message a description for logs
     */
    public DeliveryException(DeliveryFailure reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** Why the send failed. */
    public DeliveryFailure reason() {
        return reason;
    }
}
