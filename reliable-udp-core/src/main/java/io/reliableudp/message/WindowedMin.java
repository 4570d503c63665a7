package io.reliableudp.message;

/**
 * The smallest sample of the last one to two windows of time: {@link WindowedMax}'s two-bucket filter
 * for minima (the min RTT of the RTT estimates and of the delivery-rate controller's model). Samples go
 * into the current bucket; a sample a window or more after the bucket started begins a new one and the
 * old one becomes the previous (forgotten when it is more than two windows old). Allocation-free; one
 * connection's, on its thread.
 */
final class WindowedMin {

    private final double window;
    private double current = -1;
    private double previous = -1;
    private double bucketStart = -1;

    /** A filter over {@code windowSeconds}-long buckets. */
    WindowedMin(double windowSeconds) {
        this.window = windowSeconds;
    }

    /** Takes {@code value} (at least 0), sampled at {@code time} (seconds). */
    void sample(double time, double value) {
        if (bucketStart < 0 || time - bucketStart >= window) {
            previous = bucketStart >= 0 && time - bucketStart < 2 * window ? current : -1;
            current = -1;
            bucketStart = time;
        }
        if (current < 0 || value < current) {
            current = value;
        }
    }

    /** The smallest sample of the current and the previous bucket, -1 before any. */
    double get() {
        if (previous < 0) {
            return current;
        }
        return current < 0 ? previous : Math.min(current, previous);
    }
}
