package io.reliableudp.spring.observation;

import io.micrometer.observation.transport.SenderContext;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.UdpChannel;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The context of a send observation. Its carrier is the header map that goes into the envelope, so a
 * tracing handler's propagator writes the trace context there and the receiver continues the trace.
 */
public class ReliableUdpSenderContext extends SenderContext<Map<String, Object>> {

    private final String peer;
    private final UdpChannel channel;
    private @Nullable SendResult result;

    /**
     * Creates the context.
     *
     * @param headers the headers that will be carried in the envelope (the propagation carrier)
     * @param peer the peer's name or address
     * @param channel the channel
     */
    @SuppressWarnings("this-escape")
    public ReliableUdpSenderContext(Map<String, Object> headers, String peer, UdpChannel channel) {
        super((carrier, key, value) -> carrier.put(key, value));
        setCarrier(headers);
        setRemoteServiceName("reliable-udp");
        this.peer = peer;
        this.channel = channel;
    }

    /** The peer's name or address as the application gave it. */
    public String getPeer() {
        return peer;
    }

    /** The channel. */
    public UdpChannel getChannel() {
        return channel;
    }

    /** The result once acknowledged, else null. */
    public @Nullable SendResult getResult() {
        return result;
    }

    /**
     * Sets the result when the send completed.
     *
     * @param result the result
     */
    public void setResult(SendResult result) {
        this.result = result;
    }
}
