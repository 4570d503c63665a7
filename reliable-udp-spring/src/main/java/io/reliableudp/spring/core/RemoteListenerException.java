package io.reliableudp.spring.core;

import java.io.Serial;
import org.springframework.core.NestedRuntimeException;

/**
 * The remote listener failed on a request: the future of
 * {@link ReliableUdpOperations#sendAndReceive sendAndReceive} completes exceptionally with this. It
 * carries the remote exception's class name and message as text only: no class named by the peer is
 * ever loaded or instantiated here.
 */
public class RemoteListenerException extends NestedRuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String peer;
    private final String remoteClassName;
    private final String remoteMessage;

    /**
     * Creates the exception.
     *
     * @param peer the peer (name or {@code host:port}) whose listener failed
     * @param remoteClassName the class name of the remote exception, as the peer sent it
     * @param remoteMessage its message, as the peer sent it (empty when it had none)
     */
    public RemoteListenerException(String peer, String remoteClassName, String remoteMessage) {
        super("the listener of " + peer + " failed: " + remoteClassName + (remoteMessage.isEmpty() ? "" : ": " + remoteMessage));
        this.peer = peer;
        this.remoteClassName = remoteClassName;
        this.remoteMessage = remoteMessage;
    }

    /** The peer whose listener failed. */
    public String peer() {
        return peer;
    }

    /** The remote exception's class name (text from the peer, never loaded). */
    public String remoteClassName() {
        return remoteClassName;
    }

    /** The remote exception's message (empty when it had none). */
    public String remoteMessage() {
        return remoteMessage;
    }
}
