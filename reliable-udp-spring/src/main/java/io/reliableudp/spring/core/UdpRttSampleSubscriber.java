package io.reliableudp.spring.core;

import io.reliableudp.transport.Peer;

/**
 * Receives every round-trip-time sample of a node's connections (see
 * {@link io.reliableudp.transport.NodeListener#onRttSample}). Called on the node's receive thread,
 * once per acknowledged packet: must be cheap (record into a histogram), must not block and should
 * not throw (an exception is logged and counted).
 */
@FunctionalInterface
public interface UdpRttSampleSubscriber {

    /**
     * One RTT sample.
     *
     * @param peer the connection
     * @param rttMillis the sample, in milliseconds
     */
    void onRttSample(Peer peer, float rttMillis);
}
