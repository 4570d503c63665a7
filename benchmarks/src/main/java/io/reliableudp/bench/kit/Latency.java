package io.reliableudp.bench.kit;

import java.util.LinkedHashMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * Latency percentiles of one measurement (HdrHistogram, 3 significant digits, 1 ns to 1 hour), reported as the
 * figures {@code avg_ms, p50_ms, p90_ms, p99_ms, p99_9_ms, max_ms}.
 */
public final class Latency {

    /** The figure names, in report order. */
    public static final String[] FIGURES = {"avg_ms", "p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "max_ms"};

    private final Histogram histogram = new Histogram(3_600_000_000_000L, 3);

    /** Records one latency; values outside 1 ns .. 1 h are clamped into that range. */
    public void record(long nanos) {
        histogram.recordValue(Math.max(1, Math.min(nanos, histogram.getHighestTrackableValue())));
    }

    /** How many latencies were recorded. */
    public long count() {
        return histogram.getTotalCount();
    }

    /** The figures in milliseconds ({@link #FIGURES}); empty when nothing was recorded. */
    public Map<String, Double> figuresMillis() {
        Map<String, Double> f = new LinkedHashMap<>();
        if (histogram.getTotalCount() == 0) {
            return f;
        }
        f.put("avg_ms", histogram.getMean() / 1e6);
        f.put("p50_ms", histogram.getValueAtPercentile(50) / 1e6);
        f.put("p90_ms", histogram.getValueAtPercentile(90) / 1e6);
        f.put("p99_ms", histogram.getValueAtPercentile(99) / 1e6);
        f.put("p99_9_ms", histogram.getValueAtPercentile(99.9) / 1e6);
        f.put("max_ms", histogram.getMaxValue() / 1e6);
        return f;
    }
}
