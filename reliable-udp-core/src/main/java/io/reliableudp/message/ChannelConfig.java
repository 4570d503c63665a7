package io.reliableudp.message;

import io.reliableudp.InvalidConfigurationException;

/**
 * One channel of a connection.
 *
 * @param mode delivery mode
 * @param maxQueuedMessages most messages waiting to be sent or acknowledged on this channel (values above
 *     32768, half the 16-bit id space, act as 32768)
 * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged on this channel
 */
public record ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes) {

    /** Default most queued messages per channel. */
    public static final int DEFAULT_MAX_QUEUED_MESSAGES = 4096;
    /** Default most queued payload bytes per channel (16 MiB). */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 16L * 1024 * 1024;

    /** Validates the values; a wrong one raises {@link InvalidConfigurationException} naming it. */
    public ChannelConfig {
        if (mode == null) {
            throw new InvalidConfigurationException("mode", null, "must not be null", "mode must not be null");
        }
        if (maxQueuedMessages < 1) {
            throw new InvalidConfigurationException("maxQueuedMessages", maxQueuedMessages, "must be >= 1");
        }
        if (maxQueuedBytes < 1) {
            throw new InvalidConfigurationException("maxQueuedBytes", maxQueuedBytes, "must be >= 1");
        }
    }

    /** A channel with the given mode and default queue limits. */
    public static ChannelConfig of(DeliveryMode mode) {
        return new ChannelConfig(mode, DEFAULT_MAX_QUEUED_MESSAGES, DEFAULT_MAX_QUEUED_BYTES);
    }
}
