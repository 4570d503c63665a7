package io.reliableudp.message;

import io.reliableudp.InvalidConfigurationException;
import java.util.ArrayList;
import java.util.List;

/**
 * Settings of the message layer of one connection. Immutable; build with {@link #builder()}.
 * Every value is validated when built: a wrong one raises {@link InvalidConfigurationException} naming it.
 *
 * <p>Owned by the message layer: fields may be added, none renamed without updating callers.
 */
public final class MessageConfig {

    /** Most channels a connection may have. */
    public static final int MAX_CHANNELS = 64;

    private final List<ChannelConfig> channels;
    private final int datagramBudget;
    private final int maxDatagramBudget;
    private final int lowerLayerOverhead;
    private final ResendPolicy resendPolicy;
    private final double resendRttFactor;
    private final double minResendIntervalSeconds;
    private final double maxResendIntervalSeconds;
    private final double ackDelaySeconds;
    private final boolean fastRecovery;
    private final int maxMessageSize;
    private final int sliceSize;
    private final long maxBytesInFlight;
    private final boolean congestionAvoidance;
    private final double sendRateHz;
    private final int receiveWindow;
    private final long receiveMemoryLimit;
    /** As set on the builder (-1: the default, which follows maxMessageSize), kept for {@link #toBuilder()}. */
    private final long receiveMemoryLimitSetting;
    private final int maxPacketsPerUpdate;
    private final double congestionRttThresholdMillis;
    private final double congestionLossThresholdPercent;
    private final boolean bandwidthEstimation;
    private final CongestionControl congestionControl;
    private final SendMode sendMode;

    /** Default of {@link #maxDatagramBudget()}: 9000 bytes of jumbo frame less the IPv6 and UDP headers. */
    public static final int DEFAULT_MAX_DATAGRAM_BUDGET = 8952;

    /** Default of {@link #receiveMemoryLimit()} (unless twice {@link #maxMessageSize()} is more): 16 MiB. */
    public static final long DEFAULT_RECEIVE_MEMORY_LIMIT = 16L * 1024 * 1024;

    /** Upper bound of {@link #ackDelaySeconds()}. */
    public static final double MAX_ACK_DELAY_SECONDS = 0.5;

