package io.reliableudp.spring.core;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;

/**
 * The connections behind a {@link UdpPeerDirectory}: which connected peer a name, a group or a
 * {@code host:port} resolves to (connecting when needed), how a message is handed to it (in call order
 * for a named peer, re-routed within a group while not handed off), and the running node and reconnect
 * scheduler the named peers' {@link NamedPeerConnection}s use. The directory's public resolve and send
 * methods are these; the names stay the directory's. Thread-safe.
 */
final class PeerConnections {

    /** Logged as the directory, where users look for a peer's connect and reconnect. */
    private static final Log logger = LogFactory.getLog(UdpPeerDirectory.class);

    private final UdpPeerDirectory directory;
    private final Map<String, NamedPeerConnection> byName;

    private volatile @Nullable ReliableUdpNode node;
    private volatile @Nullable TaskScheduler scheduler;

    PeerConnections(UdpPeerDirectory directory, ReconnectPolicy reconnectPolicy) {
        this.directory = directory;
        Map<String, NamedPeerConnection> named = new LinkedHashMap<>();
        directory.byName().forEach((name, address) -> named.put(name, new NamedPeerConnection(this, name, address, reconnectPolicy)));
        this.byName = Collections.unmodifiableMap(named);
    }

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

    /** The running node, or null while it is stopped. */
    @Nullable ReliableUdpNode node() {
        return node;
    }

    /** The scheduler of reconnect attempts while the node runs. */
    @Nullable TaskScheduler scheduler() {
        return scheduler;
    }

    /** Detaches the node (it stops): targets fail with {@code CLOSED}, reconnects stop. */
    void detach() {
        this.node = null;
        this.scheduler = null;
        for (NamedPeerConnection p : byName.values()) {
            p.cancel();
        }
    }

    /** Connects every named peer (without waiting): called once the node is attached. */
    void connectAll() {
        for (NamedPeerConnection p : byName.values()) {
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
    CompletableFuture<Peer> resolve(String nameOrAddress) {
        return resolve(nameOrAddress, null);
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
    CompletableFuture<Peer> resolve(String nameOrAddress, @Nullable Object key) {
        NamedPeerConnection named = byName.get(nameOrAddress);
        if (named != null) {
            return named.resolve();
        }
        UdpPeerGroup group = directory.group(nameOrAddress);
        if (group != null) {
            return resolveInGroup(group, key, new ArrayList<>(2), null);
        }
        return resolve(directory.parseTarget(nameOrAddress));
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
    CompletableFuture<Delivery> send(String nameOrAddress, @Nullable Object key, int channel,
            byte[] payload) {
        NamedPeerConnection named = byName.get(nameOrAddress);
        if (named != null) {
            return named.send(channel, payload);
        }
        if (directory.group(nameOrAddress) != null) {
            return resolve(nameOrAddress, key).thenCompose(peer -> send(peer, channel, payload));
        }
        return send(directory.parseTarget(nameOrAddress), channel, payload);
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
    CompletableFuture<Delivery> send(InetSocketAddress address, int channel, byte[] payload) {
        String name = directory.configuredName(address);
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
    CompletableFuture<Delivery> send(Peer peer, int channel, byte[] payload) {
        UdpPeerGroup[] groups = directory.groupArray();
        if (groups.length == 0 || directory.configuredName(peer.address()) != null) {
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
        CompletableFuture<Delivery> sent = peer.send(channel, payload);
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

    static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    /**
     * The connected peer at an address, connecting when needed (named peers keep their backoff).
     *
     * @param address the peer's address
     * @return a future completed with the connected peer, or failed with the reason
     */
    CompletableFuture<Peer> resolve(InetSocketAddress address) {
        String name = directory.configuredName(address);
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
        String name = directory.configuredName(peer.address());
        if (name != null && node != null && reason != DisconnectReason.CLOSED_LOCALLY) {
            byName.get(name).scheduleReconnect();
        }
    }

    static <T> CompletableFuture<T> notRunning() {
        return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
    }

    static CompletableFuture<Peer> wrapConnectFailure(CompletableFuture<Peer> connect, InetSocketAddress address) {
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
}
