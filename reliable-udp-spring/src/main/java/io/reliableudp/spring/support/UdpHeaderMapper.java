package io.reliableudp.spring.support;

import java.util.Map;

/**
 * Decides which message headers travel in the envelope and which received envelope headers a
 * listener sees: the header-mapping strategy of {@link ReliableUdpMessageMapper}, shared by the
 * template (outbound) and the listener containers (inbound), as Spring Kafka's {@code KafkaHeaderMapper}
 * and Spring AMQP's {@code AmqpHeaderMapper} are. Transport headers ({@link ReliableUdpHeaders#PREFIX})
 * are never carried nor accepted from the envelope, whatever the mapper says: they come from the
 * connection.
 */
public interface UdpHeaderMapper {

    /**
     * Outbound: copies the headers to carry into the envelope's header map.
     *
     * @param headers the headers given to the send
     * @param target the envelope's headers (values of types the envelope cannot carry are left out later)
     */
    void fromHeaders(Map<String, ?> headers, Map<String, Object> target);

    /**
     * Inbound: copies the envelope's headers the listener may see into the message headers.
     *
     * @param envelopeHeaders the headers decoded from the envelope
     * @param target the message headers being built
     */
    void toHeaders(Map<String, Object> envelopeHeaders, Map<String, Object> target);
}
