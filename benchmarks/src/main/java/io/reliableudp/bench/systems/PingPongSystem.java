package io.reliableudp.bench.systems;

import org.HdrHistogram.Histogram;

/**
 * One system measured by the {@code pingpong} benchmark: one message at a time goes to an echo and
 * back over loopback, and every round trip is recorded.
 */
public interface PingPongSystem extends BenchSystem {

    /**
     * Plays ping-pong with {@code size}-byte messages for {@code seconds} and returns the round-trip
     * times in nanoseconds.
     *
     * @throws IllegalStateException when the exchange stalls (a round trip longer than a few seconds)
     */
    Histogram measure(int size, double seconds) throws Exception;

    /**
     * Process CPU, in cores, of the last measurement for a system that runs in a child JVM (the
     * child's); NaN for one in this JVM, whose CPU the benchmark measures itself.
     */
    default double lastCpuCores() {
        return Double.NaN;
    }
}
