package io.reliableudp.spring.observation;

import io.micrometer.common.KeyValues;
import io.reliableudp.spring.support.SendResult;
import java.net.InetSocketAddress;

/**
 * Send observations with the keys of OpenTelemetry's messaging semantic conventions, which tracing
 * back ends group and search by: low cardinality (span attributes and meter tags) {@code messaging.system},
 * {@code messaging.operation.type} and {@code .name} ({@code send}), {@code messaging.destination.name}
 * (the channel: bounded by configuration), and reliable-udp's own {@code messaging.reliable_udp.delivery_mode}
 * and {@code messaging.reliable_udp.peer}; high cardinality (span attributes only) {@code messaging.message.id},
 * {@code network.peer.address}, {@code network.peer.port} and {@code messaging.message.body.size}, known when the
 * peer acknowledged. The span is named {@code send <channel>}; the observation (and so its timer) keeps the
 * name {@code reliable.udp.send}.
 */
public class OpenTelemetryReliableUdpTemplateObservationConvention implements ReliableUdpTemplateObservationConvention {

    /** A shared instance. */
    public static final OpenTelemetryReliableUdpTemplateObservationConvention INSTANCE = new OpenTelemetryReliableUdpTemplateObservationConvention();

    private static final String OPERATION = "send";

    @Override
    public String getContextualName(ReliableUdpSenderContext context) {
        return OPERATION + " " + context.getChannel().name();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ReliableUdpSenderContext context) {
        SendResult r = context.getResult();
        return KeyValues.of(
                OpenTelemetryMessagingKeys.MESSAGING_SYSTEM.withValue(OpenTelemetryMessagingKeys.SYSTEM),
                OpenTelemetryMessagingKeys.MESSAGING_OPERATION_TYPE.withValue(OPERATION),
                OpenTelemetryMessagingKeys.MESSAGING_OPERATION_NAME.withValue(OPERATION),
                OpenTelemetryMessagingKeys.MESSAGING_DESTINATION_NAME.withValue(context.getChannel().name()),
                OpenTelemetryMessagingKeys.DELIVERY_MODE.withValue(context.getChannel().mode().name()),
                OpenTelemetryMessagingKeys.PEER_NAME.withValue(
                        r != null && r.peerName() != null ? r.peerName() : ReliableUdpObservation.UNKNOWN_PEER));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ReliableUdpSenderContext context) {
        SendResult r = context.getResult();
        if (r == null) {
            return KeyValues.empty();   // failed before an acknowledgement: no message id, no address resolved
        }
        InetSocketAddress a = r.peerAddress();
        return KeyValues.of(
                OpenTelemetryMessagingKeys.MESSAGING_MESSAGE_ID.withValue(Integer.toString(r.messageId())),
                OpenTelemetryMessagingKeys.NETWORK_PEER_ADDRESS.withValue(a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString()),
                OpenTelemetryMessagingKeys.NETWORK_PEER_PORT.withValue(Integer.toString(a.getPort())),
                OpenTelemetryMessagingKeys.MESSAGING_MESSAGE_BODY_SIZE.withValue(Integer.toString(r.payloadBytes())));
    }
}
