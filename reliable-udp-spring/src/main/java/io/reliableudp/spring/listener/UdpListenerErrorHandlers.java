package io.reliableudp.spring.listener;

import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHandler;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The recoverers a listener's failure ends in once its retries are spent (the {@code errorHandler} of
 * {@code @UdpMessageListener}, or the factory's default), as Spring Kafka's {@code DefaultErrorHandler}
 * ends in a {@code ConsumerRecordRecoverer}: log it, publish it to a dead-letter
 * {@link MessageChannel} or {@link MessageHandler}, or answer the sender with the failure. Whatever the
 * recoverer, a request whose recoverer returns nothing gets a correlated error reply, so the requester
 * learns the outcome.
 */
public final class UdpListenerErrorHandlers {

    private static final Log logger = LogFactory.getLog(UdpListenerErrorHandlers.class);

    private UdpListenerErrorHandlers() {
    }

    /**
     * Logs the failure at error level (what a container does without an error handler).
     *
     * @return the recoverer
     */
    public static UdpListenerErrorHandler logging() {
        return (message, e) -> {
            logger.error("listener '" + e.getListenerId() + "' failed on a message from "
                    + message.getHeaders().get(ReliableUdpHeaders.PEER_ADDRESS), e.getCause());
            return null;
        };
    }

    /**
     * Sends the failed message to a dead-letter channel, with the headers
     * {@link ReliableUdpHeaders#DLT_LISTENER_ID}, {@link ReliableUdpHeaders#DLT_EXCEPTION_CLASS} and
     * {@link ReliableUdpHeaders#DLT_EXCEPTION_MESSAGE} added (as Spring Kafka's
     * {@code DeadLetterPublishingRecoverer} adds its {@code kafka_dlt-*} headers). A channel that refuses
     * it is logged, never thrown.
     *
     * @param channel the dead-letter channel
     * @return the recoverer
     */
    public static UdpListenerErrorHandler deadLetter(MessageChannel channel) {
        Objects.requireNonNull(channel, "channel");
        return (message, e) -> {
            Message<?> dead = deadLetterMessage(message, e);
            try {
                if (!channel.send(dead)) {
                    logger.error("the dead-letter channel " + channel + " refused a failed message of listener '" + e.getListenerId() + "'");
                }
            } catch (RuntimeException ex) {
                logger.error("the dead-letter channel " + channel + " failed on a message of listener '" + e.getListenerId() + "'", ex);
            }
            return null;
        };
    }

    /**
     * Hands the failed message (with the dead-letter headers) to a handler, e.g. one that stores it.
     *
     * @param handler the handler
     * @return the recoverer
     */
    public static UdpListenerErrorHandler deadLetter(MessageHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return (message, e) -> {
            handler.handleMessage(deadLetterMessage(message, e));
            return null;
        };
    }

    /**
     * Answers the sender with the failure: a request gets its correlated error reply (its future fails
     * with a {@code RemoteListenerException}); a one-way message gets a {@link UdpListenerFailure} back on
     * the listener's reply channel (or the message's channel), for a listener of the sender's to take.
     *
     * @return the recoverer
     */
    public static UdpListenerErrorHandler errorReply() {
        return (message, e) -> {
            if (message.getHeaders().containsKey(ReliableUdpHeaders.CORRELATION_ID)) {
                return null;   // the container sends the correlated error reply itself
            }
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            Object channel = message.getHeaders().get(ReliableUdpHeaders.CHANNEL_NAME);
            Object messageId = message.getHeaders().get(ReliableUdpHeaders.MESSAGE_ID);
            return new UdpListenerFailure(e.getListenerId(), cause.getClass().getName(),
                    cause.getMessage() == null ? "" : cause.getMessage(), String.valueOf(channel),
                    messageId instanceof Integer i ? i : -1);
        };
    }

    private static Message<?> deadLetterMessage(Message<?> message, ListenerExecutionFailedException e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        return MessageBuilder.fromMessage(message)
                .setHeader(ReliableUdpHeaders.DLT_LISTENER_ID, e.getListenerId())
                .setHeader(ReliableUdpHeaders.DLT_EXCEPTION_CLASS, cause.getClass().getName())
                .setHeader(ReliableUdpHeaders.DLT_EXCEPTION_MESSAGE, cause.getMessage() == null ? "" : cause.getMessage())
                .build();
    }
}
