package io.reliableudp.spring.boot.actuate.endpoint;

import io.reliableudp.DisconnectReason;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code reliableudp} actuator endpoint.
 *
 * <ul>
 *   <li>read ({@code GET /actuator/reliableudp}): every node with its configuration, link
 *       conditioner, node statistics and peers (state, RTT, loss, bandwidth, packet counters,
 *       channels with their queues).</li>
 *   <li>read by peer ({@code GET /actuator/reliableudp/{peer}}): one peer, by configured name or
 *       {@code host:port}, on every node that has it.</li>
 *   <li>delete ({@code DELETE /actuator/reliableudp/{peer}}): disconnects that peer.</li>
 *   <li>write ({@code POST /actuator/reliableudp}): sets or removes the link conditioner of one node
 *       or of all.</li>
 * </ul>
 * Its default access is read-only: the two changing operations exist only when
 * {@code management.endpoint.reliableudp.access=unrestricted} (and the endpoint is exposed).
 */
@Endpoint(id = ReliableUdpEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class ReliableUdpEndpoint {

    /** The endpoint id. */
    public static final String ID = "reliableudp";

    private final Map<String, ReliableUdpNode> nodes;
    private final UdpPeerDirectory names;
    private final Map<String, LinkConditionerConfig> conditioners = new ConcurrentHashMap<>();

    /**
     * Creates the endpoint.
     *
     * @param nodes the nodes by bean name
     * @param names the configured peer names
     */
    public ReliableUdpEndpoint(Map<String, ReliableUdpNode> nodes, UdpPeerDirectory names) {
        this.nodes = new TreeMap<>(nodes);
        this.names = names;
    }

    /**
     * Every node, its peers, channels and queues.
     *
     * @return the report
     */
    @ReadOperation
    public NodesReport nodes() {
        Map<String, NodeReport> out = new LinkedHashMap<>();
        nodes.forEach((name, node) -> out.put(name, node(name, node)));
        return new NodesReport(out);
    }

    /**
     * One peer on every node that has it.
     *
     * @param peer configured name or {@code host:port} ({@code [v6]:port})
     * @return the peer by node name, or null (404) when no node has it
     */
    @ReadOperation
    public @Nullable PeerMatches peer(@Selector String peer) {
        Map<String, PeerReport> out = new LinkedHashMap<>();
        InetSocketAddress address = resolve(peer);
        if (address == null) {
            return null;
        }
        nodes.forEach((name, node) -> {
            Peer p = node.isOpen() ? node.peer(address) : null;
            if (p != null) {
                out.put(name, peer(p));
            }
        });
        return out.isEmpty() ? null : new PeerMatches(out);
    }

    /**
     * Disconnects a peer (redundant disconnect packets; its pending sends fail with CLOSED).
     *
     * @param peer configured name or {@code host:port}
     * @return what was disconnected, or null (404) when no node has that peer
     */
    @DeleteOperation
    public @Nullable DisconnectResult disconnect(@Selector String peer) {
        InetSocketAddress address = resolve(peer);
        if (address == null) {
            return null;
        }
        List<String> done = new ArrayList<>();
        nodes.forEach((name, node) -> {
            Peer p = node.isOpen() ? node.peer(address) : null;
            if (p != null) {
                p.disconnect();
                done.add(name);
            }
        });
        return done.isEmpty() ? null : new DisconnectResult(names.tagName(address), UdpAddresses.format(address), done);
    }

    /**
     * Sets the link conditioner on outgoing datagrams of one node (or every node), at run time.
     * Unset parameters take the values of a perfect link; {@code enabled=false} removes the conditioner.
     *
     * @param node the node's bean name; null = every node
     * @param enabled false removes the conditioner (default true)
     * @param latencyMillis fixed one-way delay
     * @param jitterMillis extra random delay up to this
     * @param lossProbability random loss 0..1
     * @param burstEnterProbability Gilbert-Elliott good-to-bad probability
     * @param burstExitProbability Gilbert-Elliott bad-to-good probability
     * @param burstLossProbability loss in the bad state
     * @param duplicateProbability duplication 0..1
     * @param reorderProbability probability of holding a datagram back
     * @param reorderDelayMillis how long a reordered datagram is held
     * @param bandwidthBytesPerSecond rate cap (0 = none)
     * @param queueLimitBytes bottleneck queue of the rate cap
     * @param seed random seed
     * @return the conditioner now in force per node (nodes that are not running are skipped)
     * @throws InvalidEndpointRequestException (400) for an unknown or stopped node, or an invalid value
     */
    @WriteOperation
    public LinkConditionerResult linkConditioner(@Nullable String node, @Nullable Boolean enabled,
            @Nullable Double latencyMillis, @Nullable Double jitterMillis, @Nullable Double lossProbability,
            @Nullable Double burstEnterProbability, @Nullable Double burstExitProbability,
            @Nullable Double burstLossProbability, @Nullable Double duplicateProbability,
            @Nullable Double reorderProbability, @Nullable Double reorderDelayMillis,
            @Nullable Long bandwidthBytesPerSecond, @Nullable Long queueLimitBytes, @Nullable Long seed) {
        if (node != null && !nodes.containsKey(node)) {
            throw new InvalidEndpointRequestException("no reliable-udp node named '" + node + "'", "unknown node");
        }
        LinkConditionerConfig config = null;
        if (enabled == null || enabled) {
            LinkConditionerConfig p = LinkConditionerConfig.PERFECT;
            try {
                config = new LinkConditionerConfig(
                        or(latencyMillis, p.latencyMillis()), or(jitterMillis, p.jitterMillis()),
                        or(lossProbability, p.lossProbability()), or(burstEnterProbability, p.burstEnterProbability()),
                        or(burstExitProbability, p.burstExitProbability()), or(burstLossProbability, p.burstLossProbability()),
                        or(duplicateProbability, p.duplicateProbability()), or(reorderProbability, p.reorderProbability()),
                        or(reorderDelayMillis, p.reorderDelayMillis()),
                        bandwidthBytesPerSecond == null ? p.bandwidthBytesPerSecond() : bandwidthBytesPerSecond,
                        queueLimitBytes == null ? p.queueLimitBytes() : queueLimitBytes,
                        seed == null ? p.seed() : seed);
            } catch (IllegalArgumentException e) {
                throw new InvalidEndpointRequestException(e.getMessage(), "invalid link conditioner");
            }
        }
        if (node != null && !nodes.get(node).isOpen()) {
            throw new InvalidEndpointRequestException("reliable-udp node '" + node + "' is not running", "node not running");
        }
        Map<String, @Nullable LinkConditionerConfig> applied = new LinkedHashMap<>();
        for (Map.Entry<String, ReliableUdpNode> e : nodes.entrySet()) {
            if ((node == null || node.equals(e.getKey())) && e.getValue().isOpen()) {
                e.getValue().setLinkConditioner(config);
                conditioners.put(e.getKey(), config == null ? NONE : config);
                applied.put(e.getKey(), config);
            }
        }
        return new LinkConditionerResult(applied);
    }

    /** Marks "removed at run time" in the map (which cannot hold null). */
    private static final LinkConditionerConfig NONE = new LinkConditionerConfig(0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0);

    private @Nullable LinkConditionerConfig conditioner(String name, ReliableUdpNode node) {
        LinkConditionerConfig set = conditioners.get(name);
        if (set == null) {
            return node.config().linkConditioner();
        }
        return set == NONE ? null : set;
    }

    private static double or(@Nullable Double value, double otherwise) {
        return value == null ? otherwise : value;
    }

    /** The address of a configured name or of {@code host:port}; null (so 404) for any other text: no node has such a peer. */
    private @Nullable InetSocketAddress resolve(String peer) {
        InetSocketAddress named = names.addressOf(peer);
        if (named != null) {
            return named;
        }
        if (!UdpAddresses.looksLikeAddress(peer)) {
            return null;
        }
        try {
            return UdpAddresses.parse(peer);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private NodeReport node(String name, ReliableUdpNode node) {
        boolean open = node.isOpen();
        List<PeerReport> peers = new ArrayList<>();
        if (open) {
            for (Peer p : node.peers()) {
                peers.add(peer(p));
            }
            peers.sort(Comparator.comparing(PeerReport::name).thenComparing(PeerReport::address));
        }
        return new NodeReport(open, open ? UdpAddresses.format(node.localAddress()) : null,
                ConfigReport.of(node.config()), conditioner(name, node), open ? node.stats() : null, peers);
    }

    private PeerReport peer(Peer p) {
        PeerStats s = p.stats();
        int queuedMessages = 0;
        long queuedBytes = 0;
        List<ChannelReport> channels = new ArrayList<>();
        for (ChannelStats c : s.channels()) {
            queuedMessages += c.queuedMessages();
            queuedBytes += c.queuedBytes();
            channels.add(new ChannelReport(c.channel(), c.mode(), c.messagesSent(), c.messagesAcked(),
                    c.messagesResent(), c.messagesReceived(), c.messagesDropped(), c.duplicatesDropped(),
                    c.queuedMessages(), c.queuedBytes()));
        }
        return new PeerReport(names.tagName(p), UdpAddresses.format(p.address()), identityOf(p), s.state(),
                p.disconnectReason(), s.rttMillis(), s.rttMinMillis(), s.rttMaxMillis(), s.rttAvgMillis(),
                s.jitterAvgVsMinMillis(), s.jitterMaxVsMinMillis(), s.jitterStddevMillis(),
                Math.min(1.0, Math.max(0.0, s.packetLossPercent() / 100.0)),
                s.sentKbps(), s.receivedKbps(), s.ackedKbps(), s.congested(), s.sendRateHz(),
                s.bytesSent(), s.bytesReceived(), queuedMessages, queuedBytes, s.receiveMemoryBytes(),
                s.memoryRefusals(), new TreeMap<>(s.packetCounters()), channels);
    }

    /**
     * Response of the read operation.
     *
     * @param nodes every node by bean name
     */
    public record NodesReport(Map<String, NodeReport> nodes) implements OperationResponseBody {
    }

    /**
     * One node.
     *
     * @param open whether the socket is open
     * @param localAddress the bound address, null when closed
     * @param config the node's settings (never the key)
     * @param linkConditioner the link conditioner in force, null when none
     * @param stats the node's counters, null while the node is not open
     * @param peers its peers, by name then address
     */
    public record NodeReport(boolean open, @Nullable String localAddress, ConfigReport config,
            @Nullable LinkConditionerConfig linkConditioner, @Nullable NodeStats stats, List<PeerReport> peers) {
    }

    /**
     * The settings of a node an operator needs (the pre-shared key is never shown, only whether there is one).
     *
     * @param bindAddress configured bind address
     * @param acceptIncoming server role
     * @param maxConnections connection limit
     * @param protocolId protocol id in hex
     * @param sendRateHz packets per second per connection
     * @param keepAliveIntervalMillis keep-alive interval
     * @param timeoutMillis silence before a connection times out
     * @param connectTimeoutMillis handshake limit
     * @param encrypted whether a pre-shared key or an identity is set
     * @param publicKey the node's X25519 public key (Base64) as configured at start, null without an identity
     * @param allowedPeers the names on the allow-list as configured at start
     * @param channels delivery mode and queue limits per channel
     */
    public record ConfigReport(String bindAddress, boolean acceptIncoming, int maxConnections, String protocolId,
            double sendRateHz, long keepAliveIntervalMillis, long timeoutMillis, long connectTimeoutMillis,
            boolean encrypted, @Nullable String publicKey, List<String> allowedPeers, List<ChannelConfig> channels) {

        static ConfigReport of(NodeConfig c) {
            return new ConfigReport(UdpAddresses.format(c.bindAddress()), c.acceptIncoming(), c.maxConnections(),
                    "0x" + Long.toHexString(c.protocolId()), c.sendRateHz(), c.keepAliveInterval().toMillis(),
                    c.timeout().toMillis(), c.connectTimeout().toMillis(), c.encrypted(),
                    c.identity() == null ? null : c.identity().publicKey().toBase64(),
                    c.allowedPeers().stream().map(PeerIdentity::name).distinct().toList(), c.message().channels());
        }
    }

    private static @Nullable IdentityReport identityOf(Peer p) {
        PeerIdentity identity = p.identity();
        return identity == null ? null : new IdentityReport(identity.name(), identity.key().toBase64());
    }

    /**
     * The identity a peer proved in its handshake.
     *
     * @param name the allow-list entry's name
     * @param publicKey the key it proved, Base64
     */
    public record IdentityReport(String name, String publicKey) {
    }

    /**
     * One peer. Times in milliseconds, loss as a ratio 0..1, bandwidth in kilobits per second.
     *
     * @param name configured name, else the allow-list name it proved, else {@value io.reliableudp.spring.core.UdpPeerDirectory#OTHER}
     * @param address {@code host:port}
     * @param identity the verified identity, null when the connection is not authenticated by static keys
     * @param state connection state
     * @param disconnectReason why it ended, null while it has not
     * @param rttMillis smoothed RTT
     * @param rttMinMillis minimum RTT over the history
     * @param rttMaxMillis maximum RTT over the history
     * @param rttAvgMillis mean RTT over the history
     * @param jitterMillis mean of (sample - min)
     * @param jitterMaxMillis max of (sample - min)
     * @param jitterStddevMillis standard deviation of the samples
     * @param packetLoss smoothed packet loss 0..1
     * @param sentKbps smoothed sent bandwidth
     * @param receivedKbps smoothed received bandwidth
     * @param ackedKbps smoothed acked bandwidth
     * @param congested congestion avoidance in its bad mode
     * @param sendRateHz current send rate
     * @param bytesSent datagram bytes sent
     * @param bytesReceived datagram bytes received
     * @param queuedMessages messages waiting on all channels
     * @param queuedBytes payload bytes waiting on all channels
     * @param receiveMemoryBytes bytes this node holds for the peer (reassembly, early ordered arrivals,
     *     messages of paused channels)
     * @param memoryRefusals packets of the peer refused (not acknowledged) at a receive memory limit
     * @param packetCounters packet-layer counters by snake_case name
     * @param channels per channel
     */
    public record PeerReport(String name, String address, @Nullable IdentityReport identity, PeerState state, @Nullable DisconnectReason disconnectReason,
            double rttMillis, double rttMinMillis, double rttMaxMillis, double rttAvgMillis, double jitterMillis,
            double jitterMaxMillis, double jitterStddevMillis, double packetLoss, double sentKbps, double receivedKbps,
            double ackedKbps, boolean congested, double sendRateHz, long bytesSent, long bytesReceived,
            int queuedMessages, long queuedBytes, long receiveMemoryBytes, long memoryRefusals,
            Map<String, Long> packetCounters, List<ChannelReport> channels) {
    }

    /**
     * One channel of a peer.
     *
     * @param channel index
     * @param mode delivery mode
     * @param messagesSent accepted for sending
     * @param messagesAcked acknowledged by the peer
     * @param messagesResent retransmissions
     * @param messagesDelivered delivered to the application
     * @param messagesDropped dropped
     * @param duplicatesDropped received duplicates dropped
     * @param queuedMessages waiting to be sent or acknowledged
     * @param queuedBytes payload bytes waiting
     */
    public record ChannelReport(int channel, DeliveryMode mode, long messagesSent, long messagesAcked,
            long messagesResent, long messagesDelivered, long messagesDropped, long duplicatesDropped,
            int queuedMessages, long queuedBytes) {
    }

    /**
     * Response of the read-by-peer operation.
     *
     * @param nodes the peer as each node that has it sees it, by node name
     */
    public record PeerMatches(Map<String, PeerReport> nodes) implements OperationResponseBody {
    }

    /**
     * Response of the disconnect operation.
     *
     * @param peer configured name or {@value io.reliableudp.spring.core.UdpPeerDirectory#OTHER}
     * @param address the peer's address
     * @param nodes the nodes that disconnected it
     */
    public record DisconnectResult(String peer, String address, List<String> nodes) implements OperationResponseBody {
    }

    /**
     * Response of the link conditioner operation.
     *
     * @param nodes the conditioner now in force per node (null = none)
     */
    public record LinkConditionerResult(Map<String, @Nullable LinkConditionerConfig> nodes)
            implements OperationResponseBody {
    }
}
