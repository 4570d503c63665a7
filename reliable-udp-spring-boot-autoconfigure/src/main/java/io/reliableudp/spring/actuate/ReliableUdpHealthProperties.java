package io.reliableudp.spring.actuate;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Thresholds of the reliable-UDP health indicator. A configured peer whose smoothed RTT or packet
 * loss is above them makes the node {@code DEGRADED}.
 *
 * @param maxRtt highest acceptable smoothed round-trip time to a configured peer (default 1s)
 * @param maxLoss highest acceptable packet loss to a configured peer, as a ratio 0..1 (default 0.1, i.e. 10 %)
 */
@ConfigurationProperties("reliable-udp.health")
public record ReliableUdpHealthProperties(@Nullable Duration maxRtt, @Nullable Double maxLoss) {

    /** Default {@code max-rtt}. */
    public static final Duration DEFAULT_MAX_RTT = Duration.ofSeconds(1);

    /** Default {@code max-loss}. */
    public static final double DEFAULT_MAX_LOSS = 0.1;

    /**
     * Validates the thresholds.
     *
     * @throws IllegalArgumentException naming the property when a value is out of range
     */
    public ReliableUdpHealthProperties {
        if (maxRtt == null) {
            maxRtt = DEFAULT_MAX_RTT;
        }
        if (maxLoss == null) {
            maxLoss = DEFAULT_MAX_LOSS;
        }
        if (maxRtt.isNegative() || maxRtt.isZero()) {
            throw new IllegalArgumentException("reliable-udp.health.max-rtt must be > 0, was " + maxRtt);
        }
        if (!(maxLoss >= 0 && maxLoss <= 1)) {
            throw new IllegalArgumentException("reliable-udp.health.max-loss must be a ratio within 0..1 (0.05 = 5 %), was " + maxLoss);
        }
    }

    /** The defaults. */
    public static ReliableUdpHealthProperties defaults() {
        return new ReliableUdpHealthProperties(null, null);
    }

    /** {@code max-rtt}, never null. */
    @Override
    public Duration maxRtt() {
        Duration d = maxRtt;
        return d == null ? DEFAULT_MAX_RTT : d;
    }

    /** {@code max-loss}, never null. */
    @Override
    public Double maxLoss() {
        Double d = maxLoss;
        return d == null ? DEFAULT_MAX_LOSS : d;
    }
}
