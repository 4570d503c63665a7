package io.reliableudp.spring.metrics;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the reliable-UDP meters.
 *
 * @param refreshInterval how often the node and peer statistics are read into the meters and
 *     meters of new or departed peers are registered or removed (default 1 s, at least 10 ms)
 */
@ConfigurationProperties("reliable-udp.metrics")
public record ReliableUdpMetricsProperties(@Nullable Duration refreshInterval) {

    /** The default refresh interval. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(1);

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the property when a value is out of range
     */
    public ReliableUdpMetricsProperties {
        if (refreshInterval == null) {
            refreshInterval = DEFAULT_REFRESH_INTERVAL;
        }
        if (refreshInterval.compareTo(Duration.ofMillis(10)) < 0) {
            throw new IllegalArgumentException("reliable-udp.metrics.refresh-interval must be at least 10ms, was " + refreshInterval);
        }
    }

    /** The refresh interval, never null. */
    @Override
    public Duration refreshInterval() {
        Duration d = refreshInterval;
        return d == null ? DEFAULT_REFRESH_INTERVAL : d;
    }
}
