package io.reliableudp.spring.listener;

import java.io.Serial;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessagingException;

/** A listener threw: handed to the {@link UdpListenerErrorHandler} with the failed message. */
public class ListenerExecutionFailedException extends MessagingException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String listenerId;

    /**
     * Creates the exception.
     *
     * @param listenerId the listener's id
     * @param message the failed message
     * @param cause what the listener threw
     */
    public ListenerExecutionFailedException(String listenerId, Message<?> message, Throwable cause) {
        super(message, "listener '" + listenerId + "' failed: " + cause, cause);
        this.listenerId = listenerId;
    }

    /** The listener's id. */
    public String getListenerId() {
        return listenerId;
    }
}
