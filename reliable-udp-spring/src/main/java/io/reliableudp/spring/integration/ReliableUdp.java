package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;

/**
 * Spring Integration Java DSL entry point.
 *
 * <pre>{@code
 * IntegrationFlow.from(ReliableUdp.inboundAdapter(node).channels("events").payloadType(Position.class))
 *         .handle(...)
 *         .get();
 * IntegrationFlow.from("toPeer")
 *         .handle(ReliableUdp.outboundGateway(template).peer("server").channel("events").replyType(Ack.class))
 *         .handle(m -> log((Ack) m.getPayload()))
 *         .get();
 * IntegrationFlow.from(ReliableUdp.inboundGateway(node).channels("quotes").payloadType(Order.class).replyTimeout(2000))
 *         .handle(Order.class, (order, headers) -> quote(order))   // the reply goes back to the requester
 *         .get();
 * }</pre>
 */
public final class ReliableUdp {

    private ReliableUdp() {
    }

    /**
     * An inbound channel adapter.
     *
     * @param node the node to receive from
     * @return the spec
     */
    public static ReliableUdpInboundChannelAdapterSpec inboundAdapter(ManagedReliableUdpNode node) {
        return new ReliableUdpInboundChannelAdapterSpec(node);
    }

    /**
     * An inbound channel adapter over a listener container (its filters, executor and observation).
     *
     * @param container the container; the adapter becomes its handler and runs its lifecycle
     * @return the spec
     */
    public static ReliableUdpInboundChannelAdapterSpec inboundAdapter(UdpMessageListenerContainer container) {
        return new ReliableUdpInboundChannelAdapterSpec(container);
    }

    /**
     * An inbound gateway: answers each request with the flow's reply.
     *
     * @param node the node to receive from
     * @return the spec
     */
    public static ReliableUdpInboundGatewaySpec inboundGateway(ManagedReliableUdpNode node) {
        return new ReliableUdpInboundGatewaySpec(node);
    }

    /**
     * An inbound gateway over a listener container (its filters, hooks, executor and observation).
     *
     * @param container the container; the gateway becomes its handler and runs its lifecycle
     * @return the spec
     */
    public static ReliableUdpInboundGatewaySpec inboundGateway(UdpMessageListenerContainer container) {
        return new ReliableUdpInboundGatewaySpec(container);
    }

    /**
     * A one-way outbound adapter.
     *
     * @param template the template to send with
     * @return the spec
     */
    public static ReliableUdpMessageHandlerSpec outboundAdapter(ReliableUdpTemplate template) {
        return new ReliableUdpMessageHandlerSpec(template, false);
    }

    /**
     * An outbound gateway: request/reply, the reply is the remote listener's answer
     * ({@code acknowledgementOnly(true)}: the {@link io.reliableudp.spring.support.SendResult} once acknowledged).
     *
     * @param template the template to send with
     * @return the spec
     */
    public static ReliableUdpMessageHandlerSpec outboundGateway(ReliableUdpTemplate template) {
        return new ReliableUdpMessageHandlerSpec(template, true);
    }
}
