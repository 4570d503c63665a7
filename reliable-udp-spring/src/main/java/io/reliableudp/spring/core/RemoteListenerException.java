package io.reliableudp.spring.core;

import io.reliableudp.spring.support.Envelope;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.springframework.core.NestedRuntimeException;

/**
 * The remote side did not handle a message: the future of
 * {@link ReplyingReliableUdpOperations#sendAndReceive sendAndReceive} (and of a send whose channel waits for
 * the listener, {@link AckMode#PROCESSED}) completes exceptionally with this. It carries a
 * {@link #category() category}; the remote exception's class name and message only when the receiver
 * is configured to send them ({@code reliable-udp.listener.error-reply-details}), and then as text
 * only: no class named by the peer is ever loaded or instantiated here.
 */
public class RemoteListenerException extends NestedRuntimeException {

    @Serial
    private static final long serialVersionUID = 2L;

    /** The error reply's header naming the remote exception's class (only with details). */
    static final String EXCEPTION_CLASS_HEADER = "exceptionClass";

    /** Why the remote side did not handle the message: what an error reply says by default. */
    public enum Category {
        /** The listener (or its error handler) threw, after its retries. */
        LISTENER_FAILED,
        /** The message was refused before any listener: its type id is not trusted, or its body did not convert. */
        NOT_ACCEPTED,
        /** The listener returned, but its reply could not be built or sent. */
        REPLY_FAILED,
        /** No running listener takes messages of that channel from this peer. */
        NO_LISTENER,
        /** The listener was stopped before it could take the message (its stop timeout ran out). */
        NOT_PROCESSED,
        /** A category this version does not know (a newer peer). */
        UNKNOWN;

        /**
         * The category a peer named.
         *
         * @param text the category's name as sent
         * @return the category, {@link #UNKNOWN} when no category has that name
         */
        public static Category parse(String text) {
            try {
                return valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                return UNKNOWN;
            }
        }
    }

    private final String peer;
    private final Category category;
    private final String remoteClassName;
    private final String remoteMessage;

    /**
     * Creates the exception.
     *
     * @param peer the peer (name or {@code host:port}) whose listener failed
     * @param category why
     * @param remoteClassName the class name of the remote exception, as the peer sent it (empty when it sent none)
     * @param remoteMessage its message, as the peer sent it (empty when it sent none)
     */
    public RemoteListenerException(String peer, Category category, String remoteClassName, String remoteMessage) {
        super("the listener of " + peer + " did not handle the message: " + category
                + (remoteClassName.isEmpty() ? "" : " (" + remoteClassName + (remoteMessage.isEmpty() ? "" : ": " + remoteMessage) + ")"));
        this.peer = peer;
        this.category = category;
        this.remoteClassName = remoteClassName;
        this.remoteMessage = remoteMessage;
    }

    /**
     * What an error reply says: its category, and the exception's class and message when the peer sent them.
     *
     * @param peer the peer's label
     * @param envelope the error reply
     * @return the exception
     */
    static RemoteListenerException of(String peer, Envelope envelope) {
        Category category = envelope.typeId() != null ? Category.parse(envelope.typeId()) : Category.UNKNOWN;
        Object type = envelope.headers().get(EXCEPTION_CLASS_HEADER);
        String message = new String(envelope.body(), StandardCharsets.UTF_8);
        return new RemoteListenerException(peer, category, type instanceof String t ? t : "", message);
    }

    /** The peer whose listener failed. */
    public String peer() {
        return peer;
    }

    /** Why the remote side did not handle the message. */
    public Category category() {
        return category;
    }

    /** The remote exception's class name (text from the peer, never loaded), empty unless the peer sends details. */
    public String remoteClassName() {
        return remoteClassName;
    }

    /** The remote exception's message, empty unless the peer sends details (or when it had none). */
    public String remoteMessage() {
        return remoteMessage;
    }
}
