package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.listener.UdpMessageHandler;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.endpoint.MessageProducerSupport;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConverter;

/**
 * Produces a Spring Integration message for every message a {@link UdpMessageListenerContainer} takes,
 * as Spring AMQP's {@code AmqpInboundChannelAdapter} wraps a listener container: the container does the
 * filtering by channel and peer, the serial order per (peer, channel), the envelope, the headers (those
 * of {@link io.reliableudp.spring.support.ReliableUdpHeaders} plus the ones the sender carried), the
 * {@code reliable.udp.process} observation, the counting of malformed input, and the drain on stop; the
 * adapter converts the payload to {@link #setPayloadType(Class) a payload type} (default {@code byte[]})
 * and sends it to the output channel.
 *
 * <p>Built over a node ({@link #ReliableUdpInboundChannelAdapter(ManagedReliableUdpNode)}) the adapter
 * makes its own container from {@link #setChannels}, {@link #setPeers} and {@link #setExecutor}
 * (default: a virtual thread per drain, shut down with the adapter). A failure to convert or in the
 * downstream flow goes to the error channel when one is set, else the container counts and logs it.
 */
public class ReliableUdpInboundChannelAdapter extends MessageProducerSupport {

    private final @Nullable ManagedReliableUdpNode node;
    private @Nullable UdpMessageListenerContainer container;
    private List<String> channelNames = List.of();
    private List<String> peerFilter = List.of();
    private Class<?> payloadType = byte[].class;
    private @Nullable MessageConverter messageConverter;
    private @Nullable Executor executor;

    /**
     * Creates an adapter that receives through a container of its own (built on {@link #onInit()}).
     *
     * @param node the node to receive from
     */
    public ReliableUdpInboundChannelAdapter(ManagedReliableUdpNode node) {
        this.node = Objects.requireNonNull(node, "node");
    }

    /**
     * Creates an adapter over a listener container: the adapter becomes its handler and starts and
     * stops it (do not register the container elsewhere).
     *
     * @param container the container (its filters, executor and observation apply)
     */
    public ReliableUdpInboundChannelAdapter(UdpMessageListenerContainer container) {
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
     * Sets the payload type to convert to (default {@code byte[]}: no conversion).
     *
     * @param payloadType the type
     */
    public void setPayloadType(Class<?> payloadType) {
        this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
    }

    /**
     * Sets the converter used for {@link #setPayloadType(Class)} (default: the application's
     * {@code reliableUdpMessageConverter} bean, else the container's mapper's converter).
     *
     * @param messageConverter the converter
     */
    public void setMessageConverter(MessageConverter messageConverter) {
        this.messageConverter = Objects.requireNonNull(messageConverter, "messageConverter");
    }

    /**
     * Sets the executor messages are sent to the output channel on (own container only).
     *
     * @param executor the executor (default: a virtual thread per drain)
     */
    public void setExecutor(Executor executor) {
        this.executor = executor;
    }

    /** The container this adapter receives through (after {@link #onInit()} for an own one). */
    public @Nullable UdpMessageListenerContainer getContainer() {
        return container;
    }

    /** Payloads dropped because their envelope was malformed. */
    public long getMalformedCount() {
        UdpMessageListenerContainer c = container;
        return c == null ? 0 : c.getMalformedCount();
    }

    /** Messages whose conversion or downstream flow failed (with no error channel to take them). */
    public long getFailedCount() {
        UdpMessageListenerContainer c = container;
        return c == null ? 0 : c.getErrorCount();
    }

    @Override
    public String getComponentType() {
        return "reliable-udp:inbound-channel-adapter";
    }

    @Override
    protected void onInit() {
        super.onInit();
        UdpMessageHandler handler = this::produce;
        UdpMessageListenerContainer c = container;
        if (c == null) {
            String id = getComponentName() != null ? getComponentName() : "reliable-udp-inbound-adapter@" + Integer.toHexString(hashCode());
            c = InboundContainers.create(id, Objects.requireNonNull(node, "node"), channelNames, peerFilter, executor, handler, getBeanFactory());
            container = c;
        } else {
            c.setMessageHandler(handler);
        }
        c.setAutoStartup(false);
        InboundContainers.applyConverter(c, messageConverter, getBeanFactory());
    }

    /** The container's handler: converts and sends on; a failure goes to the error channel, else back to the container. */
    private @Nullable Object produce(Message<?> raw) {
        try {
            sendMessage(InboundContainers.convert(raw, payloadType, Objects.requireNonNull(container)));
        } catch (RuntimeException e) {
            if (getErrorChannel() == null || !sendErrorMessageIfNecessary(raw, e)) {
                throw e;
            }
        }
        return null;
    }

    @Override
    protected void doStart() {
        Objects.requireNonNull(container).start();
    }

    @Override
    protected void doStop() {
        UdpMessageListenerContainer c = container;
        if (c != null) {
            c.stop();
        }
    }
}
