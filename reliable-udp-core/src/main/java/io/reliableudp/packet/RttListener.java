package io.reliableudp.packet;

/**
 * Told about every round-trip-time sample the endpoint takes: one per newly acknowledged packet,
 * {@code (now - sent time) * 1000} milliseconds, after the smoothed RTT took it in.
 */
@FunctionalInterface
public interface RttListener {

    /**
     * An RTT sample was taken. Called during {@link ReliableEndpoint#receivePacket}, on its thread:
     * must be cheap and must not call back into the endpoint.
     *
     * @param sequence the acknowledged sequence the sample belongs to
     * @param rttMillis the sample, in milliseconds
     */
    void rttSample(int sequence, float rttMillis);
}
