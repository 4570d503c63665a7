package io.reliableudp.spring.boot.autoconfigure.metrics;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the reliable-UDP meters.
 *
 * @param refreshInterval How often the node and peer statistics are read into the meters and
 *     meters of new or departed peers are registered or removed (at least 10ms).
 */
@ConfigurationProperties("reliable-udp.metrics")
public record ReliableUdpMetricsProperties(@DefaultValue("1s") Duration refreshInterval) {

    /**
     * Validates the settings.
     *
     * @throws IllegalArgumentException naming the property when a value is out of range
     */
    public ReliableUdpMetricsProperties {
        if (refreshInterval == null || refreshInterval.compareTo(Duration.ofMillis(10)) < 0) {
            throw new IllegalArgumentException("reliable-udp.metrics.refresh-interval must be at least 10ms, was " + refreshInterval);
        }
    }
}
