package io.reliableudp.spring.core;

import io.reliableudp.DisconnectReason;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.backoff.BackOffExecution;

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
 * <p>Thread-safe. The reconnect state and the waiting sends are per named peer, under that peer's lock.
 */
public final class UdpPeerDirectory {

    /** The bounded name of every peer without a configured name (meter tags, health, observations). */
    public static final String OTHER = ReliableUdpObservation.UNKNOWN_PEER;

    private static final Log logger = LogFactory.getLog(UdpPeerDirectory.class);

    private final Map<String, NamedPeer> byName;
    private final Map<InetSocketAddress, String> byAddress;
    private final Map<String, InetSocketAddress> addresses;
    private final ReconnectPolicy reconnectPolicy;
    private final Map<String, UdpPeerGroup> groupsByName;
    /** The groups as an array: {@link #nameOf} walks it on the receive thread without allocating. */
    private final UdpPeerGroup[] groups;

    private volatile @Nullable ReliableUdpNode node;
    private volatile @Nullable TaskScheduler scheduler;

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
        this.reconnectPolicy = Objects.requireNonNull(reconnectPolicy, "reconnectPolicy");
        Map<String, NamedPeer> named = new LinkedHashMap<>();
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
            named.put(name, new NamedPeer(name, address));
            plain.put(name, address);
        });
        this.byName = Collections.unmodifiableMap(named);
        this.byAddress = Collections.unmodifiableMap(reverse);
        this.addresses = Collections.unmodifiableMap(plain);
        Map<String, UdpPeerGroup> g = new LinkedHashMap<>();
        for (UdpPeerGroup group : peerGroups) {
            String name = group.name();
            if (name.isBlank() || OTHER.equals(name)) {
                throw new IllegalArgumentException("a peer group name must not be blank nor '" + OTHER + "', was '" + name + "'");
            }
            if (named.containsKey(name) || g.putIfAbsent(name, group) != null) {
                throw new IllegalArgumentException("peer '" + name + "' is configured twice (an address and a group, or two groups)");
            }
        }
        this.groupsByName = Collections.unmodifiableMap(g);
        this.groups = g.values().toArray(new UdpPeerGroup[0]);
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
        return byName.keySet();
    }

    /** Name to address, in configuration order. */
    public Map<String, InetSocketAddress> byName() {
        return addresses;
    }

    /** True when no peer is named. */
    public boolean isEmpty() {
        return byName.isEmpty();
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
        NamedPeer p = byName.get(name);
        return p == null ? null : p.address;
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

    // ---- connections

    /**
     * Attaches the running node: from now on targets resolve to its peers, and named peers reconnect.
     * Called by {@link ManagedReliableUdpNode#start()}.
     *
     * @param running the started node
     * @param reconnectScheduler runs reconnect attempts
     */
    void attach(ReliableUdpNode running, TaskScheduler reconnectScheduler) {
        this.scheduler = reconnectScheduler;
        this.node = running;
    }

    /** Detaches the node (it stops): targets fail with {@code CLOSED}, reconnects stop. */
    void detach() {
        this.node = null;
        this.scheduler = null;
        for (NamedPeer p : byName.values()) {
            p.cancel();
        }
    }

    /** Connects every named peer (without waiting): called once the node is attached. */
    void connectAll() {
        for (NamedPeer p : byName.values()) {
            p.connect();
        }
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
        return resolve(nameOrAddress, null);
    }

    /**
     * Whether a text names a peer a send can go to: a static name, a group or {@code host:port}.
     *
     * @param nameOrAddress the text
     * @return true when {@link #resolve(String)} would accept it
     */
    public boolean isTarget(String nameOrAddress) {
        return byName.containsKey(nameOrAddress) || groupsByName.containsKey(nameOrAddress)
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
        NamedPeer named = byName.get(nameOrAddress);
        if (named != null) {
            return named.resolve();
        }
        UdpPeerGroup group = groupsByName.get(nameOrAddress);
        if (group != null) {
            return resolveInGroup(group, key, new ArrayList<>(2), null);
        }
        return resolve(parseTarget(nameOrAddress));
    }

    private CompletableFuture<Peer> resolveInGroup(UdpPeerGroup group, @Nullable Object key, List<InetSocketAddress> tried,
            @Nullable Throwable lastFailure) {
        if (node == null) {
            return notRunning();
        }
        InetSocketAddress chosen;
        try {
            chosen = group.choose(key, tried);
        } catch (RuntimeException e) {
            logger.warn("reliable-udp peer group '" + group.name() + "' failed to choose an instance", e);
            chosen = null;
        }
        if (chosen == null) {
            String why = tried.isEmpty()
                    ? "service '" + group.name() + "' has no instance"
                    : "no instance of service '" + group.name() + "' took the message (tried " + tried.size() + ")";
            DeliveryException refused = new DeliveryException(DeliveryFailure.NOT_CONNECTED,
                    why + (lastFailure == null ? "" : "; last: " + lastFailure.getMessage()));
            if (lastFailure != null) {
                refused.initCause(lastFailure);
            }
            return CompletableFuture.failedFuture(refused);
        }
        InetSocketAddress instance = chosen;
        tried.add(instance);
        CompletableFuture<Peer> connected;
        try {
            connected = resolve(instance);
        } catch (RuntimeException e) {
            connected = CompletableFuture.failedFuture(e);
        }
        return connected.handle((peer, error) -> {
            if (error == null && group.isRoutable(instance)) {
                return CompletableFuture.completedFuture(peer);
            }
            Throwable cause = error == null
                    ? new DeliveryException(DeliveryFailure.NOT_CONNECTED, "instance " + group.instanceLabel(instance)
                            + " of service '" + group.name() + "' departed before the message was handed to it")
                    : unwrap(error);
            logger.debug("reliable-udp re-routing a message for '" + group.name() + "' away from "
                    + group.instanceLabel(instance) + ": " + cause.getMessage());
            return resolveInGroup(group, key, tried, cause);
        }).thenCompose(f -> f);
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
    public CompletableFuture<io.reliableudp.transport.Delivery> send(String nameOrAddress, @Nullable Object key, int channel,
            byte[] payload) {
        NamedPeer named = byName.get(nameOrAddress);
        if (named != null) {
            return named.send(channel, payload);
        }
        if (groupsByName.containsKey(nameOrAddress)) {
            return resolve(nameOrAddress, key).thenCompose(peer -> send(peer, channel, payload));
        }
        return send(parseTarget(nameOrAddress), channel, payload);
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
    public CompletableFuture<io.reliableudp.transport.Delivery> send(InetSocketAddress address, int channel, byte[] payload) {
        String name = byAddress.get(address);
        if (name != null) {
            return byName.get(name).send(channel, payload);
        }
        return resolve(address).thenCompose(peer -> send(peer, channel, payload));
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
    public CompletableFuture<io.reliableudp.transport.Delivery> send(Peer peer, int channel, byte[] payload) {
        if (groups.length == 0 || byAddress.containsKey(peer.address())) {
            return peer.send(channel, payload);
        }
        InetSocketAddress address = peer.address();
        UdpPeerGroup group = null;
        for (UdpPeerGroup g : groups) {
            if (g.isMember(address)) {
                group = g;
                break;
            }
        }
        CompletableFuture<io.reliableudp.transport.Delivery> sent = peer.send(channel, payload);
        if (group == null) {
            return sent;
        }
        UdpPeerGroup member = group;
        try {
            member.handedOff(address, sent);
        } catch (RuntimeException e) {
            logger.warn("reliable-udp peer group '" + member.name() + "' failed on a hand-off", e);
        }
        return sent.exceptionallyCompose(e -> {
            Throwable cause = unwrap(e);
            if (cause instanceof DeliveryException de && !member.isRoutable(address)) {
                DeliveryException departed = new DeliveryException(de.reason(), "instance " + member.instanceLabel(address)
                        + " of service '" + member.name() + "' departed while the message was in flight (it may have"
                        + " arrived; not re-routed): " + de.getMessage());
                departed.initCause(de);
                return CompletableFuture.failedFuture(departed);
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /**
     * The connected peer at an address, connecting when needed (named peers keep their backoff).
     *
     * @param address the peer's address
     * @return a future completed with the connected peer, or failed with the reason
     */
    public CompletableFuture<Peer> resolve(InetSocketAddress address) {
        String name = byAddress.get(address);
        if (name != null) {
            return byName.get(name).resolve();
        }
        ReliableUdpNode n = node;
        if (n == null) {
            return notRunning();
        }
        Peer p = n.peer(address);
        if (p != null && p.state() == PeerState.CONNECTED) {
            return CompletableFuture.completedFuture(p);
        }
        return wrapConnectFailure(n.connect(address), address);
    }

    /**
     * Tells the directory a connection ended: a named peer that was not closed locally is reconnected.
     *
     * @param peer the peer
     * @param reason why it ended
     */
    void onDisconnected(Peer peer, DisconnectReason reason) {
        String name = byAddress.get(peer.address());
        if (name != null && node != null && reason != DisconnectReason.CLOSED_LOCALLY) {
            byName.get(name).scheduleReconnect();
        }
    }

    @Override
    public String toString() {
        return "UdpPeerDirectory" + addresses + (groupsByName.isEmpty() ? "" : " groups " + groupsByName.keySet());
    }

    private static <T> CompletableFuture<T> notRunning() {
        return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
    }

    private static CompletableFuture<Peer> wrapConnectFailure(CompletableFuture<Peer> connect, InetSocketAddress address) {
        return connect.exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof DeliveryException) {
                return CompletableFuture.failedFuture(cause);
            }
            DeliveryException de = new DeliveryException(DeliveryFailure.NOT_CONNECTED,
                    "could not connect to " + address + ": " + cause.getMessage());
            de.initCause(cause);
            return CompletableFuture.failedFuture(de);
        });
    }

    /** A send waiting for a named peer's connection. */
    private record Waiting(int channel, byte[] payload, CompletableFuture<io.reliableudp.transport.Delivery> result) {
    }

    /**
     * One named peer's connection attempts and backoff, and the sends waiting for its connection: a
     * FIFO handed to the connection in call order by one thread at a time ({@link #handOver}).
     */
    private final class NamedPeer {
        private final String name;
        private final InetSocketAddress address;
        private @Nullable CompletableFuture<Peer> attempt;
        /** Sends issued while connecting, in call order. */
        private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
        /** Per channel: the messages and bytes in {@link #waiting} (allocated at the first wait). */
        private int @Nullable [] waitingMessages;
        private long @Nullable [] waitingBytes;
        /** True while a thread hands {@link #waiting} over: sends meanwhile queue behind it. */
        private boolean handingOver;
        private BackOffExecution backOff = reconnectPolicy.start();
        private long retryAtNanos = System.nanoTime();
        /** Why the last attempt failed (e.g. DENIED for a wrong key), told to sends refused during the backoff. */
        private @Nullable Throwable lastFailure;
        private @Nullable ScheduledFuture<?> scheduled;

        NamedPeer(String name, InetSocketAddress address) {
            this.name = name;
            this.address = address;
        }

        /**
         * Sends now when connected and nothing waits; else queues the send behind those waiting for
         * the connection (bounded by the channel's queue limits), or refuses it as {@link #resolve()}
         * would (not running, inside a backoff window).
         */
        CompletableFuture<io.reliableudp.transport.Delivery> send(int channel, byte[] payload) {
            Peer direct;
            synchronized (this) {
                ReliableUdpNode n = node;
                if (n == null) {
                    return notRunning();
                }
                if (!waiting.isEmpty() || handingOver) {
                    return enqueue(n, channel, payload);   // behind the sends still waiting, even when connected
                }
                Peer p = n.peer(address);
                if (p != null && p.state() == PeerState.CONNECTED) {
                    direct = p;   // the steady state: nothing allocated here
                } else {
                    CompletableFuture<Peer> connected = resolve();
                    if (!connected.isDone()) {
                        return enqueue(n, channel, payload);
                    }
                    if (connected.isCompletedExceptionally()) {
                        return CompletableFuture.failedFuture(unwrap(connected.exceptionNow()));
                    }
                    direct = connected.join();
                }
            }
            return UdpPeerDirectory.this.send(direct, channel, payload);
        }

        /** Queues a send behind the waiting ones, or refuses it when its channel's waiting ones are at the channel's limits. */
        private CompletableFuture<io.reliableudp.transport.Delivery> enqueue(ReliableUdpNode n, int channel, byte[] payload) {
            List<ChannelConfig> channels = n.config().message().channels();
            if (channel < 0 || channel >= channels.size()) {
                return CompletableFuture.failedFuture(new IllegalArgumentException(
                        "channel must be within 0.." + (channels.size() - 1) + ", was " + channel));
            }
            int[] messages = waitingMessages;
            long[] bytes = waitingBytes;
            if (messages == null || bytes == null || messages.length != channels.size()) {
                messages = waitingMessages = new int[channels.size()];
                bytes = waitingBytes = new long[channels.size()];
            }
            ChannelConfig c = channels.get(channel);
            if (messages[channel] >= Math.min(c.maxQueuedMessages(), 32_768) || bytes[channel] + payload.length > c.maxQueuedBytes()) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.QUEUE_FULL, "peer '" + name + "' ("
                        + address + ") is connecting and " + messages[channel] + " sends (" + bytes[channel] + " bytes) on channel "
                        + channel + " already wait for it (limits " + c.maxQueuedMessages() + " / " + c.maxQueuedBytes() + ")"));
            }
            messages[channel]++;
            bytes[channel] += payload.length;
            CompletableFuture<io.reliableudp.transport.Delivery> result = new CompletableFuture<>();
            waiting.add(new Waiting(channel, payload, result));
            return result;
        }

        /**
         * Hands the waiting sends over in call order once a connect ended: to the connected peer, or
         * failed with the connect's reason. One thread at a time; sends issued meanwhile queue and are
         * handed over by the same loop, so none overtakes a waiting one.
         */
        void handOver(@Nullable Peer peer, @Nullable Throwable failure) {
            synchronized (this) {
                if (handingOver) {
                    return;   // the thread handing over takes what comes
                }
                handingOver = true;
            }
            Throwable reason = failure == null ? null : unwrap(failure);
            for (;;) {
                Waiting w;
                synchronized (this) {
                    w = waiting.poll();
                    if (w == null) {
                        handingOver = false;
                        return;
                    }
                    int[] messages = waitingMessages;
                    long[] bytes = waitingBytes;
                    if (messages != null && bytes != null) {
                        messages[w.channel()]--;
                        bytes[w.channel()] -= w.payload().length;
                    }
                }
                if (reason != null || peer == null) {
                    w.result().completeExceptionally(reason != null ? reason
                            : new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
                    continue;
                }
                try {
                    UdpPeerDirectory.this.send(peer, w.channel(), w.payload()).whenComplete((d, e) -> {
                        if (e == null) {
                            w.result().complete(d);
                        } else {
                            w.result().completeExceptionally(unwrap(e));
                        }
                    });
                } catch (RuntimeException e) {
                    w.result().completeExceptionally(e);
                }
            }
        }

        synchronized CompletableFuture<Peer> resolve() {
            ReliableUdpNode n = node;
            if (n == null) {
                return notRunning();
            }
            Peer p = n.peer(address);
            if (p != null && p.state() == PeerState.CONNECTED) {
                return CompletableFuture.completedFuture(p);
            }
            if (attempt != null && !attempt.isDone()) {
                return attempt;
            }
            if (System.nanoTime() - retryAtNanos < 0) {
                Throwable last = lastFailure;
                DeliveryException refused = new DeliveryException(DeliveryFailure.NOT_CONNECTED,
                        "peer '" + name + "' (" + address + ") is not connected; next attempt in "
                                + Duration.ofNanos(retryAtNanos - System.nanoTime()).toMillis() + " ms"
                                + (last == null ? "" : "; last attempt failed: " + last.getMessage()));
                if (last != null) {
                    refused.initCause(last);
                }
                return CompletableFuture.failedFuture(refused);
            }
            return connect();
        }

        synchronized CompletableFuture<Peer> connect() {
            ReliableUdpNode n = node;
            if (n == null) {
                return notRunning();
            }
            if (attempt != null && !attempt.isDone()) {
                return attempt;
            }
            Peer existing = n.peer(address);
            if (existing != null && existing.state() == PeerState.CONNECTED) {
                return CompletableFuture.completedFuture(existing);
            }
            CompletableFuture<Peer> f;
            try {
                f = wrapConnectFailure(n.connect(address), address);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            attempt = f;
            f.whenComplete((peer, e) -> {
                handOver(peer, e);
                if (e == null) {
                    synchronized (this) {
                        backOff = reconnectPolicy.start();
                        retryAtNanos = System.nanoTime();
                        lastFailure = null;
                    }
                } else {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    synchronized (this) {
                        // keep the root reason (ConnectionFailedException DENIED, CONNECT_TIMEOUT...) for later sends
                        lastFailure = cause.getCause() != null ? cause.getCause() : cause;
                    }
                    if (node != null) {
                        logger.warn("reliable-udp peer '" + name + "' (" + address + ") not connected: " + e.getMessage());
                    }
                    scheduleReconnect();
                }
            });
            return f;
        }

        synchronized void scheduleReconnect() {
            TaskScheduler s = scheduler;
            if (node == null || s == null || (scheduled != null && !scheduled.isDone())) {
                return;
            }
            Duration backoff = Duration.ofMillis(Math.max(1, backOff.nextBackOff()));
            retryAtNanos = System.nanoTime() + backoff.toNanos();
            try {
                scheduled = s.schedule(this::connect, Instant.now().plus(backoff));
            } catch (RuntimeException e) {
                logger.debug("reconnect of '" + name + "' not scheduled: " + e);
            }
        }

        void cancel() {
            synchronized (this) {
                ScheduledFuture<?> f = scheduled;
                scheduled = null;
                if (f != null) {
                    f.cancel(false);
                }
                backOff = reconnectPolicy.start();
                retryAtNanos = System.nanoTime();
                lastFailure = null;
                attempt = null;
            }
            handOver(null, new DeliveryException(DeliveryFailure.CLOSED, "the node stopped before peer '" + name + "' was connected"));
        }
    }
}
