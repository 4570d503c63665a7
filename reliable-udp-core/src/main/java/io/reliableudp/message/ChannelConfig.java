package io.reliableudp.message;

import io.reliableudp.InvalidConfigurationException;
import io.reliableudp.TrafficClass;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One channel of a connection.
 *
 * @param mode delivery mode
 * @param maxQueuedMessages most messages waiting to be sent or acknowledged on this channel (values above
 *     32768, half the 16-bit id space, act as 32768)
 * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged on this channel
 * @param redundancy on a reliable channel, how many of the packets sent after the one carrying a small
 *     message (payload at most {@link #REDUNDANT_MAX_PAYLOAD} bytes) also carry a copy of it while it is
 *     unacknowledged, in the room they have left (0..{@link #MAX_REDUNDANCY}, default 0: none); lowers the
 *     latency of a lost message at a bandwidth cost (docs/messages.md, "Redundancy"). Ignored on
 *     unreliable channels.
 * @param ttlMillis time-to-live of every message of the channel, in milliseconds (0: none, the
 *     default): a message not acknowledged in time is neither sent nor resent any more, its future fails
 *     with {@link DeliveryFailure#EXPIRED}, and the peer skips it (docs/messages.md, "Time-to-live"); a
 *     send may give its own
 * @param trafficClass the DSCP this channel's datagrams carry, or empty (the default) for the node's
 *     ({@code NodeConfig#trafficClass}); a datagram carries one channel class only, so channels of
 *     different classes never share a datagram (docs/operations.md, "Traffic class (DSCP)"). An
 *     {@code Optional} rather than a {@code @Nullable} component: the fuzz tests' instrumentation (Jazzer)
 *     drops the fields of a record whose component carries a type annotation
 */
public record ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes, int redundancy,
                            int ttlMillis, Optional<TrafficClass> trafficClass) {

    /** Default most queued messages per channel. */
    public static final int DEFAULT_MAX_QUEUED_MESSAGES = 4096;
    /** Default most queued payload bytes per channel (16 MiB). */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 16L * 1024 * 1024;
    /** Largest {@link #redundancy()}. */
    public static final int MAX_REDUNDANCY = 8;
    /** Largest payload that gets redundant copies: a message bigger than this is never copied. */
    public static final int REDUNDANT_MAX_PAYLOAD = 256;

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
        if (trafficClass == null) {
            throw new InvalidConfigurationException("trafficClass", null, "must not be null (empty: the node's)");
        }
        if (redundancy < 0 || redundancy > MAX_REDUNDANCY) {
            throw new InvalidConfigurationException("redundancy", redundancy, "must be within 0.." + MAX_REDUNDANCY);
        }
        if (ttlMillis < 0) {
            throw new InvalidConfigurationException("ttlMillis", ttlMillis, "must be >= 0 (0: no time-to-live)");
        }
    }

    /**
     * A channel without a time-to-live, with the node's traffic class.
     *
     * @param mode delivery mode
     * @param maxQueuedMessages most messages waiting to be sent or acknowledged
     * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged
     * @param redundancy copies of each small reliable message in the next packets
     */
    public ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes, int redundancy) {
        this(mode, maxQueuedMessages, maxQueuedBytes, redundancy, 0, Optional.empty());
    }

    /**
     * A channel with the node's traffic class.
     *
     * @param mode delivery mode
     * @param maxQueuedMessages most messages waiting to be sent or acknowledged
     * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged
     * @param redundancy copies of each small reliable message in the next packets
     * @param ttlMillis time-to-live of every message in milliseconds (0: none)
     */
    public ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes, int redundancy, int ttlMillis) {
        this(mode, maxQueuedMessages, maxQueuedBytes, redundancy, ttlMillis, Optional.empty());
    }

    /**
     * A channel without a time-to-live.
     *
     * @param mode delivery mode
     * @param maxQueuedMessages most messages waiting to be sent or acknowledged
     * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged
     * @param redundancy copies of each small reliable message in the next packets
     * @param trafficClass the DSCP of this channel's datagrams, or empty for the node's
     */
    public ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes, int redundancy,
                         Optional<TrafficClass> trafficClass) {
        this(mode, maxQueuedMessages, maxQueuedBytes, redundancy, 0, trafficClass);
    }

    /**
     * A channel without redundancy.
     *
     * @param mode delivery mode
     * @param maxQueuedMessages most messages waiting to be sent or acknowledged
     * @param maxQueuedBytes most payload bytes waiting to be sent or acknowledged
     */
    public ChannelConfig(DeliveryMode mode, int maxQueuedMessages, long maxQueuedBytes) {
        this(mode, maxQueuedMessages, maxQueuedBytes, 0);
    }

    /** A channel with the given mode and default queue limits. */
    public static ChannelConfig of(DeliveryMode mode) {
        return new ChannelConfig(mode, DEFAULT_MAX_QUEUED_MESSAGES, DEFAULT_MAX_QUEUED_BYTES);
    }

    /**
     * This channel with {@link #redundancy()} set to {@code k}.
     *
     * @param k copies of each small reliable message in the next packets (0..{@link #MAX_REDUNDANCY})
     * @return the new channel config
     */
    public ChannelConfig redundancy(int k) {
        return new ChannelConfig(mode, maxQueuedMessages, maxQueuedBytes, k, ttlMillis, trafficClass);
    }

    /**
     * This channel with {@link #trafficClass()} set to {@code c}.
     *
     * @param c the DSCP of this channel's datagrams, or null for the node's
     * @return the new channel config
     */
    public ChannelConfig trafficClass(@Nullable TrafficClass c) {
        return new ChannelConfig(mode, maxQueuedMessages, maxQueuedBytes, redundancy, ttlMillis, Optional.ofNullable(c));
    }

    /**
     * This channel with {@link #ttlMillis()} set.
     *
     * @param ttl time-to-live of every message of the channel (zero: none), at most {@code Integer.MAX_VALUE} ms
     * @return the new channel config
     */
    public ChannelConfig ttl(java.time.Duration ttl) {
        long ms = ttl.toMillis();
        if (ms < 0 || ms > Integer.MAX_VALUE || (ms == 0 && !ttl.isZero())) {
            throw new InvalidConfigurationException("ttl", ttl, "must be zero or within 1 ms..24 days");
        }
        return new ChannelConfig(mode, maxQueuedMessages, maxQueuedBytes, redundancy, (int) ms, trafficClass);
    }
}
