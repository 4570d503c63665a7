package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import java.util.concurrent.Executor;
import org.springframework.integration.dsl.MessagingGatewaySpec;
import org.springframework.messaging.converter.MessageConverter;

/**
 * DSL spec of a {@link ReliableUdpInboundGateway}; {@code requestTimeout}, {@code replyTimeout},
 * {@code errorChannel} and {@code errorOnTimeout} come from Spring Integration's gateway spec.
 */
public class ReliableUdpInboundGatewaySpec extends MessagingGatewaySpec<ReliableUdpInboundGatewaySpec, ReliableUdpInboundGateway> {

    /**
     * Creates the spec.
     *
     * @param node the node to receive from
     */
    protected ReliableUdpInboundGatewaySpec(ManagedReliableUdpNode node) {
        super(new ReliableUdpInboundGateway(node));
    }

    /**
     * Creates the spec over a listener container.
     *
     * @param container the container the gateway wraps
     */
    protected ReliableUdpInboundGatewaySpec(UdpMessageListenerContainer container) {
        super(new ReliableUdpInboundGateway(container));
    }

    /**
     * Channels to receive requests from.
     *
     * @param channels names or indexes; every channel when none
     * @return the spec
     */
    public ReliableUdpInboundGatewaySpec channels(String... channels) {
        this.target.setChannels(channels);
        return this;
    }

    /**
     * Peers to receive requests from.
     *
     * @param peers names or {@code host:port}; every peer when none
     * @return the spec
     */
    public ReliableUdpInboundGatewaySpec peers(String... peers) {
        this.target.setPeers(peers);
        return this;
    }

    /**
     * Converts request payloads to a type (default {@code byte[]}).
     *
     * @param payloadType the type
     * @return the spec
     */
    public ReliableUdpInboundGatewaySpec payloadType(Class<?> payloadType) {
        this.target.setPayloadType(payloadType);
        return this;
    }

    /**
     * The converter of requests and replies.
     *
     * @param converter the converter
     * @return the spec
     */
    public ReliableUdpInboundGatewaySpec messageConverter(MessageConverter converter) {
        this.target.setMessageConverter(converter);
        return this;
    }

    /**
     * The executor requests are handled on.
     *
     * @param executor the executor
     * @return the spec
     */
    public ReliableUdpInboundGatewaySpec executor(Executor executor) {
        this.target.setExecutor(executor);
        return this;
    }
}
