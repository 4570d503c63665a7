package io.reliableudp.message;

/**
 * The largest sample of the last one to two windows of time (BBR's windowed filter, in its simplest
 * two-bucket form): samples go into the current bucket; a sample a window or more after the bucket
 * started begins a new one and the old one becomes the previous (forgotten when it is more than two
 * windows old). Allocation-free; one connection's, on its thread.
 */
final class WindowedMax {

    private final double window;
    private double current = -1;
    private double previous = -1;
    private double bucketStart = -1;

    /** A filter over {@code windowSeconds}-long buckets. */
    WindowedMax(double windowSeconds) {
        this.window = windowSeconds;
    }

    /** Takes {@code value} (at least 0), sampled at {@code time} (seconds). */
    void sample(double time, double value) {
        if (bucketStart < 0 || time - bucketStart >= window) {
            previous = bucketStart >= 0 && time - bucketStart < 2 * window ? current : -1;
            current = -1;
            bucketStart = time;
        }
        if (value > current) {
            current = value;
        }
    }

    /** The largest sample of the current and the previous bucket, -1 before any. */
    double get() {
        return Math.max(current, previous);
    }
}
