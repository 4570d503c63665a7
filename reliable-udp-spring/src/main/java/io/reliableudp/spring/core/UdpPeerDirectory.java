package io.reliableudp.spring.core;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;

/**
 * The peers of one node by name: which address a configured name ({@code reliable-udp.peers.<name>})
 * stands for, what a peer is called in headers, logs, meters and the actuator endpoint, how a
 * {@code host:port} target is read (through {@link UdpAddresses}, the one parser), and the connection
 * of named peers: connected when the node starts, reconnected with the {@link ReconnectPolicy} after a
 * failed handshake or a lost connection.
 *
 * <p>Names are fixed when the directory is built; metrics, health and the actuator endpoint read them
 * from here rather than binding the properties again. A peer without a configured name is named by its
 * {@code host:port} in headers ({@link #label}) and {@value #OTHER} in meter tags ({@link #tagName}).
 *
 * <p>A name may also stand for a {@link UdpPeerGroup} (a service whose instances come and go, e.g.
 * from service discovery): {@link #resolve(String, Object)} asks the group to choose an instance (by
 * key, or balanced), connects to it, and re-routes the message to another instance while it has not
 * been handed to a connection yet (the chosen instance failed to connect, or departed meanwhile).
 * Members of a group are named by the group's name in meters, health and {@link #nameOf}; their
 * {@link #label} stays {@code host:port} (a reply addressed by label reaches that instance).
 *
 * <p>Sends to a named peer keep their call order while it connects: they wait in one bounded FIFO per
 * named peer, handed to the connection in order ({@link #send(String, Object, int, byte[])}).
 *
 * <p>The directory itself is the names; the connections are two package-private classes it hands to:
 * {@code PeerConnections} (resolve and send by name, group or address; the running node) and one
 * {@code NamedPeerConnection} per named peer (connect, reconnect backoff, the waiting sends).
 *
 * <p>Thread-safe. The reconnect state and the waiting sends are per named peer, under that peer's lock.
 */
public final class UdpPeerDirectory {

    /** The bounded name of every peer without a configured name (meter tags, health, observations). */
    public static final String OTHER = ReliableUdpObservation.UNKNOWN_PEER;

    private final Map<InetSocketAddress, String> byAddress;
    private final Map<String, InetSocketAddress> addresses;
    private final Map<String, UdpPeerGroup> groupsByName;
    /** The groups as an array: {@link #nameOf} walks it on the receive thread without allocating. */
    private final UdpPeerGroup[] groups;

    /** Resolve, send, connect and reconnect: the directory's connection half. */
    private final PeerConnections connections;

    /**
     * Builds the directory.
     *
     * @param peers configured name to address; a name must not be blank nor {@value #OTHER}, and two
     *     names must not share an address
     * @param reconnectPolicy the backoff of named peers
     * @throws IllegalArgumentException naming the offending entry
     */
    public UdpPeerDirectory(Map<String, InetSocketAddress> peers, ReconnectPolicy reconnectPolicy) {
        this(peers, reconnectPolicy, List.of());
    }

