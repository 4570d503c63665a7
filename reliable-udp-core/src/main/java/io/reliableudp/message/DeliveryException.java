package io.reliableudp.message;

import java.io.Serial;

/** A send that failed, with the reason. Futures of failed sends complete exceptionally with this. */
public class DeliveryException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final DeliveryFailure reason;

    public DeliveryException(DeliveryFailure reason, String message) {
        super(message);
        this.reason = reason;
    }

    public DeliveryFailure reason() {
        return reason;
    }
}