    private MessageConfig(Builder b) {
        if (b.channels.isEmpty() || b.channels.size() > MAX_CHANNELS) {
            throw new InvalidConfigurationException("channels", b.channels.size() + " channels",
                    "must hold 1.." + MAX_CHANNELS + " channels",
                    "channels must hold 1.." + MAX_CHANNELS + " channels, had " + b.channels.size());
        }
        if (b.datagramBudget < 256 || b.datagramBudget > 65_507) {
            throw new InvalidConfigurationException("datagramBudget", b.datagramBudget, "must be within 256..65507 bytes");
        }
        if (b.maxDatagramBudget < 0 || b.maxDatagramBudget > 65_507) {
            throw new InvalidConfigurationException("maxDatagramBudget", b.maxDatagramBudget, "must be within 0..65507 bytes");
        }
        if (b.lowerLayerOverhead < 0 || b.lowerLayerOverhead > b.datagramBudget / 2) {
            throw new InvalidConfigurationException("lowerLayerOverhead", b.lowerLayerOverhead, "must be within 0..datagramBudget/2");
        }
        if (!(b.resendRttFactor >= 0.5 && b.resendRttFactor <= 10)) {
            throw new InvalidConfigurationException("resendRttFactor", b.resendRttFactor, "must be within 0.5..10");
        }
        if (!(b.minResendIntervalSeconds >= 0 && b.minResendIntervalSeconds <= b.maxResendIntervalSeconds)) {
            throw new InvalidConfigurationException("minResendIntervalSeconds", b.minResendIntervalSeconds, "must be within 0..maxResendIntervalSeconds");
        }
        if (!(b.maxResendIntervalSeconds > 0 && b.maxResendIntervalSeconds <= 60)) {
            throw new InvalidConfigurationException("maxResendIntervalSeconds", b.maxResendIntervalSeconds, "must be within (0, 60]");
        }
        if (b.maxMessageSize < 1) {
            throw new InvalidConfigurationException("maxMessageSize", b.maxMessageSize, "must be >= 1");
        }
        if (b.sliceSize < 64 || b.sliceSize > 1024) {
            throw new InvalidConfigurationException("sliceSize", b.sliceSize, "must be within 64..1024 bytes");
        }
        if (b.maxBytesInFlight < b.sliceSize) {
            throw new InvalidConfigurationException("maxBytesInFlight", b.maxBytesInFlight, "must be >= sliceSize");
        }
        if (!(b.sendRateHz >= 1 && b.sendRateHz <= 10_000)) {
            throw new InvalidConfigurationException("sendRateHz", b.sendRateHz, "must be within 1..10000");
        }
        if (b.receiveWindow < 64 || b.receiveWindow > 16_384 || Integer.bitCount(b.receiveWindow) != 1) {
            throw new InvalidConfigurationException("receiveWindow", b.receiveWindow, "must be a power of two within 64..16384");
        }
        if (b.maxPacketsPerUpdate < 1 || b.maxPacketsPerUpdate > 4096) {
            throw new InvalidConfigurationException("maxPacketsPerUpdate", b.maxPacketsPerUpdate, "must be within 1..4096");
        }
        if (!(b.congestionRttThresholdMillis > 0 && b.congestionRttThresholdMillis <= 60_000)) {
            throw new InvalidConfigurationException("congestionRttThresholdMillis", b.congestionRttThresholdMillis, "must be within (0, 60000]");
        }
        if (!(b.congestionLossThresholdPercent > 0 && b.congestionLossThresholdPercent <= 100)) {
            throw new InvalidConfigurationException("congestionLossThresholdPercent", b.congestionLossThresholdPercent, "must be within (0, 100]");
        }
        for (int i = 0; i < b.channels.size(); i++) {
            if (b.channels.get(i) == null) {
                throw new InvalidConfigurationException("channels", null, "must not hold null",
                        "channels[" + i + "] must not be null");
            }
        }
        if (b.sendMode == null) {
            throw new InvalidConfigurationException("sendMode", null, "must not be null", "sendMode must not be null");
        }
        if (!(b.ackDelaySeconds >= 0 && b.ackDelaySeconds <= MAX_ACK_DELAY_SECONDS)) {
            throw new InvalidConfigurationException("ackDelaySeconds", b.ackDelaySeconds, "must be within 0..0.5 s");
        }
        if (b.resendPolicy == null) {
            throw new InvalidConfigurationException("resendPolicy", null, "must not be null", "resendPolicy must not be null");
        }
        if (b.congestionControl == null) {
            throw new InvalidConfigurationException("congestionControl", null, "must not be null",
                    "congestionControl must not be null");
        }
        long memoryLimit = b.receiveMemoryLimit < 0
                ? Math.max(DEFAULT_RECEIVE_MEMORY_LIMIT, 2L * b.maxMessageSize) : b.receiveMemoryLimit;
        if (memoryLimit < b.maxMessageSize) {
            throw new InvalidConfigurationException("receiveMemoryLimit", b.receiveMemoryLimit,
                    "must be >= maxMessageSize (" + b.maxMessageSize + ")");
        }
        int effectiveSlice = effectiveSliceSize(b.sliceSize, b.datagramBudget, b.lowerLayerOverhead);
        if (Frames.sliceCount(b.maxMessageSize, effectiveSlice) > Frames.MAX_SLICES) {
            throw new InvalidConfigurationException("maxMessageSize", b.maxMessageSize,
                    "must be at most " + Frames.MAX_SLICES + " slices of " + effectiveSlice + " bytes");
        }
        this.channels = List.copyOf(b.channels);
        this.datagramBudget = b.datagramBudget;
        this.maxDatagramBudget = Math.max(b.maxDatagramBudget, b.datagramBudget);
        this.lowerLayerOverhead = b.lowerLayerOverhead;
        this.resendPolicy = b.resendPolicy;
        this.resendRttFactor = b.resendRttFactor;
        this.minResendIntervalSeconds = b.minResendIntervalSeconds;
        this.maxResendIntervalSeconds = b.maxResendIntervalSeconds;
        this.ackDelaySeconds = b.ackDelaySeconds;
        this.fastRecovery = b.fastRecovery;
        this.maxMessageSize = b.maxMessageSize;
        this.sliceSize = b.sliceSize;
        this.maxBytesInFlight = b.maxBytesInFlight;
        this.congestionAvoidance = b.congestionAvoidance;
        this.sendRateHz = b.sendRateHz;
        this.receiveWindow = b.receiveWindow;
        this.receiveMemoryLimit = memoryLimit;
        this.receiveMemoryLimitSetting = b.receiveMemoryLimit;
        this.maxPacketsPerUpdate = b.maxPacketsPerUpdate;
        this.congestionRttThresholdMillis = b.congestionRttThresholdMillis;
        this.congestionLossThresholdPercent = b.congestionLossThresholdPercent;
        this.bandwidthEstimation = b.bandwidthEstimation;
        this.congestionControl = b.congestionControl;
        this.sendMode = b.sendMode;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: four channels (one per delivery mode, in the enum's order), 1200-byte datagrams. */
    public static MessageConfig defaults() {
        return builder().build();
    }

    /** A builder holding these values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.channels = new ArrayList<>(channels);
        b.datagramBudget = datagramBudget;
        b.maxDatagramBudget = maxDatagramBudget;
        b.lowerLayerOverhead = lowerLayerOverhead;
        b.resendPolicy = resendPolicy;
        b.resendRttFactor = resendRttFactor;
        b.minResendIntervalSeconds = minResendIntervalSeconds;
        b.maxResendIntervalSeconds = maxResendIntervalSeconds;
        b.ackDelaySeconds = ackDelaySeconds;
        b.fastRecovery = fastRecovery;
        b.maxMessageSize = maxMessageSize;
        b.sliceSize = sliceSize;
        b.maxBytesInFlight = maxBytesInFlight;
        b.congestionAvoidance = congestionAvoidance;
        b.sendRateHz = sendRateHz;
        b.receiveWindow = receiveWindow;
        b.receiveMemoryLimit = receiveMemoryLimitSetting;
        b.maxPacketsPerUpdate = maxPacketsPerUpdate;
        b.congestionRttThresholdMillis = congestionRttThresholdMillis;
        b.congestionLossThresholdPercent = congestionLossThresholdPercent;
        b.bandwidthEstimation = bandwidthEstimation;
        b.congestionControl = congestionControl;
        b.sendMode = sendMode;
        return b;
    }

    /** Channels by index. */
    public List<ChannelConfig> channels() { return channels; }

    /** Most bytes of one UDP payload, every header included (default 1200). */
    public int datagramBudget() { return datagramBudget; }

    /**
     * Most bytes of one UDP payload a connection may grow its packets to once the path and the peer
     * proved they carry them (default {@value #DEFAULT_MAX_DATAGRAM_BUDGET}, a 9000-byte jumbo frame's
     * IPv6 payload; never below {@link #datagramBudget()}, so a value at or below it turns the growth
     * off). Every connection starts at {@link #datagramBudget()}; the transport grows it by size probes
     * up to this size: to a peer on this host up to the loopback MTU, to others up to what path-MTU
     * discovery finds ({@code NodeConfig.pathMtuDiscovery}); a receiver accepts datagrams up to this
     * size (docs/messages.md, "Datagram budget").
     */
    public int maxDatagramBudget() { return maxDatagramBudget; }

    /** Bytes of each datagram taken by the layers below the packet header (connection framing, AEAD tag). */
    public int lowerLayerOverhead() { return lowerLayerOverhead; }

    /** When reliable messages are sent again (default {@link ResendPolicy#RTT_BASED}). */
    public ResendPolicy resendPolicy() { return resendPolicy; }

    /**
     * Resend interval = clamp(max(srtt * factor, srtt + max(4 * rttvar, D - (srtt - minRtt)) + ackDelay),
     * min, max) under {@link ResendPolicy#RTT_BASED} (rttvar: smoothed mean deviation of the RTT, as
     * RFC 6298; D: the longest the peer may hold an ack back, one send interval under the tick
     * schedule, the ack delay (at least 1 ms) in IMMEDIATE) for a message whose packet went within a
     * stream; for one whose packet went alone in IMMEDIATE (no data packet in the two ack delays + 1 ms
     * before it), which the peer acknowledges at once, D is 1 ms and the ack delay term is 0; default 1.1 (1.25 before: on a 100 ms path with little jitter that floor, not the deviation, set the interval). A message that times out again with nothing acknowledged in between
     * waits twice as long each time (up to the max). See docs/messages.md, "Reliability and resend".
     */
    public double resendRttFactor() { return resendRttFactor; }

    /**
     * Lower bound of the RTT-based resend interval (default 1 ms: the measured RTT and its variance
     * set the interval, this only guards against a degenerate estimate; it was a fixed 20 ms before).
     */
    public double minResendIntervalSeconds() { return minResendIntervalSeconds; }

    /**
     * Upper bound of the RTT-based resend interval, also the cap of its exponential backoff on
     * repeated timeouts (default 1 s).
     */
    public double maxResendIntervalSeconds() { return maxResendIntervalSeconds; }

    /**
     * Whether a reliable message is resent as soon as the acks show that the packet carrying it was
     * lost (a packet sent at least a reorder window after it was acknowledged), instead of only when
     * its resend timer runs out (default true). See docs/messages.md, "Reliability and resend".
     */
    public boolean fastRecovery() { return fastRecovery; }

    /** Largest message accepted by send (default 1 MiB); larger sends fail at once with TOO_LARGE. */
    public int maxMessageSize() { return maxMessageSize; }

    /** Slice size of large messages (default 1024). */
    public int sliceSize() { return sliceSize; }

    /**
     * The slice size actually used: {@link #sliceSize()}, made smaller when a slice frame would not
     * fit the packet that the datagram budget leaves (1024-byte slices need a wire of at least 1046 bytes).
     */
    public int effectiveSliceSize() {
        return effectiveSliceSize(sliceSize, datagramBudget, lowerLayerOverhead);
    }

    private static int effectiveSliceSize(int sliceSize, int datagramBudget, int lowerLayerOverhead) {
        // packet header at most 9 bytes, slice frame header at most 13 (1 + 2 id + 5 total + 2 size + 3 index)
        return Math.min(sliceSize, datagramBudget - lowerLayerOverhead - 9 - 13);
    }

    /** Cap on unacknowledged large-message bytes in flight per connection. */
    public long maxBytesInFlight() { return maxBytesInFlight; }

    /**
     * Whether congestion control limits the sender at all (default true); false is the same as
     * {@link CongestionControl#NONE}, whatever {@link #congestionControl()} says.
     */
    public boolean congestionAvoidance() { return congestionAvoidance; }

    /**
     * Which congestion controller limits the sender (default {@link CongestionControl#DELIVERY_RATE});
     * only with {@link #congestionAvoidance()}.
     */
    public CongestionControl congestionControl() { return congestionControl; }

    /**
     * Packet send rate in the good (uncongested) mode, in send ticks per second (default 60). The
     * transport sets it from {@code NodeConfig.sendRateHz}. The {@link CongestionControl#GAFFER} bad mode
     * ticks at a third of it; the default controller keeps it and paces within the ticks.
     */
    public double sendRateHz() { return sendRateHz; }

    /**
     * Receive window per channel, in messages (power of two, 64..16384, default 4096). A sender never
     * has a message in flight whose id is this far or further past its oldest unacknowledged one,
     * so the receiver never has to hold more. Both ends must use the same value.
     */
    public int receiveWindow() { return receiveWindow; }

    /**
     * Most bytes one connection's receive side holds for its peer (default
     * {@value #DEFAULT_RECEIVE_MEMORY_LIMIT}, or twice {@link #maxMessageSize()} when that is more; at
     * least {@link #maxMessageSize()}): reassembly buffers of sliced messages, messages of an ordered
     * channel that arrived before an earlier one, and messages held for a paused channel. A packet whose
     * messages would pass it is refused before anything of it is kept or acknowledged, so its sender
     * resends it later (and its queue fills, if the receiver stays full): nothing acknowledged is ever
     * dropped. The last {@link #maxMessageSize()} bytes are kept for the next message a reliable
     * channel waits for, so a buffer full of later messages never blocks the one they wait for. The
     * node's own limit over all connections is {@code NodeConfig.receiveMemoryLimit}. See
     * docs/messages.md, "Receive memory".
     */
    public long receiveMemoryLimit() { return receiveMemoryLimit; }

    /**
     * Most packets one {@code update} or {@code flush} may send (default 32, 1 in Gaffer's bad mode: a burst
     * then stays within the 33 packets one ack header covers, even when the burst arrives reordered).
     */
    public int maxPacketsPerUpdate() { return maxPacketsPerUpdate; }

    /** Smoothed RTT at or above which the {@link CongestionControl#GAFFER} controller turns bad (default 250 ms). */
    public double congestionRttThresholdMillis() { return congestionRttThresholdMillis; }

    /** Packet loss at or above which the {@link CongestionControl#GAFFER} controller turns bad (default 10 percent). */
    public double congestionLossThresholdPercent() { return congestionLossThresholdPercent; }

    /**
     * Whether, with the {@link CongestionControl#GAFFER} controller, bytes in flight are also capped at
     * twice the estimated bandwidth-delay product (delivery rate from acks times the min RTT; default
     * true). The {@link CongestionControl#DELIVERY_RATE} controller always has its own cap.
     */
    public boolean bandwidthEstimation() { return bandwidthEstimation; }

    /** Which congestion controller limits the sender (docs/messages.md, "Congestion control"). */
    public enum CongestionControl {
        /**
         * The default: BBR-like, from the delivery rate and the delay. Paces at a gain times the
         * bottleneck bandwidth, caps bytes in flight at about twice the bandwidth-delay product, drains
         * when the RTT rises above its minimum; random loss does not cut the rate.
         */
        DELIVERY_RATE,
        /**
         * Gaffer's good/bad mode of the first milestone: the full send rate until the RTT or the loss
         * estimate crosses its threshold, then a third of it for a penalty time (1..60 s); with
         * {@link MessageConfig#bandwidthEstimation()} also the in-flight cap.
         */
        GAFFER,
        /** No congestion control: the configured send rate and packets per tick, no pacing, no cap. */
        NONE
    }

    /**
     * When packets go out (default {@link SendMode#IMMEDIATE}): as soon as there is something to send,
     * or only on the send ticks at {@link #sendRateHz()}. See docs/messages.md, "When packets go out".
     */
    public SendMode sendMode() { return sendMode; }

    /**
     * {@link SendMode#IMMEDIATE} only: the rate limit of ack-only packets, and so the longest time a
     * received data packet of a stream waits for its acknowledgement (default 1 ms, within 0..0.5 s).
     * A data packet that arrives when no ack-only packet went within the last ack delay (a packet
     * alone), or that reveals a gap in the peer's sequence, is acknowledged at once, after the
     * listener calls of its turn (a reply sent by a listener carries the ack); the others of a stream
     * share one ack-only packet an ack delay after the last one, unless a packet going back (data)
     * carries the ack first. In {@link SendMode#TICK} acks go on the send ticks. The resend timer of a
     * message sent within a stream adds it to the RTT and its variance (as QUIC's PTO), so an ack held
     * back that long is not taken for a loss; a message sent alone waits for no ack delay. Both ends
     * use the same value.
     */
    public double ackDelaySeconds() { return ackDelaySeconds; }

    /** When packets go out. */
    public enum SendMode {
        /**
         * As soon as there is something to send (default): a queued message leaves in the driver's
         * next {@code update} or {@code flush}, however soon; resends, the ack delay and the
         * congestion controller's pacing each name the time of the next call
         * ({@link MessageEndpoint#nextDeadline()}).
         */
        IMMEDIATE,
        /**
         * The game-style fixed rate: send rounds only on the send ticks at {@link #sendRateHz()} (and
         * on an explicit {@code flush}); acks go with the tick, and idle ticks repeat them twice.
         */
        TICK
    }

    /** When a reliable message is sent again. */
    public enum ResendPolicy {
        /** Resend when not sent within an interval derived from the RTT (default). */
        RTT_BASED,
        /** Include every unacknowledged message in every packet: lowest latency, most bandwidth. */
        EVERY_PACKET
    }

    /** Builds a {@link MessageConfig}; each setter sets the value of the getter of the same name. */
    public static final class Builder {
        private List<ChannelConfig> channels = new ArrayList<>(List.of(
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                ChannelConfig.of(DeliveryMode.RELIABLE_UNORDERED),
                ChannelConfig.of(DeliveryMode.UNRELIABLE),
                ChannelConfig.of(DeliveryMode.UNRELIABLE_SEQUENCED)));
        private int datagramBudget = 1200;
        private int maxDatagramBudget = DEFAULT_MAX_DATAGRAM_BUDGET;
        private int lowerLayerOverhead = 0;
        private ResendPolicy resendPolicy = ResendPolicy.RTT_BASED;
        private double resendRttFactor = 1.1;
        private double minResendIntervalSeconds = 0.001;
        private double maxResendIntervalSeconds = 1.0;
        private double ackDelaySeconds = 0.001;
        private boolean fastRecovery = true;
        private int maxMessageSize = 1024 * 1024;
        private int sliceSize = 1024;
        private long maxBytesInFlight = 256 * 1024;
        private boolean congestionAvoidance = true;
        private double sendRateHz = 60;
        private int receiveWindow = 4096;
        private long receiveMemoryLimit = -1;
        private int maxPacketsPerUpdate = 32;
        private double congestionRttThresholdMillis = 250;
        private double congestionLossThresholdPercent = 10;
        private boolean bandwidthEstimation = true;
        private CongestionControl congestionControl = CongestionControl.DELIVERY_RATE;
        private SendMode sendMode = SendMode.IMMEDIATE;

        private Builder() {
        }

        /** Sets {@link MessageConfig#channels()}. */
        public Builder channels(List<ChannelConfig> channels) { this.channels = new ArrayList<>(channels); return this; }
        /** Sets {@link MessageConfig#datagramBudget()}. */
        public Builder datagramBudget(int bytes) { this.datagramBudget = bytes; return this; }
        /** Sets {@link MessageConfig#maxDatagramBudget()}. */
        public Builder maxDatagramBudget(int bytes) { this.maxDatagramBudget = bytes; return this; }
        /** Sets {@link MessageConfig#lowerLayerOverhead()}. */
        public Builder lowerLayerOverhead(int bytes) { this.lowerLayerOverhead = bytes; return this; }
        /** Sets {@link MessageConfig#resendPolicy()}. */
        public Builder resendPolicy(ResendPolicy policy) { this.resendPolicy = policy; return this; }
        /** Sets {@link MessageConfig#resendRttFactor()}. */
        public Builder resendRttFactor(double factor) { this.resendRttFactor = factor; return this; }
        /** Sets {@link MessageConfig#minResendIntervalSeconds()}. */
        public Builder minResendIntervalSeconds(double seconds) { this.minResendIntervalSeconds = seconds; return this; }
        /** Sets {@link MessageConfig#maxResendIntervalSeconds()}. */
        public Builder maxResendIntervalSeconds(double seconds) { this.maxResendIntervalSeconds = seconds; return this; }
        /** Sets {@link MessageConfig#ackDelaySeconds()}. */
        public Builder ackDelaySeconds(double seconds) { this.ackDelaySeconds = seconds; return this; }
        /** Sets {@link MessageConfig#fastRecovery()}. */
        public Builder fastRecovery(boolean enabled) { this.fastRecovery = enabled; return this; }
        /** Sets {@link MessageConfig#maxMessageSize()}. */
        public Builder maxMessageSize(int bytes) { this.maxMessageSize = bytes; return this; }
        /** Sets {@link MessageConfig#sliceSize()}. */
        public Builder sliceSize(int bytes) { this.sliceSize = bytes; return this; }
        /** Sets {@link MessageConfig#maxBytesInFlight()}. */
        public Builder maxBytesInFlight(long bytes) { this.maxBytesInFlight = bytes; return this; }
        /** Sets {@link MessageConfig#congestionAvoidance()}. */
        public Builder congestionAvoidance(boolean enabled) { this.congestionAvoidance = enabled; return this; }
        /** Sets {@link MessageConfig#sendRateHz()}. */
        public Builder sendRateHz(double hz) { this.sendRateHz = hz; return this; }
        /** Sets {@link MessageConfig#receiveWindow()}. */
        public Builder receiveWindow(int messages) { this.receiveWindow = messages; return this; }
        /** Sets {@link MessageConfig#receiveMemoryLimit()}. */
        public Builder receiveMemoryLimit(long bytes) { this.receiveMemoryLimit = bytes; return this; }
        /** Sets {@link MessageConfig#maxPacketsPerUpdate()}. */
        public Builder maxPacketsPerUpdate(int packets) { this.maxPacketsPerUpdate = packets; return this; }
        /** Sets {@link MessageConfig#congestionRttThresholdMillis()}. */
        public Builder congestionRttThresholdMillis(double millis) { this.congestionRttThresholdMillis = millis; return this; }
        /** Sets {@link MessageConfig#congestionLossThresholdPercent()}. */
        public Builder congestionLossThresholdPercent(double percent) { this.congestionLossThresholdPercent = percent; return this; }

        /** Sets {@link MessageConfig#bandwidthEstimation()}. */
        public Builder bandwidthEstimation(boolean enabled) { this.bandwidthEstimation = enabled; return this; }
        /** Sets {@link MessageConfig#congestionControl()}. */
        public Builder congestionControl(CongestionControl controller) { this.congestionControl = controller; return this; }

        /** Sets {@link MessageConfig#sendMode()}. */
        public Builder sendMode(SendMode mode) { this.sendMode = mode; return this; }


        /** Validates and builds; a wrong value raises {@link InvalidConfigurationException} naming it. */
        public MessageConfig build() {
            return new MessageConfig(this);
        }
    }
}
