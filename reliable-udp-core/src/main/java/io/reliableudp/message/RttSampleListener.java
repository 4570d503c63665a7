package io.reliableudp.message;

/**
 * Told about every round-trip-time sample of the packet layer below a {@link MessageEndpoint}: one per
 * newly acknowledged packet, in milliseconds. Lets the layers above observe RTT without reaching
 * into the packet layer. Called during {@link MessageEndpoint#receive}, on its thread: must be cheap,
 * allocate nothing and not call back into the endpoint.
 */
@FunctionalInterface
public interface RttSampleListener {

    /**
     * One RTT sample.
     *
     * @param rttMillis the sample, in milliseconds
     */
    void onRttSample(float rttMillis);
}
