package io.reliableudp.spring.observation;

import io.micrometer.common.KeyValues;
import io.reliableudp.spring.support.InboundUdpMessage;
import java.net.InetSocketAddress;

/**
 * Listener observations with the keys of OpenTelemetry's messaging semantic conventions: low cardinality
 * {@code messaging.system}, {@code messaging.operation.type} and {@code .name} ({@code process}: the
 * container pushes each message to the listener), {@code messaging.destination.name} (the channel), and
 * reliable-udp's own {@code messaging.reliable_udp.listener.id} and {@code messaging.reliable_udp.peer};
 * high cardinality {@code messaging.message.id}, {@code network.peer.address}, {@code network.peer.port} and
 * {@code messaging.message.body.size}. The span is named {@code process <channel>}; the observation (and so
 * its timer) keeps the name {@code reliable.udp.process}.
 */
public class OpenTelemetryReliableUdpListenerObservationConvention implements ReliableUdpListenerObservationConvention {

    /** A shared instance. */
    public static final OpenTelemetryReliableUdpListenerObservationConvention INSTANCE = new OpenTelemetryReliableUdpListenerObservationConvention();

    private static final String OPERATION = "process";

    @Override
    public String getContextualName(ReliableUdpReceiverContext context) {
        return OPERATION + " " + context.getMessage().channel().name();
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ReliableUdpReceiverContext context) {
        InboundUdpMessage m = context.getMessage();
        return KeyValues.of(
                OpenTelemetryMessagingKeys.MESSAGING_SYSTEM.withValue(OpenTelemetryMessagingKeys.SYSTEM),
                OpenTelemetryMessagingKeys.MESSAGING_OPERATION_TYPE.withValue(OPERATION),
                OpenTelemetryMessagingKeys.MESSAGING_OPERATION_NAME.withValue(OPERATION),
                OpenTelemetryMessagingKeys.MESSAGING_DESTINATION_NAME.withValue(m.channel().name()),
                OpenTelemetryMessagingKeys.LISTENER_ID.withValue(context.getListenerId()),
                OpenTelemetryMessagingKeys.PEER_NAME.withValue(m.peerName() != null ? m.peerName() : ReliableUdpObservation.UNKNOWN_PEER));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ReliableUdpReceiverContext context) {
        InboundUdpMessage m = context.getMessage();
        InetSocketAddress a = m.address();
        return KeyValues.of(
                OpenTelemetryMessagingKeys.MESSAGING_MESSAGE_ID.withValue(Integer.toString(m.messageId())),
                OpenTelemetryMessagingKeys.NETWORK_PEER_ADDRESS.withValue(a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString()),
                OpenTelemetryMessagingKeys.NETWORK_PEER_PORT.withValue(Integer.toString(a.getPort())),
                OpenTelemetryMessagingKeys.MESSAGING_MESSAGE_BODY_SIZE.withValue(Integer.toString(m.payload().length)));
    }
}
