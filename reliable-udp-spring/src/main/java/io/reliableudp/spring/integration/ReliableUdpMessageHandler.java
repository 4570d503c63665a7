package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.integration.expression.ExpressionUtils;
import org.springframework.integration.handler.AbstractReplyProducingMessageHandler;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHandlingException;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.ErrorMessage;

/**
 * Sends each message's payload and headers through a {@link ReliableUdpTemplate}.
 *
 * <ul>
 * <li>As a gateway ({@code expectReply}): request/reply through
 * {@link ReplyingReliableUdpTemplate#sendAndReceive(Message, Class, Duration)} over that template: the reply is the remote
 * listener's answer, converted to {@link #setReplyType(Class) the reply type} (default {@code Object}:
 * {@code byte[]}, or the type the peer named by type id), with the reply's carried headers and the
 * request's headers; a listener that returned nothing produces no reply. A remote failure
 * ({@link io.reliableudp.spring.core.RemoteListenerException}), a timeout or a failed send goes to the
 * error channel. With {@link #setAcknowledgementOnly(boolean)} the reply is instead the
 * {@link SendResult} (plus {@link ReliableUdpHeaders#SEND_RESULT}) once the peer acknowledged.</li>
 * <li>As an adapter (one way): with {@link #setSync(boolean) sync} the handler waits for the ack and
 * throws on failure (so the flow's error handling applies); otherwise a failure is sent to the
 * message's error channel header when there is one, and logged.</li>
 * </ul>
 * The peer comes from {@link #setPeerExpression(Expression)}, else the {@link ReliableUdpHeaders#PEER}
 * header, else the template's default; the channel likewise ({@link ReliableUdpHeaders#SEND_CHANNEL}).
 */
public class ReliableUdpMessageHandler extends AbstractReplyProducingMessageHandler {

    private final ReliableUdpTemplate template;
    /** The gateway's request/reply over {@link #template}. */
    private final ReplyingReliableUdpTemplate replyingTemplate;
    private final boolean expectReply;
    private @Nullable Expression peerExpression;
    private @Nullable Expression channelExpression;
    private boolean sync;
    private Duration syncTimeout = Duration.ofSeconds(30);
    private @Nullable EvaluationContext evaluationContext;
    private Class<?> replyType = Object.class;
    private @Nullable Duration replyTimeout;
    private boolean acknowledgementOnly;

    /**
     * Creates the handler.
     *
     * @param template the template
     * @param expectReply true for a gateway (reply with the send result), false for a one-way adapter
     */
    @SuppressWarnings("this-escape")
    public ReliableUdpMessageHandler(ReliableUdpTemplate template, boolean expectReply) {
        this.template = Objects.requireNonNull(template, "template");
        this.replyingTemplate = new ReplyingReliableUdpTemplate(template);
        this.expectReply = expectReply;
        setAsync(expectReply);
        setRequiresReply(false);
    }

    /**
     * Gateway: the type the reply payload is converted to (default {@code Object}).
     *
     * @param replyType the type
     */
    public void setReplyType(Class<?> replyType) {
        this.replyType = Objects.requireNonNull(replyType, "replyType");
    }

    /**
     * Gateway: how long to wait for the reply (default: the template's reply timeout).
     *
     * @param replyTimeout the timeout
     */
    public void setReplyTimeout(@Nullable Duration replyTimeout) {
        this.replyTimeout = replyTimeout;
    }

    /**
     * Gateway: reply with the {@link SendResult} once acknowledged instead of waiting for the remote
     * listener's answer (default false).
     *
     * @param acknowledgementOnly the flag
     */
    public void setAcknowledgementOnly(boolean acknowledgementOnly) {
        this.acknowledgementOnly = acknowledgementOnly;
    }

    /**
     * Sets the expression giving the peer (evaluated against the message).
     *
     * @param peerExpression the expression (result: a name, {@code host:port} or an address)
     */
    public void setPeerExpression(@Nullable Expression peerExpression) {
        this.peerExpression = peerExpression;
    }