    /**
     * Builds the directory with peer groups.
     *
     * @param peers configured name to address (as {@link #UdpPeerDirectory(Map, ReconnectPolicy)})
     * @param reconnectPolicy the backoff of named peers
     * @param peerGroups groups, each with a name of its own that no static peer has
     * @throws IllegalArgumentException naming the offending entry
     */
    public UdpPeerDirectory(Map<String, InetSocketAddress> peers, ReconnectPolicy reconnectPolicy,
            Collection<? extends UdpPeerGroup> peerGroups) {
        Objects.requireNonNull(reconnectPolicy, "reconnectPolicy");
        Map<InetSocketAddress, String> reverse = new LinkedHashMap<>();
        Map<String, InetSocketAddress> plain = new LinkedHashMap<>();
        peers.forEach((name, address) -> {
            if (name.isBlank() || OTHER.equals(name)) {
                throw new IllegalArgumentException("a peer name must not be blank nor '" + OTHER + "', was '" + name + "'");
            }
            String previous = reverse.putIfAbsent(address, name);
            if (previous != null) {
                throw new IllegalArgumentException("peer '" + name + "' has the address " + UdpAddresses.format(address)
                        + " of peer '" + previous + "'");
            }
            plain.put(name, address);
        });
        this.byAddress = Collections.unmodifiableMap(reverse);
        this.addresses = Collections.unmodifiableMap(plain);
        Map<String, UdpPeerGroup> g = new LinkedHashMap<>();
        for (UdpPeerGroup group : peerGroups) {
            String name = group.name();
            if (name.isBlank() || OTHER.equals(name)) {
                throw new IllegalArgumentException("a peer group name must not be blank nor '" + OTHER + "', was '" + name + "'");
            }
            if (plain.containsKey(name) || g.putIfAbsent(name, group) != null) {
                throw new IllegalArgumentException("peer '" + name + "' is configured twice (an address and a group, or two groups)");
            }
        }
        this.groupsByName = Collections.unmodifiableMap(g);
        this.groups = g.values().toArray(new UdpPeerGroup[0]);
        this.connections = new PeerConnections(this, reconnectPolicy);
    }

    /**
     * A directory without named peers (every peer is {@value #OTHER}).
     *
     * @return the empty directory
     */
    public static UdpPeerDirectory none() {
        return new UdpPeerDirectory(Map.of(), ReconnectPolicy.DEFAULT);
    }

    /**
     * A directory of names only (no node attached): for meters, health and endpoint tests.
     *
     * @param peers name to address
     * @return the directory
     */
    public static UdpPeerDirectory of(Map<String, InetSocketAddress> peers) {
        return new UdpPeerDirectory(peers, ReconnectPolicy.DEFAULT);
    }

    /**
     * The names of the managed nodes among some nodes, in one directory (names only, no node attached):
     * how metrics, health and the actuator endpoint name peers without binding the properties again. A
     * name or address already taken by an earlier node is skipped.
     *
     * @param nodes the nodes (those that are not a {@link ManagedReliableUdpNode} name no peer)
     * @return the directory
     */
    public static UdpPeerDirectory namesOf(Collection<? extends ReliableUdpNode> nodes) {
        Map<String, InetSocketAddress> merged = new LinkedHashMap<>();
        Set<InetSocketAddress> taken = new HashSet<>();
        for (ReliableUdpNode n : nodes) {
            if (n instanceof ManagedReliableUdpNode managed) {
                managed.peerDirectory().byName().forEach((name, address) -> {
                    if (!merged.containsKey(name) && taken.add(address)) {
                        merged.put(name, address);
                    }
                });
            }
        }
        return of(merged);
    }

    // ---- names

    /** The configured names, in configuration order. */
    public Set<String> names() {
        return addresses.keySet();
    }

    /** Name to address, in configuration order. */
    public Map<String, InetSocketAddress> byName() {
        return addresses;
    }

    /** True when no peer is named. */
    public boolean isEmpty() {
        return addresses.isEmpty();
    }

    /**
     * The configured name of the peer at an address.
     *
     * @param address the address
     * @return the name, or null when no configured peer has that address
     */
    public @Nullable String nameOf(InetSocketAddress address) {
        String name = byAddress.get(address);
        return name != null ? name : groupOf(address);
    }

    /**
     * The peer groups by name ({@link UdpPeerGroup}), in configuration order.
     *
     * @return the groups
     */
    public Map<String, UdpPeerGroup> groups() {
        return groupsByName;
    }

    /**
     * The group a name stands for.
     *
     * @param name a peer name
     * @return the group, or null when the name is a static peer, an address or unknown
     */
    public @Nullable UdpPeerGroup group(String name) {
        return groupsByName.get(name);
    }

    /** The configured (static) name of an address, without groups. */
    @Nullable String configuredName(InetSocketAddress address) {
        return byAddress.get(address);
    }

    /** The groups as an array (no iterator on the receive thread). */
    UdpPeerGroup[] groupArray() {
        return groups;
    }

