package io.reliableudp.link;

import io.reliableudp.InvalidConfigurationException;

/**
 * Settings of the seeded link conditioner (one direction of a link). All probabilities are 0..1.
 *
 * @param latencyMillis fixed one-way delay
 * @param jitterMillis extra delay drawn uniformly from [0, jitter]; with reordering allowed this reorders
 * @param lossProbability independent (random) loss per datagram, in the good state of the burst model
 * @param burstEnterProbability Gilbert-Elliott: probability to move from the good to the bad state per datagram (0 = no bursts)
 * @param burstExitProbability Gilbert-Elliott: probability to move from the bad back to the good state per datagram
 * @param burstLossProbability loss probability while in the bad state
 * @param duplicateProbability probability a datagram is delivered twice
 * @param reorderProbability probability a datagram is held back by an extra {@code reorderDelayMillis}
 * @param reorderDelayMillis extra delay of a reordered datagram
 * @param bandwidthBytesPerSecond cap on the delivered rate (0 = unlimited); excess queues, then drops past {@code queueLimitBytes}
 * @param queueLimitBytes bottleneck queue size for the bandwidth cap
 * @param seed random seed: the same seed and inputs give the same fates
 */
public record LinkConditionerConfig(
        double latencyMillis,
        double jitterMillis,
        double lossProbability,
        double burstEnterProbability,
        double burstExitProbability,
        double burstLossProbability,
        double duplicateProbability,
        double reorderProbability,
        double reorderDelayMillis,
        long bandwidthBytesPerSecond,
        long queueLimitBytes,
        long seed) {

    /** A perfect link: no delay, no loss. */
    public static final LinkConditionerConfig PERFECT =
            new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 1);

    /** Validates the values; a wrong one raises {@link InvalidConfigurationException} naming it. */
    public LinkConditionerConfig {
        nonNegative("latencyMillis", latencyMillis);
        nonNegative("jitterMillis", jitterMillis);
        probability("lossProbability", lossProbability);
        probability("burstEnterProbability", burstEnterProbability);
        probability("burstExitProbability", burstExitProbability);
        probability("burstLossProbability", burstLossProbability);
        probability("duplicateProbability", duplicateProbability);
        probability("reorderProbability", reorderProbability);
        nonNegative("reorderDelayMillis", reorderDelayMillis);
        nonNegative("bandwidthBytesPerSecond", bandwidthBytesPerSecond);
        if (queueLimitBytes < 1) {
            throw new InvalidConfigurationException("queueLimitBytes", queueLimitBytes, "must be >= 1");
        }
    }

    private static void nonNegative(String name, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new InvalidConfigurationException(name, value, "must be a finite number >= 0");
        }
    }

    private static void probability(String name, double value) {
        if (!(value >= 0 && value <= 1)) {
            throw new InvalidConfigurationException(name, value, "must be within 0..1");
        }
    }
}
