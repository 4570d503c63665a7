package io.reliableudp.spring.listener;

import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;

/**
 * What one listener container sends back to a sender, through the reply template: the answer to a
 * request (the listener's return value, with the request's correlation id, on the reply channel or the
 * channel the request came on), a one-way message's non-null return value as a plain message, the
 * acknowledgement a sender of {@code AckMode.PROCESSED} waits for, and error replies that carry a
 * {@link RemoteListenerException.Category category} (the exception's text only when error reply
 * details are on). A reply that cannot be sent is logged; it never fails the listener. Logs under the
 * container's name.
 */
final class ListenerReplier {

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);

    /** The correlation id of a message that is not a request (its non-null return value goes back as a plain message). */
    static final long NO_REQUEST = Long.MIN_VALUE;

    private final String id;
    private final @Nullable ReliableUdpTemplate template;
    private final @Nullable String replyChannel;
    private volatile boolean errorReplyDetails;

    ListenerReplier(String id, @Nullable ReliableUdpTemplate template, @Nullable String replyChannel) {
        this.id = id;
        this.template = template;
        this.replyChannel = replyChannel;
    }

    void setErrorReplyDetails(boolean errorReplyDetails) {
        this.errorReplyDetails = errorReplyDetails;
    }

    boolean isErrorReplyDetails() {
        return errorReplyDetails;
    }

    /**
     * Answers a message once it is settled (handled, failed, filtered or vetoed): a request gets the
     * reply (an error reply when it failed without a reply from the error handler); a one-way message's
     * non-null reply goes back as a plain message, and a sender of {@code AckMode.PROCESSED} is told.
     *
     * @param request whether the message was a request
     * @param ackRequested whether its sender waits for the listener
     * @param correlationId the envelope's correlation id
     * @param reply what to send back, or null
     * @param failure what the listener (or a hook) threw, or null
     */
    void settle(InboundUdpMessage in, boolean request, boolean ackRequested, long correlationId, @Nullable Object reply,
            @Nullable Exception failure) {
        if (request) {
            if (failure != null && reply == null) {
                errorReply(in, correlationId, RemoteListenerException.Category.LISTENER_FAILED, failure);
            } else {
                reply(in, reply, correlationId);
            }
            return;
        }
        if (reply != null) {
            reply(in, reply, NO_REQUEST);
        }
        if (ackRequested) {
            acknowledgeProcessed(in, correlationId, failure);
        }
    }

    /**
     * Tells a sender of {@link io.reliableudp.spring.core.AckMode#PROCESSED} that the listener returned
     * (an empty reply) or failed (an error reply), on the channel the message came on.
     */
    private void acknowledgeProcessed(InboundUdpMessage in, long correlationId, @Nullable Exception failure) {
        ReliableUdpTemplate t = template;
        if (t == null) {
            logger.warn("listener '" + id + "' cannot acknowledge a message of " + in.address() + ": no reply template");
            return;
        }
        if (failure != null) {
            errorReply(in, in.channel().name(), correlationId, RemoteListenerException.Category.LISTENER_FAILED, failure);
            return;
        }
        try {
            t.sendReply(in.peer(), in.channel().name(), null, Map.of(), correlationId).whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("processed acknowledgement of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not acknowledge a message of " + in.address(), e);
        }
    }

    /** An error reply to a request (on the reply channel, else the request's) or to a waiting sender. */
    void errorReply(InboundUdpMessage in, long correlationId, RemoteListenerException.Category category, @Nullable Throwable failure) {
        errorReply(in, replyChannel != null ? replyChannel : in.channel().name(), correlationId, category, failure);
    }

    /**
     * Tells a sender that waits ({@code sendAndReceive}, ack mode PROCESSED) that its message was not
     * handled: a request on the reply channel, an acknowledgement on the message's own channel.
     */
    void notProcessed(InboundUdpMessage in, boolean request, long correlationId) {
        errorReply(in, request && replyChannel != null ? replyChannel : in.channel().name(), correlationId,
                RemoteListenerException.Category.NOT_PROCESSED, null);
    }

    private void errorReply(InboundUdpMessage in, String channel, long correlationId, RemoteListenerException.Category category,
            @Nullable Throwable failure) {
        ReliableUdpTemplate t = template;
        if (t == null) {
            logger.warn("listener '" + id + "' cannot tell " + in.address() + " that its message was not handled: no reply template");
            return;
        }
        try {
            t.sendErrorReply(in.peer(), channel, category, errorReplyDetails ? failure : null, correlationId).whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("error reply of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not send its error reply to " + in.address(), e);
        }
    }

    private void reply(InboundUdpMessage in, @Nullable Object reply, long correlationId) {
        ReliableUdpTemplate t = template;
        if (t == null) {
            logger.warn("listener '" + id + "' has a reply but no template is available to send it");
            return;
        }
        String channel = replyChannel != null ? replyChannel : in.channel().name();
        Object payload = reply;
        Map<String, Object> headers = new LinkedHashMap<>();
        if (reply instanceof Message<?> m) {
            payload = m.getPayload();
            headers.putAll(m.getHeaders());
            Object ch = m.getHeaders().get(ReliableUdpHeaders.SEND_CHANNEL);
            if (ch != null) {
                channel = ch.toString();
            }
        }
        headers.remove(MessageHeaders.ID);
        headers.remove(MessageHeaders.TIMESTAMP);
        final String replyOn = channel;
        try {
            CompletableFuture<SendResult> sent = correlationId == NO_REQUEST
                    ? t.send(in.peer(), replyOn, Objects.requireNonNull(payload), headers)
                    : t.sendReply(in.peer(), replyOn, payload, headers, correlationId);
            sent.whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("reply of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not send its reply to " + in.address() + " on '" + replyOn + "'", e);
            if (correlationId != NO_REQUEST) {
                errorReply(in, correlationId, RemoteListenerException.Category.REPLY_FAILED, e);
            }
        }
    }
}