    private @Nullable String groupOf(InetSocketAddress address) {
        for (UdpPeerGroup g : groups) {   // an array: no iterator on the receive thread
            if (g.isMember(address)) {
                return g.name();
            }
        }
        return null;
    }

    /**
     * The configured address of a name.
     *
     * @param name the name
     * @return the address, or null
     */
    public @Nullable InetSocketAddress addressOf(String name) {
        return addresses.get(name);
    }

    /**
     * How a peer is called in message headers and logs: its configured name, else its {@code host:port}.
     *
     * @param address the peer's address
     * @return the label, never null
     */
    public String label(InetSocketAddress address) {
        String name = byAddress.get(address);
        return name != null ? name : UdpAddresses.format(address);
    }

    /**
     * The name of a connected peer in meter tags: its configured name (or group), else the name of the
     * allow-list entry whose key it proved ({@link Peer#identity()}; a bounded set, since the allow-list
     * is configuration), else {@value #OTHER}.
     *
     * @param peer the peer
     * @return the tag value
     */
    public String tagName(Peer peer) {
        String name = nameOf(peer.address());
        if (name != null) {
            return name;
        }
        PeerIdentity identity = peer.identity();
        return identity != null ? identity.name() : OTHER;
    }

    /**
     * How a peer is called in meter tags, health details and observations: its configured name, else
     * {@value #OTHER} (bounded cardinality).
     *
     * @param address the peer's address
     * @return the tag value
     */
    public String tagName(InetSocketAddress address) {
        String name = nameOf(address);
        return name != null ? name : OTHER;
    }

    /**
     * Reads a target as the template and the listener filters take it: a configured name, else
     * {@code host:port} ({@code [v6]:port}).
     *
     * @param nameOrAddress the text
     * @return the address (a name's configured address)
     * @throws IllegalArgumentException when it is neither a name nor {@code host:port}
     */
    public InetSocketAddress parseTarget(String nameOrAddress) {
        InetSocketAddress named = addressOf(nameOrAddress);
        if (named != null) {
            return named;
        }
        if (groupsByName.containsKey(nameOrAddress)) {
            throw new IllegalArgumentException("'" + nameOrAddress + "' is a peer group (a service): it has no one address;"
                    + " send to it by name, or choose an instance with resolve(name, key)");
        }
        if (!UdpAddresses.looksLikeAddress(nameOrAddress)) {
            throw new IllegalArgumentException("'" + nameOrAddress + "' is neither a configured peer name nor host:port"
                    + " (configured peers: " + names() + (groupsByName.isEmpty() ? "" : ", groups: " + groupsByName.keySet()) + ")");
        }
        return UdpAddresses.parse(nameOrAddress);
    }

    // ---- connections (PeerConnections)

    /**
     * Attaches the running node: from now on targets resolve to its peers, and named peers reconnect.
     * Called by {@link ManagedReliableUdpNode#start()}.
     *
     * @param running the started node
     * @param reconnectScheduler runs reconnect attempts
     */
    void attach(ReliableUdpNode running, TaskScheduler reconnectScheduler) {
        connections.attach(running, reconnectScheduler);
    }

    /** Detaches the node (it stops): targets fail with {@code CLOSED}, reconnects stop. */
    void detach() {
        connections.detach();
    }

    /** Connects every named peer (without waiting): called once the node is attached. */
    void connectAll() {
        connections.connectAll();
    }

    /**
     * The connected peer for a configured name or a {@code host:port}, connecting when needed.
     *
     * @param nameOrAddress a configured peer name, or {@code host:port}
     * @return a future completed with the connected peer, or failed with a {@link DeliveryException}
     *     ({@link DeliveryFailure#NOT_CONNECTED}, or {@link DeliveryFailure#CLOSED} when the node is not running)
     * @throws IllegalArgumentException when the text is neither a name nor {@code host:port}
     */
    public CompletableFuture<Peer> resolve(String nameOrAddress) {
        return connections.resolve(nameOrAddress, null);
    }

