package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.message.MessageConfig.CongestionControl;
import io.reliableudp.message.MessageConfig.SendMode;
import io.reliableudp.message.MessageConfig.ResendPolicy;
import io.reliableudp.transport.BatchedIo;
import io.reliableudp.transport.ReceiveThreadMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.io.Resource;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the reliable-udp node, its channels and peers, under {@code reliable-udp.*}.
 *
 * @param enabled Whether to auto-configure the reliable-udp node, template and listeners.
 * @param bindAddress Local address to bind the UDP socket to ("0.0.0.0" for every IPv4 interface, "::" for every interface).
 * @param port Local UDP port to bind (0 picks a free port: read it with ManagedReliableUdpNode.localAddress().getPort() once the context started).
 * @param acceptIncoming Whether this node accepts connections from other nodes (server role); a pure client sets false.
 * @param maxConnections Most simultaneous connections, 1..65536.
 * @param protocolId 64-bit protocol id; nodes only talk to nodes with the same id (default 0x5255445000010000; hex such as 0x1234 is accepted).
 * @param sendRate Send ticks per second, 1..10000: in TICK mode the rate of send rounds per connection; in IMMEDIATE mode the cadence of the statistics and the base of Gaffer's bad-mode rate.
 * @param keepAliveInterval Keepalive interval while a connection is idle: a keepalive goes when nothing else was sent for this long; after 1.5 intervals without a frame from the peer, probes (answered at once) go every quarter interval until it is heard or times out, so 5 keepalives per default timeout are enough.
 * @param timeout Silence after which a connection times out; at least twice the keepalive interval.
 * @param connectTimeout How long a handshake with a peer may take.
 * @param sendQueueWait How long a send waits for room in a full channel queue before failing with QUEUE_FULL (0 fails at once).
 * @param drainTimeout How long shutdown waits for pending reliable messages to be acknowledged before closing (keep it below spring.lifecycle.timeout-per-shutdown-phase).
 * @param receiveThreadMode Which kind of thread runs the node's I/O loop: PLATFORM (lowest latency: one OS thread per node) or VIRTUAL (no OS thread per node, about 35-50 us more per round trip).
 * @param sendMode When packets go out: IMMEDIATE (as soon as a message is queued: the I/O thread is woken and writes everything queued by then, packed) or TICK (the game-style fixed rate: send ticks at send-rate).
 * @param receiveBusyPoll How long the receive loop keeps polling the socket without blocking after a datagram (0 = never, at most 1ms); lowers round-trip latency at the cost of up to that much CPU spun after every datagram.
 * @param socketReceiveBufferSize SO_RCVBUF to ask the kernel for (0 keeps the OS default).
 * @param socketSendBufferSize SO_SNDBUF to ask the kernel for (0 keeps the OS default).
 * @param ioThreads I/O threads, 1..64: above 1 the node opens that many UDP sockets on its port with SO_REUSEPORT, one I/O thread each, and the kernel spreads the peers among them (Linux only; elsewhere one thread and a logged warning). Listeners are then called from that many threads (one peer's calls from one thread, in order).
 * @param dedicatedSockets How many connected peers get a UDP socket of their own on the node's port (0..65536, 0 = none): their datagrams land in a kernel buffer of their own, which a flood of the shared socket cannot fill. One file descriptor each; Linux only (elsewhere none, with a logged warning).
 * @param batchedIo Whether the node reads and writes its socket in batches: AUTO (the batched port, recvmmsg/sendmmsg with UDP GSO and GRO through the FFM API, on Linux with Java 22+ when the JVM grants native access (--enable-native-access) and the node uses platform I/O threads and no dedicated sockets; else the plain DatagramChannel port), ON (the batched port wherever it is available) or OFF (always the plain port; the default, as the batched port is ahead only for many busy connections). See docs/operations.md, "Batched socket I/O".
 * @param receiveMemoryLimit Most bytes all connections of the node together hold for their peers: reassembly of sliced messages, messages of an ordered channel that arrived before an earlier one, messages held for a paused channel (at least message.max-message-size). A packet that would pass it (or a connection's message.receive-memory-limit) is refused, not acknowledged, and its sender resends it later; nothing acknowledged is dropped. Keep it well below the heap (docs/operations.md, "Receive memory").
 * @param trafficClass DSCP of the node's datagrams (handshake, acks, keepalives, every channel without a traffic-class of its own): a name (EF, AF41, CS6, CS0..CS7, AF11..AF43, LE, DEFAULT) or a number 0..63; DEFAULT (0) leaves them unmarked. ECN bits stay 0. Which networks honour it: docs/operations.md, "Traffic class (DSCP)".
 * @param pathMtuDiscovery Whether connections to peers off this host search for the largest datagram their path carries (RFC 8899 path-MTU discovery by size probes, from message.datagram-budget up to the route's interface MTU, capped at message.max-datagram-budget), falling back to datagram-budget at once when large datagrams are lost while smaller ones pass; false keeps them at datagram-budget (peers on this host grow either way).
 * @param message Message-layer settings (datagram size, resend, large messages, congestion avoidance).
 * @param channels Channels by name; each needs an index (0..n-1, contiguous) that both sides agree on. Without any, four default channels are used: reliable-ordered (0), reliable-unordered (1), unreliable (2), unreliable-sequenced (3).
 * @param peers Named peers, connected when the application starts and reconnected with backoff.
 * @param reconnect Backoff of reconnection attempts to named peers.
 * @param security Security settings.
 * @param linkConditioner Seeded link conditioner on outgoing datagrams (loss, latency, duplication); for tests and demos.
 * @param template Defaults of the ReliableUdpTemplate.
 * @param listener Settings of @UdpMessageListener containers.
 * @param headers Which message headers travel in the envelope (outbound) and which carried headers listeners see (inbound).
 * @param observation The keys of send and listener observations.
 */
@ConfigurationProperties("reliable-udp")
public record ReliableUdpProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("0.0.0.0") String bindAddress,
        @DefaultValue("0") int port,
        @DefaultValue("true") boolean acceptIncoming,
        @DefaultValue("8192") int maxConnections,
        @DefaultValue("5932723194518634496") long protocolId,
        @DefaultValue("60") double sendRate,
        @DefaultValue("1s") Duration keepAliveInterval,
        @DefaultValue("5s") Duration timeout,
        @DefaultValue("5s") Duration connectTimeout,
        @DefaultValue("0ms") Duration sendQueueWait,
        @DefaultValue("5s") Duration drainTimeout,
        @DefaultValue("platform") ReceiveThreadMode receiveThreadMode,
        @DefaultValue("immediate") SendMode sendMode,
        @DefaultValue("0ms") Duration receiveBusyPoll,
        @DefaultValue("4MB") DataSize socketReceiveBufferSize,
        @DefaultValue("4MB") DataSize socketSendBufferSize,
        @DefaultValue("1") int ioThreads,
        @DefaultValue("0") int dedicatedSockets,
        @DefaultValue("off") BatchedIo batchedIo,
        @DefaultValue("256MB") DataSize receiveMemoryLimit,
        @DefaultValue("default") String trafficClass,
        @DefaultValue("true") boolean pathMtuDiscovery,
        @DefaultValue Message message,
        @DefaultValue Map<String, Channel> channels,
        @DefaultValue Map<String, PeerProperties> peers,
        @DefaultValue Reconnect reconnect,
        @DefaultValue Security security,
        @DefaultValue LinkConditioner linkConditioner,
        @DefaultValue Template template,
        @DefaultValue Listener listener,
        @DefaultValue Headers headers,
        @DefaultValue Observation observation) {

    /**
     * Message-layer settings.
     *
     * @param datagramBudget Most bytes of one UDP payload, every header included (256..65507; 1200 stays under common MTUs).
     * @param maxDatagramBudget Most bytes of one UDP payload a connection grows to once its packets fill up and the peer answered a size probe of that size: towards peers on loopback addresses up to the loopback MTU, towards others up to what path-mtu-discovery finds (0..65507; a value at or below datagram-budget turns the growth off). Also the largest datagram this node accepts.
     * @param resendPolicy When reliable messages are resent: RTT_BASED (after about one round trip) or EVERY_PACKET (lowest latency, most bandwidth).
     * @param resendRttFactor Under RTT_BASED the resend interval is the larger of RTT times this factor and RTT + 4 x RTT variance, clamped by the min and max resend intervals (0.5..10).
     * @param minResendInterval Lower bound of the resend interval (the timer itself is RTT + max(4 x RTT variance, the peer's ack bound) + ack delay within a stream, RTT + max(4 x RTT variance, 1 ms) for a packet sent alone).
     * @param maxResendInterval Longest resend interval, also the cap of the backoff while nothing is acknowledged (at most 60s).
     * @param ackDelay IMMEDIATE mode: at most one ack-only packet per ack delay, so the longest time a data packet of a stream waits for its acknowledgement (a packet going back within it carries the ack); a data packet alone (no ack-only packet within the last ack delay) or one that reveals a gap is acknowledged at once, 0..500ms.
     * @param fastRecovery Whether a reliable message is resent as soon as the acknowledgements show its packet lost, not only when its resend timer runs out.
     * @param maxMessageSize Largest message a send accepts, envelope included (a byte[] without headers adds 4 bytes, so a 1 MiB byte[] fails); larger ones fail with TOO_LARGE.
     * @param sliceSize Slice size of large messages (64..1024 bytes).
     * @param maxBytesInFlight Cap on unacknowledged large-message bytes in flight per connection.
     * @param congestionAvoidance Whether to lower the send rate while the link is congested.
     * @param congestionControl Which congestion controller limits the sender: DELIVERY_RATE (BBR-like, from the delivery rate and the delay; random loss does not cut the rate), GAFFER (the good/bad mode: a third of the send rate for 1..60 s once the RTT or the loss estimate crosses its threshold) or NONE.
     * @param receiveMemoryLimit Most bytes one connection holds for its peer: reassembly of sliced messages, messages of an ordered channel that arrived before an earlier one, messages held for a paused channel (unset: 16MB, or twice max-message-size when that is more; at least max-message-size). A packet that would pass it is refused, not acknowledged, so the sender resends it and its queue fills while the receiver stays full; the last max-message-size bytes are kept for the message a channel waits for.
     */
    public record Message(
            @DefaultValue("1200") int datagramBudget,
            @DefaultValue("8952") int maxDatagramBudget,
            @DefaultValue("rtt-based") ResendPolicy resendPolicy,
            @DefaultValue("1.1") double resendRttFactor,
            @DefaultValue("1ms") Duration minResendInterval,
            @DefaultValue("1s") Duration maxResendInterval,
            @DefaultValue("1ms") Duration ackDelay,
            @DefaultValue("true") boolean fastRecovery,
            @DefaultValue("1MB") DataSize maxMessageSize,
            @DefaultValue("1024") int sliceSize,
            @DefaultValue("256KB") DataSize maxBytesInFlight,
            @DefaultValue("true") boolean congestionAvoidance,
            @DefaultValue("delivery-rate") CongestionControl congestionControl,
            @Nullable DataSize receiveMemoryLimit) {
    }

    /**
     * One channel.
     *
     * @param index The channel index on the wire (0..63); both sides must use the same index for the same channel.
     * @param deliveryMode How messages on the channel are delivered: RELIABLE_ORDERED, RELIABLE_UNORDERED, UNRELIABLE or UNRELIABLE_SEQUENCED.
     * @param maxQueuedMessages Most messages waiting to be sent or acknowledged on the channel, per connection.
     * @param maxQueuedBytes Most payload bytes waiting to be sent or acknowledged on the channel, per connection.
     * @param redundancy Reliable channels: copies of each small (up to 256 bytes) message in the next k packets while it is unacknowledged, 0..8 (lowest tail latency under loss, at a bandwidth cost).
     * @param trafficClass DSCP of this channel's datagrams instead of the node's traffic-class (a name such as EF, AF41, CS6, or 0..63; unset: the node's); a datagram carries one class, so channels of different classes never share one.
     * @param ackMode When the template's send futures on this channel complete: RECEIVED (the peer's node acknowledged, before any listener ran) or PROCESSED (the remote listener returned; fails with the remote error's category when it threw after its retries).
     * @param ttl Time-to-live of every message of the channel (unset: none): a message not acknowledged in time is no longer sent, its send fails with EXPIRED, and the peer skips it and never delivers it older than this (docs/messages.md); both sides should set the same.
     */
    public record Channel(
            @Nullable Integer index,
            @DefaultValue("reliable-ordered") DeliveryMode deliveryMode,
            @DefaultValue("4096") int maxQueuedMessages,
            @DefaultValue("16MB") DataSize maxQueuedBytes,
            @DefaultValue("0") int redundancy,
            @Nullable String trafficClass,
            @DefaultValue("received") AckMode ackMode,
            @Nullable Duration ttl) {
    }

    /**
     * One named peer: a fixed address, or a service from Spring Cloud discovery (with
     * {@code reliable-udp-spring-cloud} on the class path).
     *
     * @param address The peer's address as host:port ([v6]:port for IPv6). Not with service-id.
     * @param serviceId The discovery service id whose instances this name stands for (needs reliable-udp-spring-cloud); each instance's UDP port comes from its metadata (reliable-udp.port), else from port.
     * @param port With service-id: the UDP port of instances whose metadata names none.
     */
    public record PeerProperties(@Nullable String address, @Nullable String serviceId, @Nullable Integer port) {

        /** Whether this peer is a discovery service (service-id set). */
        public boolean isService() {
            return serviceId != null && !serviceId.isBlank();
        }
    }

    /**
     * Reconnection backoff for named peers.
     *
     * @param initialBackoff Wait before the first retry after a failed connect or a lost connection.
     * @param maxBackoff Longest wait between attempts.
     * @param multiplier Growth of the wait per failed attempt (1..100).
     */
    public record Reconnect(
            @DefaultValue("200ms") Duration initialBackoff,
            @DefaultValue("10s") Duration maxBackoff,
            @DefaultValue("2.0") double multiplier) {
    }

    /**
     * Security settings: a pre-shared key, a node identity with an allow-list of peer keys, or both.
     *
     * @param preSharedKey 32-byte key, base64, shared by every node; turns on ChaCha20-Poly1305 encryption. Never logged. Generate one with "openssl rand -base64 32".
     * @param identity This node's static X25519 key pair, proved in every handshake; needs allowed-peers.
     * @param allowedPeers Peers admitted by their X25519 public key, by name (the name reaches listeners in the rudp_peerIdentity header and meters in the peer tag); a name may list two keys while one is rotated. Needs identity.
     * @param reloadInterval How often the key files named by identity.private-key-location and allowed-peers.*.public-key-locations are read again, so a rotated key (a renewed Kubernetes secret) takes effect for new handshakes without a restart (0 = read once at start).
     */
    public record Security(
            @Nullable String preSharedKey,
            @DefaultValue Identity identity,
            @DefaultValue Map<String, AllowedPeer> allowedPeers,
            @DefaultValue("0s") Duration reloadInterval) {

        @Override
        public String toString() {
            return "Security[preSharedKey=" + (preSharedKey == null ? "none" : "[redacted]") + ", identity=" + identity
                    + ", allowedPeers=" + allowedPeers.keySet() + ", reloadInterval=" + reloadInterval + "]";
        }
    }

    /**
     * The node's static key pair, inline or from a resource (not both).
     *
     * @param privateKey X25519 private key: 32 raw bytes in base64, or a PEM "PRIVATE KEY" block as "openssl genpkey -algorithm X25519" writes it. Never logged.
     * @param privateKeyLocation Resource holding the private key in either form, e.g. file:/etc/reliable-udp/node.key (a Kubernetes secret mount).
     */
    public record Identity(@Nullable String privateKey, @Nullable Resource privateKeyLocation) {

        /** Whether an identity is configured. */
        public boolean isSet() {
            return (privateKey != null && !privateKey.isBlank()) || privateKeyLocation != null;
        }

        @Override
        public String toString() {
            return "Identity[privateKey=" + (privateKey == null ? "none" : "[redacted]") + ", privateKeyLocation="
                    + (privateKeyLocation == null ? "none" : privateKeyLocation.getDescription()) + "]";
        }
    }

    /**
     * One allowed peer: its public keys, inline or from resources (both may be used; every key listed is accepted).
     *
     * @param publicKeys X25519 public keys: 32 raw bytes in base64, or PEM "PUBLIC KEY" blocks ("openssl pkey -pubout").
     * @param publicKeyLocations Resources each holding one or more public keys in either form (one base64 key per line, or PEM blocks).
     */
    public record AllowedPeer(@DefaultValue List<String> publicKeys, @DefaultValue List<Resource> publicKeyLocations) {
    }

    /**
     * The seeded link conditioner.
     *
     * @param enabled Whether to condition outgoing datagrams.
     * @param latency Fixed one-way delay.
     * @param jitter Extra delay drawn uniformly from 0..jitter.
     * @param loss Probability (0..1) that a datagram is lost.
     * @param burstEnter Probability (0..1) per datagram to enter a loss burst (0 = no bursts).
     * @param burstExit Probability (0..1) per datagram to leave a loss burst.
     * @param burstLoss Loss probability (0..1) inside a burst.
     * @param duplicate Probability (0..1) that a datagram is delivered twice.
     * @param reorder Probability (0..1) that a datagram is held back by the reorder delay.
     * @param reorderDelay Extra delay of a reordered datagram.
     * @param bandwidth Cap on the delivered rate per second (0 = unlimited).
     * @param queueLimit Bottleneck queue size for the bandwidth cap.
     * @param seed Random seed: the same seed gives the same fates.
     */
    public record LinkConditioner(
            @DefaultValue("false") boolean enabled,
            @DefaultValue("0ms") Duration latency,
            @DefaultValue("0ms") Duration jitter,
            @DefaultValue("0") double loss,
            @DefaultValue("0") double burstEnter,
            @DefaultValue("1") double burstExit,
            @DefaultValue("0") double burstLoss,
            @DefaultValue("0") double duplicate,
            @DefaultValue("0") double reorder,
            @DefaultValue("0ms") Duration reorderDelay,
            @DefaultValue("0B") DataSize bandwidth,
            @DefaultValue("1MB") DataSize queueLimit,
            @DefaultValue("1") long seed) {
    }

    /**
     * Which keys send and listener observations carry (an ObservationConvention bean of the application replaces either).
     *
     * @param convention reliable-udp: reliable-udp's own keys (reliable.udp.channel, reliable.udp.peer, ...); open-telemetry: the keys of OpenTelemetry's messaging semantic conventions (messaging.system, messaging.operation.type, messaging.destination.name, messaging.message.id, network.peer.address, ...). The observation and timer names (reliable.udp.send, reliable.udp.process) stay the same.
     */
    public record Observation(@DefaultValue("reliable-udp") ObservationConventionKind convention) {
    }

    /** The key sets of observations. */
    public enum ObservationConventionKind {
        /** reliable-udp's own keys: reliable.udp.*. */
        RELIABLE_UDP,
        /** OpenTelemetry's messaging semantic conventions: messaging.*, network.peer.*. */
        OPEN_TELEMETRY
    }

    /**
     * Template defaults.
     *
     * @param defaultPeer Peer used when a send names none (a peer name or host:port).
     * @param defaultChannel Channel used when a send names none (a channel name; the channel with index 0 when unset).
     * @param defaultUnreliableChannel Channel used by sendUnreliable when none is named (the first unreliable channel when unset).
     * @param observationEnabled Whether sends are observed (Micrometer Observation: a reliable.udp.send timer and a span per send) when an ObservationRegistry is available. Off by default: with Boot's meter handler an observation costs two to three times a send's own CPU time, on the node's I/O thread (docs/spring.md, "Observations").
     * @param replyTimeout How long sendAndReceive waits for the reply when no timeout is given.
     */
    public record Template(
            @Nullable String defaultPeer,
            @Nullable String defaultChannel,
            @Nullable String defaultUnreliableChannel,
            @DefaultValue("false") boolean observationEnabled,
            @DefaultValue("5s") Duration replyTimeout) {
    }

    /**
     * Listener container settings.
     *
     * @param autoStartup Whether listener containers start with the application context.
     * @param observationEnabled Whether listener invocations are observed (Micrometer Observation) when an ObservationRegistry is available.
     * @param concurrency Messages of one peer and channel handled at once on an unordered channel (reliable-unordered, unreliable); ordered and sequenced channels stay one at a time per peer and channel.
     * @param retry Retries of a failed listener call before its error handler (recoverer) gets it.
     * @param errorReplyDetails Whether an error reply (to a request, or to a send of ack mode processed) carries the exception's class name and message (at most 1,000 characters); by default it carries a category only (LISTENER_FAILED, NOT_ACCEPTED, ...), since an exception's message may name internals a peer should not see.
     * @param maxQueuedMessages Most messages each listener holds in hand (queued for it or running), over all its peers and channels: at this many its channels are paused in the node, which holds their further messages and, past its receive memory limits, stops acknowledging them, so the senders' sends fail with QUEUE_FULL instead of the heap growing; they resume at half of it.
     */
    public record Listener(
            @DefaultValue("true") boolean autoStartup,
            @DefaultValue("true") boolean observationEnabled,
            @DefaultValue("1") int concurrency,
            @DefaultValue Retry retry,
            @DefaultValue("false") boolean errorReplyDetails,
            @DefaultValue("1000") int maxQueuedMessages) {
    }

    /**
     * Header mapping of the default header mapper (a UdpHeaderMapper bean of the application replaces it).
     *
     * @param inbound Carried headers a listener (or an inbound Integration flow) sees, as patterns (* wildcards, a leading ! excludes, the first match decides). Empty by default: only the rudp_* transport headers, which come from the connection, and the content type; a header a peer chose passes only when named here.
     * @param outbound Headers a send carries, as patterns (* wildcards, a leading ! excludes, the first match decides); the transport headers (rudp_*), id, timestamp, contentType, replyChannel and errorChannel are never carried.
     */
    public record Headers(
            @DefaultValue List<String> inbound,
            @DefaultValue("*") List<String> outbound) {
    }

    /**
     * Listener retries (exponential back off on the listener's thread; on an ordered channel a retry holds back that peer's later messages).
     *
     * @param maxRetries Retries after the first attempt (0 = none).
     * @param initialInterval First wait between attempts.
     * @param multiplier Growth of the wait per retry (1 = fixed).
     * @param maxInterval Longest wait between attempts.
     */
    public record Retry(
            @DefaultValue("0") int maxRetries,
            @DefaultValue("100ms") Duration initialInterval,
            @DefaultValue("2.0") double multiplier,
            @DefaultValue("10s") Duration maxInterval) {
    }
}
