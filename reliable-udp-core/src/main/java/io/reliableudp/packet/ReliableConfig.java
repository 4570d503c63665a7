package io.reliableudp.packet;

import io.reliableudp.InvalidConfigurationException;
import java.util.Objects;

/**
 * Settings of one {@link ReliableEndpoint}: the reference {@code reliable_config_t} without its
 * callbacks (which are constructor arguments of the endpoint), plus {@link #allowEmptyPayload()} and
 * {@link #fullAckBitsAtStart()}.
 * Immutable; build with {@link #builder()} or {@link #toBuilder()}. Every value is validated when
 * built: a wrong one raises {@link InvalidConfigurationException} naming the field.
 *
 * <p>{@link #defaults()} equals the reference {@code reliable_default_config}. Both ends of a
 * connection must agree on {@code fragmentSize} (and should on {@code maxFragments} and
 * {@code maxPacketSize}); the other values are local.
 */
public final class ReliableConfig {

    private static final ReliableConfig DEFAULTS = new Builder().build();

    private final String name;
    private final int maxPacketSize;
    private final int fragmentAbove;
    private final int maxFragments;
    private final int fragmentSize;
    private final int ackBufferSize;
    private final int sentPacketsBufferSize;
    private final int receivedPacketsBufferSize;
    private final int fragmentReassemblyBufferSize;
    private final float rttSmoothingFactor;
    private final int rttHistorySize;
    private final float packetLossSmoothingFactor;
    private final float bandwidthSmoothingFactor;
    private final int packetHeaderSize;
    private final boolean allowEmptyPayload;
    private final boolean fullAckBitsAtStart;

    private ReliableConfig(Builder b) {
        requireRange("maxPacketSize", b.maxPacketSize, 1, 1 << 24);
        requireRange("fragmentAbove", b.fragmentAbove, 1, 1 << 24);
        requireRange("maxFragments", b.maxFragments, 1, 256);
        requireRange("fragmentSize", b.fragmentSize, 1, 1 << 24);
        requireRange("ackBufferSize", b.ackBufferSize, 1, 65536);
        requireRange("sentPacketsBufferSize", b.sentPacketsBufferSize, 1, 32768);
        requireRange("receivedPacketsBufferSize", b.receivedPacketsBufferSize, 1, 32768);
        requireRange("fragmentReassemblyBufferSize", b.fragmentReassemblyBufferSize, 1, 32768);
        requireRange("rttHistorySize", b.rttHistorySize, 1, 65536);
        requireRange("packetHeaderSize", b.packetHeaderSize, 0, 65535);
        requireFactor("rttSmoothingFactor", b.rttSmoothingFactor);
        requireFactor("packetLossSmoothingFactor", b.packetLossSmoothingFactor);
        requireFactor("bandwidthSmoothingFactor", b.bandwidthSmoothingFactor);
        if ((long) b.maxFragments * b.fragmentSize > (1 << 30)) {
            long product = (long) b.maxFragments * b.fragmentSize;
            throw new InvalidConfigurationException("maxFragments", b.maxFragments,
                    "times fragmentSize must be at most 2^30 bytes",
                    "maxFragments * fragmentSize must be at most 2^30 bytes, was " + product);
        }
        if (b.name == null || b.name.isBlank()) {
            throw new InvalidConfigurationException("name", b.name, "must not be blank", "name must not be blank");
        }
        this.name = b.name;
        this.maxPacketSize = b.maxPacketSize;
        this.fragmentAbove = b.fragmentAbove;
        this.maxFragments = b.maxFragments;
        this.fragmentSize = b.fragmentSize;
        this.ackBufferSize = b.ackBufferSize;
        this.sentPacketsBufferSize = b.sentPacketsBufferSize;
        this.receivedPacketsBufferSize = b.receivedPacketsBufferSize;
        this.fragmentReassemblyBufferSize = b.fragmentReassemblyBufferSize;
        this.rttSmoothingFactor = b.rttSmoothingFactor;
        this.rttHistorySize = b.rttHistorySize;
        this.packetLossSmoothingFactor = b.packetLossSmoothingFactor;
        this.bandwidthSmoothingFactor = b.bandwidthSmoothingFactor;
        this.packetHeaderSize = b.packetHeaderSize;
        this.allowEmptyPayload = b.allowEmptyPayload;
        this.fullAckBitsAtStart = b.fullAckBitsAtStart;
    }

