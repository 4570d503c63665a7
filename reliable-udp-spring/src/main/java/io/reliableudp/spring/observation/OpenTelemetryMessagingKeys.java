package io.reliableudp.spring.observation;

import io.micrometer.common.docs.KeyName;

/**
 * The keys of OpenTelemetry's messaging semantic conventions that the OpenTelemetry conventions of
 * reliable-udp emit ({@link OpenTelemetryReliableUdpTemplateObservationConvention},
 * {@link OpenTelemetryReliableUdpListenerObservationConvention}), with reliable-udp's own attributes
 * under {@code messaging.reliable_udp.*}, where the conventions put a system's own attributes.
 */
public enum OpenTelemetryMessagingKeys implements KeyName {

    /** {@code reliable_udp}: the messaging system. Low cardinality. */
    MESSAGING_SYSTEM { @Override public String asString() { return "messaging.system"; } },
    /** {@code send} or {@code process}. Low cardinality. */
    MESSAGING_OPERATION_TYPE { @Override public String asString() { return "messaging.operation.type"; } },
    /** The system's name of the operation: {@code send} or {@code process}. Low cardinality. */
    MESSAGING_OPERATION_NAME { @Override public String asString() { return "messaging.operation.name"; } },
    /** The channel name: bounded by configuration, so low cardinality. */
    MESSAGING_DESTINATION_NAME { @Override public String asString() { return "messaging.destination.name"; } },
    /** The channel's delivery mode (reliable-udp's own). Low cardinality. */
    DELIVERY_MODE { @Override public String asString() { return "messaging.reliable_udp.delivery_mode"; } },
    /** The configured peer name, or "other" for every unnamed peer (reliable-udp's own). Low cardinality. */
    PEER_NAME { @Override public String asString() { return "messaging.reliable_udp.peer"; } },
    /** The listener id (reliable-udp's own). Low cardinality. */
    LISTENER_ID { @Override public String asString() { return "messaging.reliable_udp.listener.id"; } },
    /** The channel's 16-bit message id. High cardinality. */
    MESSAGING_MESSAGE_ID { @Override public String asString() { return "messaging.message.id"; } },
    /** The peer's IP address. High cardinality. */
    NETWORK_PEER_ADDRESS { @Override public String asString() { return "network.peer.address"; } },
    /** The peer's UDP port. High cardinality. */
    NETWORK_PEER_PORT { @Override public String asString() { return "network.peer.port"; } },
    /** The message's size in bytes as carried (the envelope: body and carried headers). High cardinality. */
    MESSAGING_MESSAGE_BODY_SIZE { @Override public String asString() { return "messaging.message.body.size"; } };

    /** The value of {@code messaging.system}. */
    public static final String SYSTEM = "reliable_udp";
}
