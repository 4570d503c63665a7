package io.reliableudp.message;

/**
 * One channel of a connection.
 *
 * @param mode delivery mode
 * @param maxQueuedMessages most messages waiting to be sent or acknowledged on this channel
 * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged on this channel
 */
public record ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes) {

    public static final int DEFAULT_MAX_QUEUED_MESSAGES = 4096;
    public static final long DEFAULT_MAX_QUEUED_BYTES = 16L * 1024 * 1024;

    public ChannelConfig {
        if (mode == null) {
            throw new IllegalArgumentException("mode must not be null");
        }
        if (maxQueuedMessages < 1) {
            throw new IllegalArgumentException("maxQueuedMessages must be >= 1, was " + maxQueuedMessages);
        }
        if (maxQueuedBytes < 1) {
            throw new IllegalArgumentException("maxQueuedBytes must be >= 1, was " + maxQueuedBytes);
        }
    }

    /** A channel with the given mode and default queue limits. */
    public static ChannelConfig of(DeliveryMode mode) {
        return new ChannelConfig(mode, DEFAULT_MAX_QUEUED_MESSAGES, DEFAULT_MAX_QUEUED_BYTES);
    }
}
