package io.reliableudp.bench.systems;

/**
 * The outcome of one throughput measurement.
 *
 * @param messagesPerSecond messages delivered per second during the measured window
 * @param sent messages the sender handed to the system over the whole run (ramp-up included)
 * @param delivered messages the receiver got over the whole run, after the drain
 */
public record ThroughputRun(double messagesPerSecond, long sent, long delivered) {

    /** True when every message sent was delivered. */
    public boolean complete() {
        return delivered == sent;
    }
}
