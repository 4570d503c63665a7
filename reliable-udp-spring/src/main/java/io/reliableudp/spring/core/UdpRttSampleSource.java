package io.reliableudp.spring.core;

/**
 * A node whose per-packet RTT samples can be observed ({@link ManagedReliableUdpNode} is one); the
 * metrics record them into the {@code reliable.udp.rtt.samples} timer.
 */
public interface UdpRttSampleSource {

    /**
     * Adds a subscriber for RTT samples.
     *
     * @param subscriber the subscriber
     */
    void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber);

    /**
     * Removes a subscriber (no effect when it was not added).
     *
     * @param subscriber the subscriber
     */
    void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber);
}
