package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ReliableUdpTemplate;
import java.time.Duration;
import java.util.function.Function;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.common.LiteralExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.integration.dsl.MessageHandlerSpec;
import org.springframework.integration.expression.FunctionExpression;
import org.springframework.messaging.Message;

/** DSL spec of a {@link ReliableUdpMessageHandler} (outbound adapter or gateway). */
public class ReliableUdpMessageHandlerSpec extends MessageHandlerSpec<ReliableUdpMessageHandlerSpec, ReliableUdpMessageHandler> {

    private static final ExpressionParser PARSER = new SpelExpressionParser();

    /**
     * Creates the spec.
     *
     * @param template the template
     * @param expectReply true for a gateway
     */
    protected ReliableUdpMessageHandlerSpec(ReliableUdpTemplate template, boolean expectReply) {
        this.target = new ReliableUdpMessageHandler(template, expectReply);
    }

    /**
     * A fixed peer.
     *
     * @param peer a name or {@code host:port}
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec peer(String peer) {
        this.target.setPeerExpression(new LiteralExpression(peer));
        return this;
    }

    /**
     * The peer from a SpEL expression evaluated against the message.
     *
     * @param expression the expression
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec peerExpression(String expression) {
        this.target.setPeerExpression(PARSER.parseExpression(expression));
        return this;
    }

    /**
     * The peer from a function of the message.
     *
     * @param function the function (a name, {@code host:port} or an address)
     * @param <P> the payload type
     * @return the spec
     */
    public <P> ReliableUdpMessageHandlerSpec peerFunction(Function<Message<P>, ?> function) {
        this.target.setPeerExpression(new FunctionExpression<>(function));
        return this;
    }

    /**
     * A fixed channel.
     *
     * @param channel a name or index
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec channel(String channel) {
        this.target.setChannelExpression(new LiteralExpression(channel));
        return this;
    }

    /**
     * The channel from a function of the message.
     *
     * @param function the function (a name or index)
     * @param <P> the payload type
     * @return the spec
     */
    public <P> ReliableUdpMessageHandlerSpec channelFunction(Function<Message<P>, ?> function) {
        this.target.setChannelExpression(new FunctionExpression<>(function));
        return this;
    }

    /**
     * One-way mode: wait for the ack and throw on failure.
     *
     * @param sync the flag
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec sync(boolean sync) {
        this.target.setSync(sync);
        return this;
    }

    /**
     * How long a sync send waits.
     *
     * @param timeout the timeout
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec syncTimeout(Duration timeout) {
        this.target.setSyncTimeout(timeout);
        return this;
    }

    /**
     * Gateway: the type the remote listener's reply is converted to.
     *
     * @param replyType the type
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec replyType(Class<?> replyType) {
        this.target.setReplyType(replyType);
        return this;
    }

    /**
     * Gateway: how long to wait for the reply.
     *
     * @param timeout the timeout
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec replyTimeout(Duration timeout) {
        this.target.setReplyTimeout(timeout);
        return this;
    }

    /**
     * Gateway: reply with the {@code SendResult} once acknowledged, not with the remote listener's answer.
     *
     * @param acknowledgementOnly the flag
     * @return the spec
     */
    public ReliableUdpMessageHandlerSpec acknowledgementOnly(boolean acknowledgementOnly) {
        this.target.setAcknowledgementOnly(acknowledgementOnly);
        return this;
    }
}
