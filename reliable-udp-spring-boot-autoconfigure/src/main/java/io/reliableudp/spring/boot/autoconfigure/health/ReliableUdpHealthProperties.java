package io.reliableudp.spring.boot.autoconfigure.health;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Thresholds of the reliable-UDP health indicator. A configured peer whose smoothed RTT or packet
 * loss is above them makes the node {@code DEGRADED}.
 *
 * @param maxRtt Highest acceptable smoothed round-trip time to a configured peer before the health is DEGRADED.
 * @param maxLoss Highest acceptable packet loss to a configured peer, as a ratio 0..1 (0.1 = 10 %), before the health is DEGRADED.
 */
@ConfigurationProperties("reliable-udp.health")
public record ReliableUdpHealthProperties(@DefaultValue("1s") Duration maxRtt, @DefaultValue("0.1") double maxLoss) {

    /**
     * Validates the thresholds.
     *
     * @throws IllegalArgumentException naming the property when a value is out of range
     */
    public ReliableUdpHealthProperties {
        if (maxRtt == null || maxRtt.isNegative() || maxRtt.isZero()) {
            throw new IllegalArgumentException("reliable-udp.health.max-rtt must be > 0, was " + maxRtt);
        }
        if (!(maxLoss >= 0 && maxLoss <= 1)) {
            throw new IllegalArgumentException("reliable-udp.health.max-loss must be a ratio within 0..1 (0.05 = 5 %), was " + maxLoss);
        }
    }

    /** The defaults: 1 s and 0.1. */
    public static ReliableUdpHealthProperties defaults() {
        return new ReliableUdpHealthProperties(Duration.ofSeconds(1), 0.1);
    }
}
