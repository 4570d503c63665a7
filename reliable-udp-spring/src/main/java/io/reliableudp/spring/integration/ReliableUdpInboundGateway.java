package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.listener.UdpMessageHandler;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.gateway.MessagingGatewaySupport;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Answers a request ({@code ReliableUdpTemplate.sendAndReceive}, or the outbound gateway of another
 * application) with the reply of a flow, as Spring Kafka's and Spring AMQP's inbound gateways do. It
 * wraps a {@link UdpMessageListenerContainer} as the inbound adapter does (channel and peer filters,
 * serial order per peer and channel, envelope, headers, observation, hooks, drain on stop), converts the
 * payload to {@link #setPayloadType(Class) a payload type} (default {@code byte[]}), sends it to the
 * request channel and waits for the flow's reply; the container sends that back to the requester with
 * the request's correlation id, on the channel the request came on.
 *
 * <ul>
 * <li>The reply's payload goes back converted as a template sends it; its headers go back when the flow
 * added or changed them (the request's own headers and the framework's are not echoed), and a
 * {@link ReliableUdpHeaders#SEND_CHANNEL} header chooses the channel.</li>
 * <li>{@code requestTimeout}: how long sending into the request channel may block;
 * {@code replyTimeout}: how long to wait for the flow's reply (Spring Integration's default, 30 s). Each
 * request holds its (peer, channel)'s serial queue while it waits, so keep it below the requester's
 * reply timeout.</li>
 * <li>No reply within the reply timeout (a flow that ends in a one-way handler, say): the requester gets
 * an empty reply (its future completes with null), as from a listener that returns nothing; with
 * {@code errorOnTimeout(true)} it gets an error reply instead
 * ({@code RemoteListenerException.Category.LISTENER_FAILED}).</li>
 * <li>A flow that throws: with an error channel, the error flow's reply is the reply; without one, the
 * failure is counted by the container and the requester gets an error reply.</li>
 * <li>A one-way message (not a request) is sent into the flow without waiting; a reply the flow produces
 * for it is dropped.</li>
 * </ul>
 */
public class ReliableUdpInboundGateway extends MessagingGatewaySupport {

    private final @Nullable ManagedReliableUdpNode node;
    private @Nullable UdpMessageListenerContainer container;
    private List<String> channelNames = List.of();
    private List<String> peerFilter = List.of();
    private Class<?> payloadType = byte[].class;
    private @Nullable MessageConverter messageConverter;
    private @Nullable Executor executor;

    /**
     * Creates a gateway that receives through a container of its own (built on {@link #onInit()}).
     *
     * @param node the node to receive from
     */
    public ReliableUdpInboundGateway(ManagedReliableUdpNode node) {
        this.node = Objects.requireNonNull(node, "node");
    }

    /**
     * Creates a gateway over a listener container: the gateway becomes its handler and starts and stops
     * it (do not register the container elsewhere).
     *
     * @param container the container (its filters, hooks, executor and observation apply)
     */
    public ReliableUdpInboundGateway(UdpMessageListenerContainer container) {
        this.node = null;
        this.container = Objects.requireNonNull(container, "container");
    }

    /**
     * Sets the channels to receive from (own container only).
     *
     * @param channels channel names or indexes; every channel when none
     */
    public void setChannels(String... channels) {
        this.channelNames = List.of(channels);
    }

    /**
     * Sets the peers to receive from (own container only).
     *
     * @param peers peer names or {@code host:port}; every peer when none
     */
    public void setPeers(String... peers) {
        this.peerFilter = List.of(peers);
    }

    /**
     * Sets the payload type requests are converted to (default {@code byte[]}: no conversion).
     *
     * @param payloadType the type
     */
    public void setPayloadType(Class<?> payloadType) {
        this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
    }

    /**
     * Sets the converter of requests and replies (default: the application's
     * {@code reliableUdpMessageConverter} bean, else the container's mapper's converter).
     *
     * @param messageConverter the converter
     */
    public void setMessageConverter(MessageConverter messageConverter) {
        this.messageConverter = Objects.requireNonNull(messageConverter, "messageConverter");
    }

    /**
     * Sets the executor requests are handled on (own container only).
     *
     * @param executor the executor (default: a virtual thread per drain)
     */
    public void setExecutor(Executor executor) {
        this.executor = executor;
    }

    /** The container this gateway receives through (after {@link #onInit()} for an own one). */
    public @Nullable UdpMessageListenerContainer getContainer() {
        return container;
    }

    @Override
    public String getComponentType() {
        return "reliable-udp:inbound-gateway";
    }

    @Override
    protected void onInit() {
        super.onInit();
        UdpMessageHandler handler = this::handle;
        UdpMessageListenerContainer c = container;
        if (c == null) {
            String id = getComponentName() != null ? getComponentName() : "reliable-udp-inbound-gateway@" + Integer.toHexString(hashCode());
            c = InboundContainers.create(id, Objects.requireNonNull(node, "node"), channelNames, peerFilter, executor, handler, getBeanFactory());
            container = c;
        } else {
            c.setMessageHandler(handler);
        }
        c.setAutoStartup(false);
        InboundContainers.applyConverter(c, messageConverter, getBeanFactory());
    }

    /** The container's handler: a request waits for the flow's reply, which the container sends back. */
    private @Nullable Object handle(Message<?> raw) {
        Message<?> request = InboundContainers.convert(raw, payloadType, Objects.requireNonNull(container));
        if (!raw.getHeaders().containsKey(ReliableUdpHeaders.CORRELATION_ID)) {
            send(request);
            return null;
        }
        Message<?> reply = sendAndReceiveMessage(request);
        return reply == null ? null : replyOf(reply, request);
    }

    /** The reply without the request's own headers, the framework's, or the transport headers of the request. */
    private static Message<?> replyOf(Message<?> reply, Message<?> request) {
        Map<String, Object> headers = new LinkedHashMap<>();
        MessageHeaders asked = request.getHeaders();
        reply.getHeaders().forEach((name, value) -> {
            boolean transport = name.startsWith(ReliableUdpHeaders.PREFIX) && !name.equals(ReliableUdpHeaders.SEND_CHANNEL);
            boolean framework = name.equals(MessageHeaders.ID) || name.equals(MessageHeaders.TIMESTAMP)
                    || name.equals(MessageHeaders.REPLY_CHANNEL) || name.equals(MessageHeaders.ERROR_CHANNEL);
            if (!transport && !framework && !Objects.equals(asked.get(name), value)) {
                headers.put(name, value);
            }
        });
        return MessageBuilder.withPayload(reply.getPayload()).copyHeaders(headers).build();
    }

    @Override
    protected void doStart() {
        super.doStart();
        Objects.requireNonNull(container).start();
    }

    @Override
    protected void doStop() {
        UdpMessageListenerContainer c = container;
        if (c != null) {
            c.stop();
        }
        super.doStop();
    }
}
