package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import java.util.concurrent.Executor;
import org.springframework.integration.dsl.MessageProducerSpec;
import org.springframework.messaging.converter.MessageConverter;

/** DSL spec of a {@link ReliableUdpInboundChannelAdapter}. */
public class ReliableUdpInboundChannelAdapterSpec
        extends MessageProducerSpec<ReliableUdpInboundChannelAdapterSpec, ReliableUdpInboundChannelAdapter> {

    /**
     * Creates the spec.
     *
     * @param node the node to receive from
     */
    protected ReliableUdpInboundChannelAdapterSpec(ManagedReliableUdpNode node) {
        super(new ReliableUdpInboundChannelAdapter(node));
    }

    /**
     * Creates the spec over a listener container.
     *
     * @param container the container the adapter wraps
     */
    protected ReliableUdpInboundChannelAdapterSpec(UdpMessageListenerContainer container) {
        super(new ReliableUdpInboundChannelAdapter(container));
    }

    /**
     * Channels to receive from.
     *
     * @param channels names or indexes; every channel when none
     * @return the spec
     */
    public ReliableUdpInboundChannelAdapterSpec channels(String... channels) {
        this.target.setChannels(channels);
        return this;
    }

    /**
     * Peers to receive from.
     *
     * @param peers names or {@code host:port}; every peer when none
     * @return the spec
     */
    public ReliableUdpInboundChannelAdapterSpec peers(String... peers) {
        this.target.setPeers(peers);
        return this;
    }

    /**
     * Converts payloads to a type (default {@code byte[]}).
     *
     * @param payloadType the type
     * @return the spec
     */
    public ReliableUdpInboundChannelAdapterSpec payloadType(Class<?> payloadType) {
        this.target.setPayloadType(payloadType);
        return this;
    }

    /**
     * The converter for {@link #payloadType(Class)}.
     *
     * @param converter the converter
     * @return the spec
     */
    public ReliableUdpInboundChannelAdapterSpec messageConverter(MessageConverter converter) {
        this.target.setMessageConverter(converter);
        return this;
    }

    /**
     * The executor messages are produced on.
     *
     * @param executor the executor
     * @return the spec
     */
    public ReliableUdpInboundChannelAdapterSpec executor(Executor executor) {
        this.target.setExecutor(executor);
        return this;
    }
}