    private static void requireRange(String field, int value, int min, int max) {
        if (value < min || value > max) {
            throw new InvalidConfigurationException(field, value, "must be within " + min + ".." + max);
        }
    }

    private static void requireFactor(String field, float value) {
        if (!(value >= 0.0f && value <= 1.0f)) {
            throw new InvalidConfigurationException(field, value, "must be within 0..1");
        }
    }

    /**
     * The reference defaults ({@code reliable_default_config}): max packet 16384 bytes, fragments of
     * 1024 bytes above 1024 bytes, at most 16 fragments, buffers 256/256/256/64, RTT history 512,
     * smoothing factors 0.0025f / 0.1f / 0.1f, 28 bytes of UDP/IPv4 overhead, empty payloads refused.
     *
     * @return the default configuration
     */
    public static ReliableConfig defaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from {@link #defaults()}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from this configuration.
     *
     * @return a new builder holding these values
     */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Name used in log lines (the reference {@code name}); default {@code "endpoint"}.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * Largest payload {@link ReliableEndpoint#sendPacket} accepts and largest payload received, in
     * bytes (default 16384).
     *
     * @return bytes
     */
    public int maxPacketSize() {
        return maxPacketSize;
    }

    /**
     * Payloads longer than this are sent as fragments (default 1024).
     *
     * @return bytes
     */
    public int fragmentAbove() {
        return fragmentAbove;
    }

    /**
     * Most fragments per packet, 1..256 (default 16). A received fragment claiming more is invalid.
     *
     * @return count
     */
    public int maxFragments() {
        return maxFragments;
    }

    /**
     * Data bytes in every fragment but the last (default 1024). Must match the peer's.
     *
     * @return bytes
     */
    public int fragmentSize() {
        return fragmentSize;
    }

    /**
     * Capacity of the ack list read with {@link ReliableEndpoint#ack(int)} (default 256).
     *
     * @return entries
     */
    public int ackBufferSize() {
        return ackBufferSize;
    }

    /**
     * Sent-packet window, 1..32768 (default 256): acks for older packets are ignored; the older half
     * feeds the loss and bandwidth statistics.
     *
     * @return entries
     */
    public int sentPacketsBufferSize() {
        return sentPacketsBufferSize;
    }

    /**
     * Received-packet window, 1..32768 (default 256): older packets are stale.
     *
     * @return entries
     */
    public int receivedPacketsBufferSize() {
        return receivedPacketsBufferSize;
    }

    /**
     * Packets reassembled at once, 1..32768 (default 64).
     *
     * @return entries
     */
    public int fragmentReassemblyBufferSize() {
        return fragmentReassemblyBufferSize;
    }

    /**
     * Weight of a new RTT sample in the smoothed RTT (default 0.0025f).
     *
     * @return factor in 0..1
     */
    public float rttSmoothingFactor() {
        return rttSmoothingFactor;
    }

    /**
     * RTT samples kept, indexed by sequence (default 512).
     *
     * @return entries
     */
    public int rttHistorySize() {
        return rttHistorySize;
    }

    /**
     * Weight of a new loss figure in the smoothed packet loss (default 0.1f).
     *
     * @return factor in 0..1
     */
    public float packetLossSmoothingFactor() {
        return packetLossSmoothingFactor;
    }

    /**
     * Weight of a new figure in the smoothed bandwidths (default 0.1f).
     *
     * @return factor in 0..1
     */
    public float bandwidthSmoothingFactor() {
        return bandwidthSmoothingFactor;
    }

    /**
     * Bytes added to every packet in the bandwidth figures for the lower layers (default 28: IPv4 + UDP).
     *
     * @return bytes
     */
    public int packetHeaderSize() {
        return packetHeaderSize;
    }

    /**
     * Whether {@link ReliableEndpoint#sendPacket} accepts a 0-byte payload and sends a header-only
     * packet (the reference release build), instead of refusing it (the reference debug build
     * asserts; default false).
     *
     * @return true when empty payloads are sent
     */
    public boolean allowEmptyPayload() {
        return allowEmptyPayload;
    }

    /**
     * Whether the headers sent before 32 packets of the peer's arrived set the {@code ack_bits} of the
     * 32 sequences before 0 (65504..65535), which the peer has not sent, so that they are {@code 0xFF}
     * bytes and left out: a fresh connection's headers are 4 bytes from its first packet instead of
     * growing from 8. The peer finds no packet of its own under those bits and ignores them; the
     * reference never sets them (default false, so the conformance vectors hold).
     *
     * @return true when a fresh endpoint's headers acknowledge the sequences before 0
     */
    public boolean fullAckBitsAtStart() {
        return fullAckBitsAtStart;
    }

    /**
     * Largest datagram {@link ReliableEndpoint#receivePacket} accepts:
     * {@code maxPacketSize + 9 + 5}.
     *
     * @return bytes
     */
    public int maxDatagramSize() {
        return maxPacketSize + PacketHeaderCodec.MAX_HEADER_BYTES + PacketHeaderCodec.FRAGMENT_HEADER_BYTES;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReliableConfig c
                && name.equals(c.name)
                && maxPacketSize == c.maxPacketSize
                && fragmentAbove == c.fragmentAbove
                && maxFragments == c.maxFragments
                && fragmentSize == c.fragmentSize
                && ackBufferSize == c.ackBufferSize
                && sentPacketsBufferSize == c.sentPacketsBufferSize
                && receivedPacketsBufferSize == c.receivedPacketsBufferSize
                && fragmentReassemblyBufferSize == c.fragmentReassemblyBufferSize
                && Float.compare(rttSmoothingFactor, c.rttSmoothingFactor) == 0
                && rttHistorySize == c.rttHistorySize
                && Float.compare(packetLossSmoothingFactor, c.packetLossSmoothingFactor) == 0
                && Float.compare(bandwidthSmoothingFactor, c.bandwidthSmoothingFactor) == 0
                && packetHeaderSize == c.packetHeaderSize
                && allowEmptyPayload == c.allowEmptyPayload
                && fullAckBitsAtStart == c.fullAckBitsAtStart;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, maxPacketSize, fragmentAbove, maxFragments, fragmentSize, ackBufferSize,
                sentPacketsBufferSize, receivedPacketsBufferSize, fragmentReassemblyBufferSize, rttSmoothingFactor,
                rttHistorySize, packetLossSmoothingFactor, bandwidthSmoothingFactor, packetHeaderSize,
                allowEmptyPayload, fullAckBitsAtStart);
    }

    @Override
    public String toString() {
        return "ReliableConfig[name=" + name + ", maxPacketSize=" + maxPacketSize + ", fragmentAbove=" + fragmentAbove
                + ", maxFragments=" + maxFragments + ", fragmentSize=" + fragmentSize + ", ackBufferSize=" + ackBufferSize
                + ", sentPacketsBufferSize=" + sentPacketsBufferSize + ", receivedPacketsBufferSize="
                + receivedPacketsBufferSize + ", fragmentReassemblyBufferSize=" + fragmentReassemblyBufferSize
                + ", rttSmoothingFactor=" + rttSmoothingFactor + ", rttHistorySize=" + rttHistorySize
                + ", packetLossSmoothingFactor=" + packetLossSmoothingFactor + ", bandwidthSmoothingFactor="
                + bandwidthSmoothingFactor + ", packetHeaderSize=" + packetHeaderSize + ", allowEmptyPayload="
                + allowEmptyPayload + ", fullAckBitsAtStart=" + fullAckBitsAtStart + "]";
    }

    /** Mutable builder of {@link ReliableConfig}; starts from the reference defaults. Not thread-safe. */
    public static final class Builder {
        private String name = "endpoint";
        private int maxPacketSize = 16 * 1024;
        private int fragmentAbove = 1024;
        private int maxFragments = 16;
        private int fragmentSize = 1024;
        private int ackBufferSize = 256;
        private int sentPacketsBufferSize = 256;
        private int receivedPacketsBufferSize = 256;
        private int fragmentReassemblyBufferSize = 64;
        private float rttSmoothingFactor = 0.0025f;
        private int rttHistorySize = 512;
        private float packetLossSmoothingFactor = 0.1f;
        private float bandwidthSmoothingFactor = 0.1f;
        private int packetHeaderSize = 28;
        private boolean allowEmptyPayload;
        private boolean fullAckBitsAtStart;

        private Builder() {
        }

        private Builder(ReliableConfig c) {
            name = c.name;
            maxPacketSize = c.maxPacketSize;
            fragmentAbove = c.fragmentAbove;
            maxFragments = c.maxFragments;
            fragmentSize = c.fragmentSize;
            ackBufferSize = c.ackBufferSize;
            sentPacketsBufferSize = c.sentPacketsBufferSize;
            receivedPacketsBufferSize = c.receivedPacketsBufferSize;
            fragmentReassemblyBufferSize = c.fragmentReassemblyBufferSize;
            rttSmoothingFactor = c.rttSmoothingFactor;
            rttHistorySize = c.rttHistorySize;
            packetLossSmoothingFactor = c.packetLossSmoothingFactor;
            bandwidthSmoothingFactor = c.bandwidthSmoothingFactor;
            packetHeaderSize = c.packetHeaderSize;
            allowEmptyPayload = c.allowEmptyPayload;
            fullAckBitsAtStart = c.fullAckBitsAtStart;
        }

        /**
         * Sets {@link ReliableConfig#name()}.
         *
         * @param value see {@link ReliableConfig#name()}
         * @return this builder
         */
        public Builder name(String value) {
            this.name = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#maxPacketSize()}.
         *
         * @param value see {@link ReliableConfig#maxPacketSize()}
         * @return this builder
         */
        public Builder maxPacketSize(int value) {
            this.maxPacketSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#fragmentAbove()}.
         *
         * @param value see {@link ReliableConfig#fragmentAbove()}
         * @return this builder
         */
        public Builder fragmentAbove(int value) {
            this.fragmentAbove = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#maxFragments()}.
         *
         * @param value see {@link ReliableConfig#maxFragments()}
         * @return this builder
         */
        public Builder maxFragments(int value) {
            this.maxFragments = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#fragmentSize()}.
         *
         * @param value see {@link ReliableConfig#fragmentSize()}
         * @return this builder
         */
        public Builder fragmentSize(int value) {
            this.fragmentSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#ackBufferSize()}.
         *
         * @param value see {@link ReliableConfig#ackBufferSize()}
         * @return this builder
         */
        public Builder ackBufferSize(int value) {
            this.ackBufferSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#sentPacketsBufferSize()}.
         *
         * @param value see {@link ReliableConfig#sentPacketsBufferSize()}
         * @return this builder
         */
        public Builder sentPacketsBufferSize(int value) {
            this.sentPacketsBufferSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#receivedPacketsBufferSize()}.
         *
         * @param value see {@link ReliableConfig#receivedPacketsBufferSize()}
         * @return this builder
         */
        public Builder receivedPacketsBufferSize(int value) {
            this.receivedPacketsBufferSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#fragmentReassemblyBufferSize()}.
         *
         * @param value see {@link ReliableConfig#fragmentReassemblyBufferSize()}
         * @return this builder
         */
        public Builder fragmentReassemblyBufferSize(int value) {
            this.fragmentReassemblyBufferSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#rttSmoothingFactor()}.
         *
         * @param value see {@link ReliableConfig#rttSmoothingFactor()}
         * @return this builder
         */
        public Builder rttSmoothingFactor(float value) {
            this.rttSmoothingFactor = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#rttHistorySize()}.
         *
         * @param value see {@link ReliableConfig#rttHistorySize()}
         * @return this builder
         */
        public Builder rttHistorySize(int value) {
            this.rttHistorySize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#packetLossSmoothingFactor()}.
         *
         * @param value see {@link ReliableConfig#packetLossSmoothingFactor()}
         * @return this builder
         */
        public Builder packetLossSmoothingFactor(float value) {
            this.packetLossSmoothingFactor = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#bandwidthSmoothingFactor()}.
         *
         * @param value see {@link ReliableConfig#bandwidthSmoothingFactor()}
         * @return this builder
         */
        public Builder bandwidthSmoothingFactor(float value) {
            this.bandwidthSmoothingFactor = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#packetHeaderSize()}.
         *
         * @param value see {@link ReliableConfig#packetHeaderSize()}
         * @return this builder
         */
        public Builder packetHeaderSize(int value) {
            this.packetHeaderSize = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#allowEmptyPayload()}.
         *
         * @param value see {@link ReliableConfig#allowEmptyPayload()}
         * @return this builder
         */
        public Builder allowEmptyPayload(boolean value) {
            this.allowEmptyPayload = value;
            return this;
        }

        /**
         * Sets {@link ReliableConfig#fullAckBitsAtStart()}.
         *
         * @param value see {@link ReliableConfig#fullAckBitsAtStart()}
         * @return this builder
         */
        public Builder fullAckBitsAtStart(boolean value) {
            this.fullAckBitsAtStart = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the configuration
         * @throws InvalidConfigurationException naming the first invalid field
         */
        public ReliableConfig build() {
            return new ReliableConfig(this);
        }
    }
}