    /**
     * Sets the expression giving the channel (evaluated against the message).
     *
     * @param channelExpression the expression (result: a channel name or index)
     */
    public void setChannelExpression(@Nullable Expression channelExpression) {
        this.channelExpression = channelExpression;
    }

    /**
     * One-way mode only: wait for the ack and throw on failure.
     *
     * @param sync the flag
     */
    public void setSync(boolean sync) {
        this.sync = sync;
    }

    /**
     * How long a {@link #setSync(boolean) sync} send waits for its ack (default 30 s).
     *
     * @param syncTimeout the timeout
     */
    public void setSyncTimeout(Duration syncTimeout) {
        this.syncTimeout = Objects.requireNonNull(syncTimeout, "syncTimeout");
    }

    @Override
    public String getComponentType() {
        return expectReply ? "reliable-udp:outbound-gateway" : "reliable-udp:outbound-channel-adapter";
    }

    @Override
    protected void doInit() {
        this.evaluationContext = ExpressionUtils.createStandardEvaluationContext(getBeanFactory());
    }

    @Override
    protected @Nullable Object handleRequestMessage(Message<?> requestMessage) {
        Map<String, Object> headers = new LinkedHashMap<>(requestMessage.getHeaders());
        Object peer = evaluate(peerExpression, requestMessage);
        if (peer != null) {
            headers.put(ReliableUdpHeaders.PEER, peer instanceof InetSocketAddress ? peer : peer.toString());
        }
        Object channel = evaluate(channelExpression, requestMessage);
        if (channel != null) {
            headers.put(ReliableUdpHeaders.SEND_CHANNEL, channel.toString());
        }
        headers.remove(MessageHeaders.REPLY_CHANNEL);
        headers.remove(MessageHeaders.ERROR_CHANNEL);
        Message<?> outbound = getMessageBuilderFactory().withPayload(requestMessage.getPayload()).copyHeaders(headers).build();
        if (expectReply && !acknowledgementOnly) {
            return replyingTemplate.sendAndReceive(outbound, replyType, replyTimeout).thenApply(reply -> {
                if (reply == null) {
                    return null;
                }
                Map<String, Object> replyHeaders = new LinkedHashMap<>(reply.getHeaders());
                replyHeaders.remove(MessageHeaders.ID);
                replyHeaders.remove(MessageHeaders.TIMESTAMP);
                return getMessageBuilderFactory().withPayload(reply.getPayload()).copyHeaders(replyHeaders)
                        .copyHeaders(requestMessage.getHeaders()).build();
            });
        }
        CompletableFuture<SendResult> future = template.send(outbound);
        if (expectReply) {
            return future.thenApply(r -> getMessageBuilderFactory().withPayload(r)
                    .copyHeaders(requestMessage.getHeaders()).setHeader(ReliableUdpHeaders.SEND_RESULT, r).build());
        }
        if (sync) {
            try {
                future.get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new MessageHandlingException(requestMessage, "reliable-udp send failed", e.getCause());
            } catch (TimeoutException e) {
                throw new MessageHandlingException(requestMessage, "reliable-udp send not acknowledged within " + syncTimeout, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MessageHandlingException(requestMessage, "interrupted waiting for the ack", e);
            }
            return null;
        }
        Object errorChannel = requestMessage.getHeaders().getErrorChannel();
        future.whenComplete((r, e) -> {
            if (e == null) {
                return;
            }
            logger.warn("reliable-udp send failed: " + e.getMessage());
            MessageChannel target = null;
            if (errorChannel instanceof MessageChannel mc) {
                target = mc;
            } else if (errorChannel instanceof String name && getChannelResolver() != null) {
                target = getChannelResolver().resolveDestination(name);
            }
            if (target != null) {
                target.send(new ErrorMessage(new MessageHandlingException(requestMessage, "reliable-udp send failed", e.getCause() != null ? e.getCause() : e)));
            }
        });
        return null;
    }

    private @Nullable Object evaluate(@Nullable Expression expression, Message<?> message) {
        if (expression == null) {
            return null;
        }
        return evaluationContext != null ? expression.getValue(evaluationContext, message) : expression.getValue(message);
    }
}
