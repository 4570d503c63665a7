package io.reliableudp.transport;

import io.reliableudp.InvalidConfigurationException;
import io.reliableudp.TrafficClass;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a node. Immutable; build with {@link #builder()}. Every value is validated when built:
 * a wrong one raises {@link InvalidConfigurationException} naming the field. {@link #toString()} never
 * shows the key.
 *
 * <p>Owned by the transport layer: fields may be added, none renamed without updating callers.
 */
public final class NodeConfig {

    private final InetSocketAddress bindAddress;
    private final MessageConfig message;
    private final boolean acceptIncoming;
    private final int maxConnections;
    private final long protocolId;
    private final double sendRateHz;
    private final MessageConfig.SendMode sendMode;
    private final Duration keepAliveInterval;
    private final Duration timeout;
    private final Duration connectTimeout;
    private final Duration sendQueueWait;
    private final byte @Nullable [] preSharedKey;
    private final ReceiveThreadMode receiveThreadMode;
    private final Duration receiveBusyPoll;
    private final int socketReceiveBufferSize;
    private final int socketSendBufferSize;
    private final @Nullable LinkConditionerConfig linkConditioner;
    private final int ioThreads;
    private final int dedicatedSockets;
    private final @Nullable NodeIdentity identity;
    private final List<PeerIdentity> allowedPeers;
    private final long receiveMemoryLimit;
    private final TrafficClass trafficClass;
    private final boolean pathMtuDiscovery;
    private final BatchedIo batchedIo;

    /** Default of {@link #receiveMemoryLimit()}: 256 MiB. */
    public static final long DEFAULT_RECEIVE_MEMORY_LIMIT = 256L * 1024 * 1024;

    /** Upper bound of {@link #ioThreads()}. */
    static final int MAX_IO_THREADS = 64;

    /** Upper bound of {@link #receiveBusyPoll()}. */
    static final Duration MAX_BUSY_POLL = Duration.ofMillis(1);

    private NodeConfig(Builder b) {
        if (b.bindAddress == null) {
            throw new InvalidConfigurationException("bindAddress", null, "must not be null", "bindAddress must not be null");
        }
        if (b.maxConnections < 1 || b.maxConnections > 65_536) {
            throw new InvalidConfigurationException("maxConnections", b.maxConnections, "must be within 1..65536");
        }
        if (!(b.sendRateHz >= 1 && b.sendRateHz <= 10_000)) {
            throw new InvalidConfigurationException("sendRateHz", b.sendRateHz, "must be within 1..10000");
        }
        positive("keepAliveInterval", b.keepAliveInterval);
        positive("timeout", b.timeout);
        positive("connectTimeout", b.connectTimeout);
        if (b.sendQueueWait == null || b.sendQueueWait.isNegative()) {
            throw new InvalidConfigurationException("sendQueueWait", b.sendQueueWait, "must be >= 0");
        }
        if (b.timeout.compareTo(b.keepAliveInterval.multipliedBy(2)) < 0) {
            throw new InvalidConfigurationException("timeout", b.timeout, "must be at least twice keepAliveInterval",
                    "timeout (" + b.timeout + ") must be at least twice keepAliveInterval (" + b.keepAliveInterval + ")");
        }
        if (b.preSharedKey != null && b.preSharedKey.length != 32) {
            // the value is the key's length, never the key
            throw new InvalidConfigurationException("preSharedKey", b.preSharedKey.length + " bytes", "must be 32 bytes (256 bits)");
        }
        if (b.identity != null && b.allowedPeers.isEmpty()) {
            throw new InvalidConfigurationException("allowedPeers", "none", "must name at least one peer key when an identity is set",
                    "allowedPeers is empty but an identity is set: a node with an identity admits only the peers on its"
                    + " allow-list, so it could connect to no one; add the peers' public keys (or remove the identity)");
        }
        if (b.identity == null && !b.allowedPeers.isEmpty()) {
            throw new InvalidConfigurationException("identity", null, "must be set when allowedPeers is set",
                    "allowedPeers is set but identity is not: peers prove their keys only to a node that proves its"
                    + " own; set identity (NodeIdentity.generate() or a stored private key) or remove allowedPeers");
        }
        if (b.socketReceiveBufferSize < 0) {
            throw new InvalidConfigurationException("socketReceiveBufferSize", b.socketReceiveBufferSize, "must be >= 0 (0 = OS default)");
        }
        if (b.socketSendBufferSize < 0) {
            throw new InvalidConfigurationException("socketSendBufferSize", b.socketSendBufferSize, "must be >= 0 (0 = OS default)");
        }
        if (b.receiveBusyPoll == null || b.receiveBusyPoll.isNegative() || b.receiveBusyPoll.compareTo(MAX_BUSY_POLL) > 0) {
            throw new InvalidConfigurationException("receiveBusyPoll", b.receiveBusyPoll, "must be within 0..1ms");
        }
        if (b.sendMode == null) {
            throw new InvalidConfigurationException("sendMode", null, "must not be null", "sendMode must not be null");
        }
        if (b.message == null || b.receiveThreadMode == null) {
            throw new InvalidConfigurationException(b.message == null ? "message" : "receiveThreadMode", null, "must not be null",
                    "message and receiveThreadMode must not be null");
        }
        if (b.ioThreads < 1 || b.ioThreads > MAX_IO_THREADS) {
            throw new InvalidConfigurationException("ioThreads", b.ioThreads, "must be within 1.." + MAX_IO_THREADS);
        }
        if (b.dedicatedSockets < 0 || b.dedicatedSockets > 65_536) {
            throw new InvalidConfigurationException("dedicatedSockets", b.dedicatedSockets, "must be within 0..65536");
        }
        if (b.trafficClass == null) {
            throw new InvalidConfigurationException("trafficClass", null, "must not be null",
                    "trafficClass must not be null (TrafficClass.DEFAULT leaves datagrams unmarked)");
        }
        if (b.batchedIo == null) {
            throw new InvalidConfigurationException("batchedIo", null, "must not be null", "batchedIo must not be null");
        }
        if (b.receiveMemoryLimit < b.message.maxMessageSize()) {
            throw new InvalidConfigurationException("receiveMemoryLimit", b.receiveMemoryLimit,
                    "must be >= message.maxMessageSize (" + b.message.maxMessageSize() + ")");
        }
        this.bindAddress = b.bindAddress;
        this.message = b.message;
        this.acceptIncoming = b.acceptIncoming;
        this.maxConnections = b.maxConnections;
        this.protocolId = b.protocolId;
        this.sendRateHz = b.sendRateHz;
        this.sendMode = b.sendMode;
        this.keepAliveInterval = b.keepAliveInterval;
        this.timeout = b.timeout;
        this.connectTimeout = b.connectTimeout;
        this.sendQueueWait = b.sendQueueWait;
        this.preSharedKey = b.preSharedKey == null ? null : b.preSharedKey.clone();
        this.receiveThreadMode = b.receiveThreadMode;
        this.receiveBusyPoll = b.receiveBusyPoll;
        this.socketReceiveBufferSize = b.socketReceiveBufferSize;
        this.socketSendBufferSize = b.socketSendBufferSize;
        this.linkConditioner = b.linkConditioner;
        this.ioThreads = b.ioThreads;
        this.dedicatedSockets = b.dedicatedSockets;
        this.identity = b.identity;
        this.allowedPeers = List.copyOf(b.allowedPeers);
        this.receiveMemoryLimit = b.receiveMemoryLimit;
        this.trafficClass = b.trafficClass;
        this.pathMtuDiscovery = b.pathMtuDiscovery;
        this.batchedIo = b.batchedIo;
    }

    private static void positive(String name, @Nullable Duration d) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new InvalidConfigurationException(name, d, "must be > 0");
        }
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.bindAddress = bindAddress;
        b.message = message;
        b.acceptIncoming = acceptIncoming;
        b.maxConnections = maxConnections;
        b.protocolId = protocolId;
        b.sendRateHz = sendRateHz;
        b.sendMode = sendMode;
        b.keepAliveInterval = keepAliveInterval;
        b.timeout = timeout;
        b.connectTimeout = connectTimeout;
        b.sendQueueWait = sendQueueWait;
        b.preSharedKey = preSharedKey == null ? null : preSharedKey.clone();
        b.receiveThreadMode = receiveThreadMode;
        b.receiveBusyPoll = receiveBusyPoll;
        b.receiveMemoryLimit = receiveMemoryLimit;
        b.socketReceiveBufferSize = socketReceiveBufferSize;
        b.socketSendBufferSize = socketSendBufferSize;
        b.linkConditioner = linkConditioner;
        b.ioThreads = ioThreads;
        b.dedicatedSockets = dedicatedSockets;
        b.identity = identity;
        b.allowedPeers = allowedPeers;
        b.trafficClass = trafficClass;
        b.pathMtuDiscovery = pathMtuDiscovery;
        b.batchedIo = batchedIo;
        return b;
    }

    /** Local address to bind (port 0 = any free port). Default 0.0.0.0:0. */
    public InetSocketAddress bindAddress() { return bindAddress; }

    /** Message-layer settings used for every connection. */
    public MessageConfig message() { return message; }

    /** Whether this node accepts connections (server role). Default true. */
    public boolean acceptIncoming() { return acceptIncoming; }

    /**
     * Most simultaneous accepted connections (default 8192: 5,000 clients connecting at once fit, and an
     * idle connection holds about 40 KiB of heap, so the default caps a server at about 0.3 GiB of
     * connection state; see docs/scale-out.md, "Memory per connection").
     */
    public int maxConnections() { return maxConnections; }

    /** 64-bit protocol id; both sides must agree (the application's own, to keep strangers out). */
    public long protocolId() { return protocolId; }

    /**
     * Send ticks per second per connection (default 60). In the {@code TICK} send mode, the rate of
     * send rounds (and of the node's tick); in {@code IMMEDIATE}, the base of the congestion
     * controller's bad-mode rate (a third of it) and of the message layer's statistics cadence.
     */
    public double sendRateHz() { return sendRateHz; }

    /**
     * When packets go out (default {@link MessageConfig.SendMode#IMMEDIATE}): as soon as a message is
     * queued (the I/O thread is woken and writes everything queued by then), or on the send ticks at
     * {@link #sendRateHz()} ({@link MessageConfig.SendMode#TICK}, the game-style fixed rate). Every
     * connection's {@link MessageConfig#sendMode()} is set from it. See docs/connection.md.
     */
    public MessageConfig.SendMode sendMode() { return sendMode; }

    /** Keepalive interval when idle (default 1 s: a keepalive goes when nothing else was sent for this long; after 1.5 intervals of silence from the peer, probes every quarter interval until it is heard or times out; see docs/connection.md "Liveness"). */
    public Duration keepAliveInterval() { return keepAliveInterval; }

    /** Silence after which a connection times out (default 5 s). */
    public Duration timeout() { return timeout; }

    /** How long a client handshake may take (default 5 s). */
    public Duration connectTimeout() { return connectTimeout; }

    /** How long a send waits for room in a full channel queue before failing with QUEUE_FULL (default 0). */
    public Duration sendQueueWait() { return sendQueueWait; }

    /** The 32-byte pre-shared key, or null for plain (unencrypted) mode. A copy. */
    public byte @Nullable [] preSharedKey() { return preSharedKey == null ? null : preSharedKey.clone(); }

    /**
     * Whether every connection is encrypted and authenticated: true when a pre-shared key or an
     * {@link #identity()} is set (or both). Otherwise the node runs in plain mode, for labs only.
     */
    public boolean encrypted() { return preSharedKey != null || identity != null; }

    /**
     * This node's static key pair (default none): with it, every handshake proves this node's public
     * key to the peer and checks the peer's against {@link #allowedPeers()}, both ways. Requires a
     * non-empty allow-list. Replace it at run time with {@link ReliableUdpNode#identity(NodeIdentity)}.
     * See docs/connection.md, "Identities".
     */
    public @Nullable NodeIdentity identity() { return identity; }

    /**
     * The peers this node admits (default none), when it has an {@link #identity()}: a peer whose
     * proven public key is not on the list is denied ({@code unknown_peer_key}). Several entries may
     * share a name (a key being rotated). Replace it at run time with
     * {@link ReliableUdpNode#allowedPeers(Collection)}. An unmodifiable list.
     */
    public List<PeerIdentity> allowedPeers() { return allowedPeers; }

    /**
     * Which kind of thread runs the I/O loop (default PLATFORM: a virtual thread's wake-up goes
     * through the JDK's poller and a carrier hand-off, which measured +35 to +50 us per round trip on
     * the 2-core machine; VIRTUAL costs no OS thread per node, for many nodes per JVM). See
     * docs/connection.md, "Which I/O thread".
     */
    public ReceiveThreadMode receiveThreadMode() { return receiveThreadMode; }

    /**
     * How long the receive loop keeps polling the socket without blocking after a datagram arrived
     * (0 = never; at most 1 ms; default 0). A datagram that comes within that window is read without
     * a thread wake-up (for a virtual thread: without the poller and a carrier hand-off), which cuts
     * round-trip latency; the price is up to that much CPU time spun after every datagram. An idle node
     * never spins: the window opens only when a datagram was just received.
     */
    public Duration receiveBusyPoll() { return receiveBusyPoll; }

    /** SO_RCVBUF to ask for (0 = OS default; default 4 MiB). A warning is logged when the kernel gives less. */
    public int socketReceiveBufferSize() { return socketReceiveBufferSize; }

    /** SO_SNDBUF to ask for (0 = OS default; default 4 MiB). */
    public int socketSendBufferSize() { return socketSendBufferSize; }

    /** Link conditioner applied to outgoing datagrams, or null (default: none). */
    public @Nullable LinkConditionerConfig linkConditioner() { return linkConditioner; }

    /**
     * I/O threads (default 1, at most 64): with N above 1 the node opens N UDP sockets on the same
     * address and port with {@code SO_REUSEPORT}, one I/O thread each; the kernel spreads the remote
     * addresses among them by its 4-tuple hash, a peer stays on the thread whose socket received its
     * first datagram, and connections this node opens take the threads in turn. Linux only: elsewhere
     * (or where the kernel refuses) the node runs one thread and logs a warning. The listener is then
     * called from N threads (one peer's calls still from one thread, in order). See docs/connection.md,
     * "All cores".
     */
    public int ioThreads() { return ioThreads; }

    /**
     * How many connected peers get a UDP socket of their own (default 0 = none, at most 65,536): a
     * socket on the node's port, {@code connect()}ed to the peer, so its datagrams land in a kernel
     * buffer of their own, which a flood of datagrams to the node's shared socket cannot fill (Linux
     * prefers a connected socket's exact match). Costs one file descriptor per such peer and opens the
     * node's socket with {@code SO_REUSEPORT}. Linux only: elsewhere (or where the kernel refuses)
     * peers share the node's socket and a warning is logged. See docs/connection.md, "Dedicated sockets".
     */
    public int dedicatedSockets() { return dedicatedSockets; }

    /**
     * Most bytes all connections of the node together hold for their peers (default
     * {@value #DEFAULT_RECEIVE_MEMORY_LIMIT}; at least {@code message.maxMessageSize}): what each one
     * holds (reassembly, early arrivals of ordered channels, messages held for paused channels) counts
     * against its own {@link MessageConfig#receiveMemoryLimit()} and against this. A packet that would
     * pass either is refused, not acknowledged (its sender resends it). Size it below the heap the node
     * may use; see docs/operations.md, "Receive memory".
     */
    public long receiveMemoryLimit() { return receiveMemoryLimit; }

    /**
     * The DSCP of the node's datagrams (default {@link TrafficClass#DEFAULT}, 0: unmarked): handshake,
     * acks, keepalives and the packets of every channel without a {@code ChannelConfig#trafficClass} of
     * its own. Set on the socket once ({@code IP_TOS}; on an IPv6 socket the traffic class); the ECN
     * bits stay 0. Whether a network honours it: docs/operations.md, "Traffic class (DSCP)".
     */
    public TrafficClass trafficClass() { return trafficClass; }

    /**
     * Whether connections to peers off this host search for the largest datagram their path carries
     * (default true): RFC 8899 path-MTU discovery by SIZE probes, from the message layer's
     * {@code datagramBudget} (1,200) up to the MTU of the interface the route leaves by, capped at
     * {@link MessageConfig#maxDatagramBudget()}, with a fall-back to the base when large datagrams are
     * lost while smaller ones pass. False keeps them at {@code datagramBudget}; peers on this host grow
     * either way. See docs/messages.md, "Growing the budget: path-MTU discovery".
     */
    public boolean pathMtuDiscovery() { return pathMtuDiscovery; }

    /**
     * Whether the node reads and writes its socket in batches (default {@link BatchedIo#OFF}, the plain port,
     * which the batched one beats only for many busy connections; {@link BatchedIo#AUTO} opts in): on Linux
     * with Java 22+, {@code recvmmsg}/{@code sendmmsg} with UDP GSO and GRO through the FFM API, else a
     * {@link java.nio.channels.DatagramChannel}. See {@link BatchedIo} and docs/operations.md, "Batched socket I/O".
     */
    public BatchedIo batchedIo() { return batchedIo; }

    @Override
    public String toString() {
        return "NodeConfig[bindAddress=" + bindAddress + ", acceptIncoming=" + acceptIncoming
                + ", maxConnections=" + maxConnections + ", protocolId=0x" + Long.toHexString(protocolId)
                + ", sendRateHz=" + sendRateHz + ", sendMode=" + sendMode + ", keepAliveInterval=" + keepAliveInterval
                + ", timeout=" + timeout + ", connectTimeout=" + connectTimeout
                + ", sendQueueWait=" + sendQueueWait
                + ", preSharedKey=" + (preSharedKey == null ? "none" : "[redacted]")
                + ", identity=" + (identity == null ? "none" : identity.publicKey().toBase64())
                + ", allowedPeers=" + allowedPeers.size()
                + ", receiveThreadMode=" + receiveThreadMode
                + ", receiveBusyPoll=" + receiveBusyPoll
                + ", socketReceiveBufferSize=" + socketReceiveBufferSize
                + ", socketSendBufferSize=" + socketSendBufferSize
                + ", linkConditioner=" + linkConditioner
                + ", ioThreads=" + ioThreads + ", dedicatedSockets=" + dedicatedSockets
                + ", receiveMemoryLimit=" + receiveMemoryLimit + ", trafficClass=" + trafficClass
                + ", pathMtuDiscovery=" + pathMtuDiscovery + ", batchedIo=" + batchedIo + "]";
    }

    @Override
    public boolean equals(Object o) {
        return this == o;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }

    /** Builder of {@link NodeConfig}; not thread-safe. */
    public static final class Builder {
        private InetSocketAddress bindAddress = new InetSocketAddress(0);
        private MessageConfig message = MessageConfig.defaults();
        private boolean acceptIncoming = true;
        private int maxConnections = 8192;
        private long protocolId = 0x5255_4450_0001_0000L;
        private double sendRateHz = 60;
        private MessageConfig.SendMode sendMode = MessageConfig.SendMode.IMMEDIATE;
        private Duration keepAliveInterval = Duration.ofSeconds(1);
        private Duration timeout = Duration.ofSeconds(5);
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration sendQueueWait = Duration.ZERO;
        private byte @Nullable [] preSharedKey;
        private ReceiveThreadMode receiveThreadMode = ReceiveThreadMode.PLATFORM;
        private Duration receiveBusyPoll = Duration.ZERO;
        private int socketReceiveBufferSize = 4 * 1024 * 1024;
        private int socketSendBufferSize = 4 * 1024 * 1024;
        private @Nullable LinkConditionerConfig linkConditioner;
        private int ioThreads = 1;
        private int dedicatedSockets;
        private @Nullable NodeIdentity identity;
        private List<PeerIdentity> allowedPeers = List.of();
        private long receiveMemoryLimit = DEFAULT_RECEIVE_MEMORY_LIMIT;
        private TrafficClass trafficClass = TrafficClass.DEFAULT;
        private boolean pathMtuDiscovery = true;
        private @Nullable BatchedIo batchedIo = BatchedIo.OFF;

        private Builder() {
        }

        /** See {@link NodeConfig#bindAddress()}. */
        public Builder bindAddress(InetSocketAddress address) { this.bindAddress = address; return this; }
        /** See {@link NodeConfig#message()}. */
        public Builder message(MessageConfig message) { this.message = message; return this; }
        /** See {@link NodeConfig#acceptIncoming()}. */
        public Builder acceptIncoming(boolean accept) { this.acceptIncoming = accept; return this; }
        /** See {@link NodeConfig#maxConnections()}. */
        public Builder maxConnections(int max) { this.maxConnections = max; return this; }
        /** See {@link NodeConfig#protocolId()}. */
        public Builder protocolId(long id) { this.protocolId = id; return this; }
        /** See {@link NodeConfig#sendRateHz()}. */
        public Builder sendRateHz(double hz) { this.sendRateHz = hz; return this; }
        /** See {@link NodeConfig#sendMode()}. */
        public Builder sendMode(MessageConfig.SendMode mode) { this.sendMode = mode; return this; }
        /** See {@link NodeConfig#keepAliveInterval()}. */
        public Builder keepAliveInterval(Duration interval) { this.keepAliveInterval = interval; return this; }
        /** See {@link NodeConfig#timeout()}. */
        public Builder timeout(Duration timeout) { this.timeout = timeout; return this; }
        /** See {@link NodeConfig#connectTimeout()}. */
        public Builder connectTimeout(Duration timeout) { this.connectTimeout = timeout; return this; }
        /** See {@link NodeConfig#sendQueueWait()}. */
        public Builder sendQueueWait(Duration wait) { this.sendQueueWait = wait; return this; }
        /** See {@link NodeConfig#preSharedKey()}; the array is copied. */
        public Builder preSharedKey(byte @Nullable [] key) { this.preSharedKey = key == null ? null : key.clone(); return this; }
        /** See {@link NodeConfig#receiveThreadMode()}. */
        public Builder receiveThreadMode(ReceiveThreadMode mode) { this.receiveThreadMode = mode; return this; }
        /** See {@link NodeConfig#receiveBusyPoll()}. */
        public Builder receiveBusyPoll(Duration window) { this.receiveBusyPoll = window; return this; }
        /** See {@link NodeConfig#socketReceiveBufferSize()}. */
        public Builder socketReceiveBufferSize(int bytes) { this.socketReceiveBufferSize = bytes; return this; }
        /** See {@link NodeConfig#socketSendBufferSize()}. */
        public Builder socketSendBufferSize(int bytes) { this.socketSendBufferSize = bytes; return this; }
        /** See {@link NodeConfig#linkConditioner()}. */
        public Builder linkConditioner(@Nullable LinkConditionerConfig config) { this.linkConditioner = config; return this; }
        /** See {@link NodeConfig#ioThreads()}. */
        public Builder ioThreads(int threads) { this.ioThreads = threads; return this; }
        /** See {@link NodeConfig#dedicatedSockets()}. */
        public Builder dedicatedSockets(int peers) { this.dedicatedSockets = peers; return this; }
        /** See {@link NodeConfig#receiveMemoryLimit()}. */
        public Builder receiveMemoryLimit(long bytes) { this.receiveMemoryLimit = bytes; return this; }
        /** See {@link NodeConfig#trafficClass()}. */
        public Builder trafficClass(TrafficClass trafficClass) { this.trafficClass = trafficClass; return this; }
        /** See {@link NodeConfig#pathMtuDiscovery()}. */
        public Builder pathMtuDiscovery(boolean on) { this.pathMtuDiscovery = on; return this; }
        /** See {@link NodeConfig#batchedIo()}. */
        public Builder batchedIo(BatchedIo mode) { this.batchedIo = mode; return this; }

        /** See {@link NodeConfig#identity()}. */
        public Builder identity(@Nullable NodeIdentity identity) { this.identity = identity; return this; }
        /** See {@link NodeConfig#allowedPeers()}; the collection is copied. */
        public Builder allowedPeers(Collection<PeerIdentity> peers) { this.allowedPeers = List.copyOf(peers); return this; }

        /** Validates and builds; a wrong value raises {@link InvalidConfigurationException} naming the field. */
        public NodeConfig build() {
            return new NodeConfig(this);
        }

        @Override
        public String toString() {
            return "NodeConfig.Builder[" + Arrays.toString(new Object[] {bindAddress, preSharedKey == null ? "no key" : "[redacted]"}) + "]";
        }
    }
}
