package io.reliableudp.spring.observation;

import io.micrometer.observation.transport.ReceiverContext;
import io.reliableudp.spring.support.InboundUdpMessage;
import java.util.Map;

/**
 * The context of a listener (process) observation. Its carrier is the header map decoded from the
 * envelope, from which a tracing handler's propagator reads the sender's trace context.
 */
public class ReliableUdpReceiverContext extends ReceiverContext<Map<String, Object>> {

    private final InboundUdpMessage message;
    private final String listenerId;

    /**
     * Creates the context.
     *
     * @param headers the headers carried in the envelope
     * @param message the received message
     * @param listenerId the listener (container) id
     */
    @SuppressWarnings("this-escape")
    public ReliableUdpReceiverContext(Map<String, Object> headers, InboundUdpMessage message, String listenerId) {
        super((carrier, key) -> {
            Object v = carrier.get(key);
            return v == null ? null : v.toString();
        });
        setCarrier(headers);
        setRemoteServiceName("reliable-udp");
        this.message = message;
        this.listenerId = listenerId;
    }

    /** The received message. */
    public InboundUdpMessage getMessage() {
        return message;
    }

    /** The listener (container) id. */
    public String getListenerId() {
        return listenerId;
    }
}
