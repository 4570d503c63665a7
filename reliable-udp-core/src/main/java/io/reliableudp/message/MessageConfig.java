package io.reliableudp.message;

import java.util.ArrayList;
import java.util.List;

/**
 * Settings of the message layer of one connection. Immutable; build with {@link #builder()}.
 * Every value is validated when built: a wrong one raises {@link IllegalArgumentException} naming it.
 *
 * <p>Owned by the message layer: fields may be added, none renamed without updating callers.
 */
public final class MessageConfig {

    /** Most channels a connection may have. */
    public static final int MAX_CHANNELS = 64;

    private final List<ChannelConfig> channels;
    private final int datagramBudget;
    private final int lowerLayerOverhead;
    private final ResendPolicy resendPolicy;
    private final double resendRttFactor;
    private final double minResendIntervalSeconds;
    private final double maxResendIntervalSeconds;
    private final int maxMessageSize;
    private final int sliceSize;
    private final long maxBytesInFlight;
    private final boolean congestionAvoidance;

    private MessageConfig(Builder b) {
        if (b.channels.isEmpty() || b.channels.size() > MAX_CHANNELS) {
            throw new IllegalArgumentException("channels must hold 1.." + MAX_CHANNELS + " channels, had " + b.channels.size());
        }
        if (b.datagramBudget < 256 || b.datagramBudget > 65_507) {
            throw new IllegalArgumentException("datagramBudget must be within 256..65507 bytes, was " + b.datagramBudget);
        }
        if (b.lowerLayerOverhead < 0 || b.lowerLayerOverhead > b.datagramBudget / 2) {
            throw new IllegalArgumentException("lowerLayerOverhead must be within 0..datagramBudget/2, was " + b.lowerLayerOverhead);
        }
        if (!(b.resendRttFactor >= 0.5 && b.resendRttFactor <= 10)) {
            throw new IllegalArgumentException("resendRttFactor must be within 0.5..10, was " + b.resendRttFactor);
        }
        if (!(b.minResendIntervalSeconds >= 0 && b.minResendIntervalSeconds <= b.maxResendIntervalSeconds)) {
            throw new IllegalArgumentException("minResendIntervalSeconds must be within 0..maxResendIntervalSeconds, was " + b.minResendIntervalSeconds);
        }
        if (!(b.maxResendIntervalSeconds > 0 && b.maxResendIntervalSeconds <= 60)) {
            throw new IllegalArgumentException("maxResendIntervalSeconds must be within (0, 60], was " + b.maxResendIntervalSeconds);
        }
        if (b.maxMessageSize < 1) {
            throw new IllegalArgumentException("maxMessageSize must be >= 1, was " + b.maxMessageSize);
        }
        if (b.sliceSize < 64 || b.sliceSize > 1024) {
            throw new IllegalArgumentException("sliceSize must be within 64..1024 bytes, was " + b.sliceSize);
        }
        if (b.maxBytesInFlight < b.sliceSize) {
            throw new IllegalArgumentException("maxBytesInFlight must be >= sliceSize, was " + b.maxBytesInFlight);
        }
        this.channels = List.copyOf(b.channels);
        this.datagramBudget = b.datagramBudget;
        this.lowerLayerOverhead = b.lowerLayerOverhead;
        this.resendPolicy = b.resendPolicy;
        this.resendRttFactor = b.resendRttFactor;
        this.minResendIntervalSeconds = b.minResendIntervalSeconds;
        this.maxResendIntervalSeconds = b.maxResendIntervalSeconds;
        this.maxMessageSize = b.maxMessageSize;
        this.sliceSize = b.sliceSize;
        this.maxBytesInFlight = b.maxBytesInFlight;
        this.congestionAvoidance = b.congestionAvoidance;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static MessageConfig defaults() {
        return builder().build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.channels = new ArrayList<>(channels);
        b.datagramBudget = datagramBudget;
        b.lowerLayerOverhead = lowerLayerOverhead;
        b.resendPolicy = resendPolicy;
        b.resendRttFactor = resendRttFactor;
        b.minResendIntervalSeconds = minResendIntervalSeconds;
        b.maxResendIntervalSeconds = maxResendIntervalSeconds;
        b.maxMessageSize = maxMessageSize;
        b.sliceSize = sliceSize;
        b.maxBytesInFlight = maxBytesInFlight;
        b.congestionAvoidance = congestionAvoidance;
        return b;
    }

    /** Channels by index. */
    public List<ChannelConfig> channels() { return channels; }

    /** Most bytes of one UDP payload, every header included (default 1200). */
    public int datagramBudget() { return datagramBudget; }

    /** Bytes of each datagram taken by the layers below the packet header (connection framing, AEAD tag). */
    public int lowerLayerOverhead() { return lowerLayerOverhead; }

    public ResendPolicy resendPolicy() { return resendPolicy; }

    /** Resend interval = clamp(rtt * factor, min, max) under {@link ResendPolicy#RTT_BASED}. */
    public double resendRttFactor() { return resendRttFactor; }

    public double minResendIntervalSeconds() { return minResendIntervalSeconds; }

    public double maxResendIntervalSeconds() { return maxResendIntervalSeconds; }

    /** Largest message accepted by send (default 1 MiB); larger sends fail at once with TOO_LARGE. */
    public int maxMessageSize() { return maxMessageSize; }

    /** Slice size of large messages (default 1024). */
    public int sliceSize() { return sliceSize; }

    /** Cap on unacknowledged large-message bytes in flight per connection. */
    public long maxBytesInFlight() { return maxBytesInFlight; }

    public boolean congestionAvoidance() { return congestionAvoidance; }

    /** When a reliable message is sent again. */
    public enum ResendPolicy {
        /** Resend when not sent within an interval derived from the RTT (default). */
        RTT_BASED,
        /** Include every unacknowledged message in every packet: lowest latency, most bandwidth. */
        EVERY_PACKET
    }

    public static final class Builder {
        private List<ChannelConfig> channels = new ArrayList<>(List.of(
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                ChannelConfig.of(DeliveryMode.RELIABLE_UNORDERED),
                ChannelConfig.of(DeliveryMode.UNRELIABLE),
                ChannelConfig.of(DeliveryMode.UNRELIABLE_SEQUENCED)));
        private int datagramBudget = 1200;
        private int lowerLayerOverhead = 0;
        private ResendPolicy resendPolicy = ResendPolicy.RTT_BASED;
        private double resendRttFactor = 1.25;
        private double minResendIntervalSeconds = 0.02;
        private double maxResendIntervalSeconds = 1.0;
        private int maxMessageSize = 1024 * 1024;
        private int sliceSize = 1024;
        private long maxBytesInFlight = 256 * 1024;
        private boolean congestionAvoidance = true;

        private Builder() {
        }

        public Builder channels(List<ChannelConfig> channels) { this.channels = new ArrayList<>(channels); return this; }
        public Builder datagramBudget(int bytes) { this.datagramBudget = bytes; return this; }
        public Builder lowerLayerOverhead(int bytes) { this.lowerLayerOverhead = bytes; return this; }
        public Builder resendPolicy(ResendPolicy policy) { this.resendPolicy = policy; return this; }
        public Builder resendRttFactor(double factor) { this.resendRttFactor = factor; return this; }
        public Builder minResendIntervalSeconds(double seconds) { this.minResendIntervalSeconds = seconds; return this; }
        public Builder maxResendIntervalSeconds(double seconds) { this.maxResendIntervalSeconds = seconds; return this; }
        public Builder maxMessageSize(int bytes) { this.maxMessageSize = bytes; return this; }
        public Builder sliceSize(int bytes) { this.sliceSize = bytes; return this; }
        public Builder maxBytesInFlight(long bytes) { this.maxBytesInFlight = bytes; return this; }
        public Builder congestionAvoidance(boolean enabled) { this.congestionAvoidance = enabled; return this; }

        public MessageConfig build() {
            return new MessageConfig(this);
        }
    }
}