    /**
     * Whether a text names a peer a send can go to: a static name, a group or {@code host:port}.
     *
     * @param nameOrAddress the text
     * @return true when {@link #resolve(String)} would accept it
     */
    public boolean isTarget(String nameOrAddress) {
        return addresses.containsKey(nameOrAddress) || groupsByName.containsKey(nameOrAddress)
                || UdpAddresses.looksLikeAddress(nameOrAddress);
    }

    /**
     * The connected peer for a name, with a routing key for groups: a group chooses the instance by the
     * key (null: balanced) and a message not yet handed to a connection is re-routed to another
     * instance when the chosen one fails to connect or departs meanwhile (each instance tried once).
     *
     * @param nameOrAddress a configured peer name, a group name, or {@code host:port}
     * @param key the routing key (ignored for static peers and addresses), or null
     * @return a future completed with the connected peer, or failed with a {@link DeliveryException}
     *     ({@link DeliveryFailure#NOT_CONNECTED} when no instance could take the message)
     * @throws IllegalArgumentException when the text is neither a name nor {@code host:port}
     */
    public CompletableFuture<Peer> resolve(String nameOrAddress, @Nullable Object key) {
        return connections.resolve(nameOrAddress, key);
    }

    /**
     * Hands a message to a peer by name, group or {@code host:port}, connecting when needed: how the
     * template sends. Sends to a named peer ({@code reliable-udp.peers.<name>}) keep their call order
     * through its connect: those issued while it connects wait in one queue per named peer and are
     * handed to the connection in call order once it is made (or failed in call order with the
     * connect's reason), and a send issued while some still wait queues behind them. The waiting
     * sends count against their channel's queue limits ({@code max-queued-messages},
     * {@code max-queued-bytes}): past them a send fails at once with {@link DeliveryFailure#QUEUE_FULL}.
     * A group re-routes as {@link #resolve(String, Object)} says.
     *
     * @param nameOrAddress a configured peer name, a group name, or {@code host:port}
     * @param key the routing key for groups, or null
     * @param channel the channel index
     * @param payload the encoded message (taken over)
     * @return the transport's future, or one failed with a {@link DeliveryException}
     * @throws IllegalArgumentException when the text is neither a name nor {@code host:port}
     */
    public CompletableFuture<Delivery> send(String nameOrAddress, @Nullable Object key, int channel, byte[] payload) {
        return connections.send(nameOrAddress, key, channel, payload);
    }

    /**
     * Hands a message to the peer at an address, connecting when needed; the address of a named peer
     * keeps the call order as {@link #send(String, Object, int, byte[])} says.
     *
     * @param address the peer's address
     * @param channel the channel index
     * @param payload the encoded message (taken over)
     * @return the transport's future, or one failed with a {@link DeliveryException}
     */
    public CompletableFuture<Delivery> send(InetSocketAddress address, int channel, byte[] payload) {
        return connections.send(address, channel, payload);
    }

    /**
     * Hands a message to a connection: what every send of the template ends in. A message to an instance
     * of a group is told to the group (it drains departed instances), and its failure names the
     * departure when the instance has left meanwhile.
     *
     * @param peer the connected peer
     * @param channel the channel index
     * @param payload the encoded message (taken over)
     * @return the transport's future
     */
    public CompletableFuture<Delivery> send(Peer peer, int channel, byte[] payload) {
        return connections.send(peer, channel, payload);
    }

    /**
     * The connected peer at an address, connecting when needed (named peers keep their backoff).
     *
     * @param address the peer's address
     * @return a future completed with the connected peer, or failed with the reason
     */
    public CompletableFuture<Peer> resolve(InetSocketAddress address) {
        return connections.resolve(address);
    }

    /**
     * Tells the directory a connection ended: a named peer that was not closed locally is reconnected.
     *
     * @param peer the peer
     * @param reason why it ended
     */
    void onDisconnected(Peer peer, DisconnectReason reason) {
        connections.onDisconnected(peer, reason);
    }

    @Override
    public String toString() {
        return "UdpPeerDirectory" + addresses + (groupsByName.isEmpty() ? "" : " groups " + groupsByName.keySet());
    }
}
