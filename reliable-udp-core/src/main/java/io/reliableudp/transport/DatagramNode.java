package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.connection.Credentials;
import io.reliableudp.connection.HandshakeServer;
import io.reliableudp.connection.MessageSession;
import io.reliableudp.connection.Session;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.ReceivePool;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ReliableUdpNode} facade: wires one {@link DatagramPort}, its {@link IoLoop}, the
 * {@link Acceptor}, the {@link PeerTable} and the {@link NodeEvents} queue together, and implements the
 * public operations (connect, peers, stats, link conditioner, shutdown, close).
 *
 * <p>Threads: one I/O thread (platform by default, see {@link ReceiveThreadMode}) receives every
 * datagram, runs the tick (keepalives, timeouts, handshake retries, the message layer's update) and
 * calls the {@link NodeListener}. In the {@code IMMEDIATE} send mode (default) application threads'
 * sends only queue and mark the peer ({@link DirtyPeers}); the I/O thread writes every marked peer in
 * its next turn and wakes for each peer's next message-layer deadline ({@link PeerTimers}); the tick
 * runs at twice the keepalive rate. In the {@code TICK} mode the tick runs at
 * {@link NodeConfig#sendRateHz()} and sends, and {@code flush} sends on the caller's thread. The port
 * is written by whichever thread produced the datagram. Listener events caused by application threads (e.g. a local disconnect) are handed to
 * the I/O thread, so the listener sees the calls of one peer one at a time, in order. Nothing is
 * static: any number of nodes (and so of loops) may run in one process, also on one port.
 *
 * <p>With {@link NodeConfig#ioThreads()} N above 1 the node has N {@link IoLane}s: N sockets on its
 * port ({@code SO_REUSEPORT}), one I/O thread each, each with its own dirty peers, timers and event
 * queue; a peer belongs to one lane (see {@link IoLane}). Peer table, acceptor (one token bucket,
 * serialized), counters and the public operations stay shared. With N = 1 there is one lane and the
 * same work as before.
 */
final class DatagramNode implements ReliableUdpNode {

    private static final System.Logger LOG = System.getLogger(DatagramNode.class.getName());

    private final NodeConfig config;
    /** The I/O threads with their sockets; lanes[0] owns the port the node was started on. */
    private final IoLane[] lanes;
    /** Round-robin of the lanes for connections this node opens. */
    private final java.util.concurrent.atomic.AtomicInteger nextClientLane = new java.util.concurrent.atomic.AtomicInteger();
    /** Dedicated sockets open now, at most {@link NodeConfig#dedicatedSockets()}. */
    private final java.util.concurrent.atomic.AtomicInteger dedicatedOpen = new java.util.concurrent.atomic.AtomicInteger();
    private final InetSocketAddress localAddress;
    private final ConnectionSettings settings;
    /** Thread-safe; this node's own (nonces, salts, cookie keys): nodes never contend for one. */
    private final SecureRandom random = new SecureRandom();
    private final long startNanos = System.nanoTime();
    private final int budget;
    /** The datagram budget every connection starts at (the message layer's {@code datagramBudget}). */
    private final int baseBudget;
    /** The loopback device's MTU once looked up (0: not yet, -1: unknown). */
    private volatile int loopbackMtu;
    private final NodeCounters counters = new NodeCounters();
    private final PeerTable peers = new PeerTable();
    private final Acceptor acceptor;
    private final boolean immediate;
    /** The receive memory of every connection of this node, against {@link NodeConfig#receiveMemoryLimit()}. */
    private final ReceivePool receivePool;
    /** Channels paused on the whole node ({@link #pauseReceiving}), one bit each. */
    private final java.util.concurrent.atomic.AtomicLong pausedChannels = new java.util.concurrent.atomic.AtomicLong();

    /** Tests: runs in {@link #connect} between its check that the node is open and the peer's entry in the table. */
    volatile @Nullable Runnable beforeConnectAdds;

    private volatile boolean open = true;
    private volatile boolean acceptingSends = true;
    private volatile @Nullable LinkConditionerConfig linkConditioner;
    private volatile int conditionerGeneration;

    private DatagramNode(NodeConfig config, NodeListener listener, Session.Factory sessions, DatagramPort[] ports) {
        this.config = config;
        this.localAddress = ports[0].localAddress();
        MessageConfig requested = config.message();
        int overhead = Connection.frameOverhead(config.encrypted());
        MessageConfig message = requested.toBuilder()
                .lowerLayerOverhead(Math.max(overhead, requested.lowerLayerOverhead()))
                .sendRateHz(config.sendRateHz())
                .sendMode(config.sendMode())
                .build();
        this.immediate = config.sendMode() == MessageConfig.SendMode.IMMEDIATE;
        this.receivePool = new ReceivePool(config.receiveMemoryLimit(),
                Math.min(message.maxMessageSize(), config.receiveMemoryLimit()));
        if (sessions == Sessions.DEFAULT) {
            sessions = MessageSession.factory(receivePool);
        }
        this.budget = message.maxDatagramBudget();
        this.baseBudget = message.datagramBudget();
        double keepAlive = seconds(config.keepAliveInterval());
        double handshakeResend = Math.min(keepAlive, 0.25);
        double tick = tickSeconds(config, handshakeResend);
        // probes after silence go out on the tick: their interval is never shorter than it
        this.settings = new ConnectionSettings(config.protocolId(), config.preSharedKey(), keepAlive,
                seconds(config.timeout()), seconds(config.connectTimeout()), handshakeResend, message, sessions,
                true, ConnectionSettings.probeInterval(keepAlive, tick), credentials(config));
        HandshakeServer handshake = new HandshakeServer(settings, random, new HandshakeServer.Reporter() {
            @Override
            public void drop(DropReason reason) {
                countDrop(reason);
            }

            @Override
            public void failure(HandshakeFailure failure) {
                countFailure(failure);
            }
        });
        this.acceptor = new Acceptor(this, handshake, peers, random);
        this.lanes = new IoLane[ports.length];
        for (int i = 0; i < ports.length; i++) {
            lanes[i] = new IoLane(this, i, ports[i], listener, tick);
        }
    }

    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        return start(config, listener, Sessions.DEFAULT);
    }

    /** Starts a node whose connections use {@code sessions} as their message layer (tests use doubles). */
    static DatagramNode start(NodeConfig config, NodeListener listener, Session.Factory sessions) throws IOException {
        return start(config, listener, sessions, UdpDatagramPort.open(config));
    }

    /**
     * Starts a node on {@code port} (which it owns from now on and closes when it closes); with
     * {@link NodeConfig#ioThreads()} above 1 also on {@code port}'s siblings, or on {@code port} alone
     * with a warning when it cannot share its address.
     */
    static DatagramNode start(NodeConfig config, NodeListener listener, Session.Factory sessions, DatagramPort port) {
        DatagramPort[] ports = openLanes(config, port);
        DatagramNode node;
        try {
            node = new DatagramNode(config, listener, sessions, ports);
        } catch (RuntimeException e) {
            for (DatagramPort p : ports) {
                p.close();
            }
            throw e;
        }
        if (config.linkConditioner() != null) {
            node.setLinkConditioner(config.linkConditioner());
        }
        for (IoLane lane : node.lanes) {
            lane.loop.start();
        }
        LOG.log(Level.DEBUG, () -> "reliable-udp node started on " + node.localAddress + " with " + config);
        if (opensToAnyone(config, node.localAddress)) {
            LOG.log(Level.WARNING, openNodeWarning(node.localAddress));
        }
        return node;
    }

    /**
     * Whether a node with {@code config} bound to {@code address} accepts connections from peers it
     * cannot authenticate (no pre-shared key or identity, incoming connections accepted) on an address
     * other hosts can reach (not loopback; the wildcard address counts as reachable).
     */
    static boolean opensToAnyone(NodeConfig config, InetSocketAddress address) {
        return config.acceptIncoming() && !config.encrypted() && !address.getAddress().isLoopbackAddress();
    }

    /** The warning a node logs at start when {@link #opensToAnyone}: what it means and what fixes it. */
    static String openNodeWarning(InetSocketAddress address) {
        return "reliable-udp node on " + address + " accepts connections from any peer without authentication"
                + " (no pre-shared key or identity) on a non-loopback address: anyone who reaches it can connect and send"
                + " it messages, and anyone on the path can read and forge the traffic. Set an identity and an allow-list"
                + " (NodeConfig.Builder.identity and allowedPeers; in Spring reliable-udp.security.identity.* and"
                + " reliable-udp.security.allowed-peers.*) or a pre-shared key (NodeConfig.Builder.preSharedKey;"
                + " reliable-udp.security.pre-shared-key),"
                + " bind a loopback address, or set acceptIncoming(false) (reliable-udp.accept-incoming=false)"
                + " for a node that only connects out";
    }

    /** {@code first} and, for {@link NodeConfig#ioThreads()} above 1, its siblings; fewer (logged) when the OS refuses. */
    private static DatagramPort[] openLanes(NodeConfig config, DatagramPort first) {
        int n = config.ioThreads();
        if (n == 1) {
            return new DatagramPort[] {first};
        }
        if (first instanceof UdpDatagramPort && !UdpDatagramPort.reusePortWorks()) {
            return new DatagramPort[] {first}; // the probe logged why, once
        }
        DatagramPort[] ports = new DatagramPort[n];
        ports[0] = first;
        int opened = 1;
        try {
            for (; opened < n; opened++) {
                ports[opened] = first.sibling();
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.log(Level.WARNING, "ioThreads=" + n + ": could not open more than " + opened + " socket(s) on "
                    + first.localAddress() + "; running " + opened + " I/O thread(s): " + e);
            return java.util.Arrays.copyOf(ports, opened);
        }
        return ports;
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    /**
     * The I/O loop's tick. TICK: the send rate. IMMEDIATE: only keepalives, timeouts, handshake
     * retries and the message layer's housekeeping remain on it, so half the shorter of the keepalive
     * interval and the handshake retry interval (a keepalive then goes 1 to 1.5 intervals after the last
     * packet; sends, resends and acks do not wait for it).
     */
    static double tickSeconds(NodeConfig config, double handshakeResendSeconds) {
        if (config.sendMode() == MessageConfig.SendMode.TICK) {
            return 1.0 / config.sendRateHz();
        }
        return Math.min(seconds(config.keepAliveInterval()), handshakeResendSeconds) / 2;
    }

    double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    long nowMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    boolean acceptsSends() {
        return acceptingSends;
    }

    /** Whether the node sends as soon as there is something to send (the IMMEDIATE send mode). */
    boolean immediate() {
        return immediate;
    }

    /**
     * IMMEDIATE: whether a sending thread may write its message itself (the I/O loop is waiting and no
     * wake-up is pending, so the message would leave alone after a wake-up of the loop anyway). False
     * on the I/O thread (a listener's reply leaves with the turn's write) and while a link conditioner is set.
     */
    boolean callerMayWrite(NodePeer peer) {
        return linkConditioner == null && peer.lane().loop.idle();
    }

    /** The node's clock's origin (System.nanoTime at start): the lanes' deadlines are on it. */
    long startNanos() {
        return startNanos;
    }

    PeerTable peerTable() {
        return peers;
    }

    Acceptor acceptor() {
        return acceptor;
    }

    /** The largest datagram accepted: the message layer's {@code maxDatagramBudget}, which a peer's connection may grow to. */
    int budget() {
        return budget;
    }

    /**
     * The datagram budget a connection to {@code remote} may grow to, as far as this node knows the
     * path: for a peer on a loopback address, the loopback device's MTU less the IP and UDP headers,
     * capped at {@code maxDatagramBudget} (such datagrams never leave the host, so no router on the way
     * can be smaller); for any other peer the configured {@code datagramBudget}, the size every path is
     * assumed to carry (docs/messages.md, "Datagram budget"). The connection still asks the peer, with
     * a size probe, before it sends one that large.
     */
    int pathBudget(InetSocketAddress remote) {
        InetAddress a = remote.getAddress();
        if (budget <= baseBudget || a == null || !a.isLoopbackAddress()) {
            return baseBudget;
        }
        int mtu = loopbackMtu;
        if (mtu == 0) {
            mtu = lookUpLoopbackMtu(a);
            loopbackMtu = mtu;
        }
        int header = a instanceof Inet6Address ? 48 : 28;
        return mtu < 0 ? baseBudget : Math.max(baseBudget, Math.min(budget, mtu - header));
    }

    private static int lookUpLoopbackMtu(InetAddress a) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(a);
            if (nif == null) {
                var all = NetworkInterface.networkInterfaces().filter(n -> {
                    try {
                        return n.isLoopback();
                    } catch (SocketException e) {
                        return false;
                    }
                }).toList();
                nif = all.isEmpty() ? null : all.getFirst();
            }
            int mtu = nif == null ? -1 : nif.getMTU();
            return mtu > 0 ? mtu : -1;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "the loopback MTU could not be read; loopback peers keep the configured datagram budget: " + e);
            return -1;
        }
    }

    /** How many I/O lanes the node has. */
    int laneCount() {
        return lanes.length;
    }

    ConnectionSettings settings() {
        return settings;
    }

    NodeCounters counters() {
        return counters;
    }

    /** Whether a link conditioner is set (the loops then wait at most 1 ms). */
    boolean conditioned() {
        return linkConditioner != null;
    }

    /** {@code lane}'s port failed for good or its loop died: the node closes. */
    void onFatal(IoLane lane, Throwable cause) {
        if (open) {
            close();
            lane.events.dispatch();
        }
    }

    /** IMMEDIATE: a new peer joins its lane's housekeeping heap at the lane's next tick (any thread). */
    void adopt(NodePeer peer) {
        if (immediate) {
            peer.lane().adopt(peer);
        }
    }

    /** Heap entries the ticks of every lane visited (due or gone peers): the tick's cost, for tests. */
    long housekeepingVisits() {
        long sum = 0;
        for (IoLane lane : lanes) {
            sum += lane.housekeepingVisits();
        }
        return sum;
    }

    // ------------------------------------------------------------------ what peers and the acceptor call

    /** Queues a listener call (see {@link NodeEvents#post}). */
    void post(NodeEvents.Event event) {
        event.peer.lane().events.post(event);
    }

    /** Queues a delivered message (see {@link NodeEvents#postMessage}). */
    void postMessage(NodePeer peer, int channel, int messageId, byte[] payload) {
        peer.lane().events.postMessage(peer, channel, messageId, payload);
    }

    /** Queues an RTT sample (see {@link NodeEvents#postRttSample}). */
    void postRttSample(NodePeer peer, float rttMillis) {
        peer.lane().events.postRttSample(peer, rttMillis);
    }

    void countDrop(DropReason reason) {
        counters.drop(reason);
    }

    void countFailure(HandshakeFailure failure) {
        counters.failure(failure);
    }

    void removed(NodePeer peer, DisconnectReason why, String detail) {
        peers.remove(peer);
        if (peer.releaseDedicated()) {
            peer.lane().port.undedicate(peer.address());
            dedicatedOpen.decrementAndGet();
        }
        HandshakeFailure local = peer.handshakeFailure();
        if (!peer.serverSide() && local != null && local != HandshakeFailure.DENIED_BY_PEER) {
            countFailure(local); // this end refused the server (its key is not on the allow-list)
        } else if (!peer.serverSide() && why != DisconnectReason.CLOSED_LOCALLY) {
            switch (why) {
                case DENIED, SERVER_FULL -> countFailure(HandshakeFailure.DENIED_BY_PEER);
                case CONNECT_TIMEOUT -> countFailure(HandshakeFailure.CONNECT_TIMEOUT);
                default -> {
                    // a disconnect after the handshake is not a handshake failure
                }
            }
        }
        LOG.log(Level.DEBUG, () -> "peer " + peer.address() + " disconnected: " + why + " (" + detail + ")");
    }

    PeerStats statsOf(NodePeer peer, Connection c) {
        return Sessions.stats(peer.state(), c);
    }

    int conditionerGeneration() {
        return conditionerGeneration;
    }

    @Nullable LinkConditionerConfig linkConditionerConfig() {
        return linkConditioner;
    }

    /** Changes the handshake budget (tests use a small one to make a flood deterministic). */
    void handshakeBudget(double perSecond, double burst) {
        acceptor.budget(perSecond, burst);
    }

    /** Changes the per-source handshake budget; {@code loopbackToo} limits loopback sources as well (tests). */
    void sourceHandshakeBudget(double perSecond, double burst, boolean loopbackToo) {
        acceptor.sourceBudget(perSecond, burst, loopbackToo);
    }

    /** The bucket of the per-source handshake budget that {@code address} falls in (tests). */
    int sourceBudgetSlot(java.net.InetAddress address) {
        return acceptor.sourceSlot(address);
    }

    /**
     * A peer became connected (under its lock, on an I/O thread): it gets a socket of its own while
     * fewer than {@link NodeConfig#dedicatedSockets()} are open and the port can.
     */
    void connected(NodePeer peer) {
        int max = config.dedicatedSockets();
        if (max == 0 || !open) {
            return;
        }
        int n;
        do {
            n = dedicatedOpen.get();
            if (n >= max) {
                return;
            }
        } while (!dedicatedOpen.compareAndSet(n, n + 1));
        if (peer.lane().port.dedicate(peer.address())) {
            peer.markDedicated();
        } else {
            dedicatedOpen.decrementAndGet();
        }
    }

    /** Dedicated sockets open now. */
    int dedicatedSocketsOpen() {
        return dedicatedOpen.get();
    }

    /** The lane a connection this node opens goes to: in turn. */
    private IoLane nextClientLane() {
        return lanes.length == 1 ? lanes[0] : lanes[Math.floorMod(nextClientLane.getAndIncrement(), lanes.length)];
    }

    /** Ticks the I/O loops have run so far (summed over the lanes). */
    long ticks() {
        long sum = 0;
        for (IoLane lane : lanes) {
            sum += lane.ticks();
        }
        return sum;
    }

    /** The first lane's I/O loop (tests wake it). */
    IoLoop loop() {
        return lanes[0].loop;
    }

    /** The lanes (tests look at where peers live). */
    IoLane[] lanes() {
        return lanes.clone();
    }

    // ------------------------------------------------------------------ public API

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public NodeConfig config() {
        return config;
    }

    @Override
    public CompletableFuture<Peer> connect(InetSocketAddress remote) {
        if (!open || !acceptingSends) {
            return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.CLOSED_LOCALLY, "node is closed"));
        }
        if (remote.isUnresolved()) {
            return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.DENIED, "unresolved address " + remote));
        }
        NodePeer peer = new NodePeer(this, nextClientLane(), remote, true);
        Runnable hook = beforeConnectAdds;
        if (hook != null) {
            hook.run();
        }
        peer.lock.lock();
        try {
            NodePeer existing = peers.addClient(peer);
            if (existing != null) {
                CompletableFuture<Peer> f = existing.connectFuture();
                if (f != null) {
                    return f;
                }
                return existing.state() == PeerState.CONNECTED ? CompletableFuture.completedFuture(existing)
                        : CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.DENIED,
                        remote + " is already connected to this node as a client"));
            }
            if (!acceptingSends) {
                // a close began after the check above and may have taken its list of peers before this one
                // joined it: no loop would serve it (close sets the flag before it takes the list, this
                // reads it after the entry; one of the two sees the other)
                peers.forget(peer);
                return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.CLOSED_LOCALLY, "node is closed"));
            }
            try {
                peer.attach(Connection.client(settings, peer, peer, random, now()), false);
            } catch (RuntimeException e) {
                peers.forget(peer);
                return CompletableFuture.failedFuture(e);
            }
        } finally {
            peer.unlock();
        }
        CompletableFuture<Peer> f = peer.connectFuture();
        if (f == null) {
            throw new IllegalStateException("client peer without future");
        }
        return f;
    }

    @Override
    public @Nullable Peer peer(InetSocketAddress address) {
        return peers.get(address);
    }

    @Override
    public Collection<Peer> peers() {
        return List.copyOf(peers.all());
    }

    @Override
    public NodeStats stats() {
        return counters.snapshot(peers.size(), receivePool);
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** The connection layer's view of the node's identity and allow-list. */
    private static Credentials credentials(NodeConfig config) {
        NodeIdentity identity = config.identity();
        if (identity == null) {
            return Credentials.none();
        }
        List<PeerIdentity> allowed = config.allowedPeers();
        return Credentials.of(identity.privateKey(), allowed.stream().map(p -> p.key().raw()).toList(),
                allowed.stream().map(PeerIdentity::name).toList());
    }

    @Override
    public void allowedPeers(Collection<PeerIdentity> allowed) {
        List<PeerIdentity> list = List.copyOf(allowed);
        if (!settings.credentials().identities()) {
            throw new IllegalStateException("this node was started without an identity: set NodeConfig.identity to use an allow-list");
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("the allow-list must name at least one peer key");
        }
        settings.credentials().allow(list.stream().map(p -> p.key().raw()).toList(), list.stream().map(PeerIdentity::name).toList());
    }

    @Override
    public void identity(NodeIdentity identity) {
        settings.credentials().identity(identity.privateKey());
    }

    @Override
    public void pauseReceiving(int channel) {
        long bit = channelBit(channel);
        if ((pausedChannels.getAndUpdate(m -> m | bit) & bit) == 0) {
            for (NodePeer p : peers.all()) {
                p.pausesChanged();
            }
        }
    }

    @Override
    public void resumeReceiving(int channel) {
        long bit = channelBit(channel);
        if ((pausedChannels.getAndUpdate(m -> m & ~bit) & bit) != 0) {
            for (NodePeer p : peers.all()) {
                p.pausesChanged();
            }
        }
    }

    private long channelBit(int channel) {
        int channels = config.message().channels().size();
        if (channel < 0 || channel >= channels) {
            throw new IllegalArgumentException("channel " + channel + " does not exist (0.." + (channels - 1) + ")");
        }
        return 1L << channel;
    }

    /** The channels paused on the whole node, one bit each. */
    long pausedChannels() {
        return pausedChannels.get();
    }

    /** The receive memory shared by this node's connections. */
    ReceivePool receivePool() {
        return receivePool;
    }

    @Override
    public synchronized void setLinkConditioner(@Nullable LinkConditionerConfig config) {
        this.linkConditioner = config;
        conditionerGeneration++;
        for (IoLane lane : lanes) {
            lane.loop.wakeup(); // a conditioner shortens the loop's wait (it releases delayed datagrams every millisecond)
        }
    }

    @Override
    public CompletableFuture<Void> shutdown(Duration drainTimeout) {
        acceptingSends = false;
        CompletableFuture<Void> done = new CompletableFuture<>();
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        Thread.ofVirtual().name("reliable-udp-shutdown-" + localAddress.getPort()).start(() -> {
            try {
                while (System.nanoTime() - deadline < 0 && open && anyPendingReliable()) {
                    Thread.sleep(5);
                }
                close();
                done.complete(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private boolean anyPendingReliable() {
        for (NodePeer p : peers.all()) {
            if (p.hasPendingReliable()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        acceptingSends = false;
        if (!open) {
            return;
        }
        for (NodePeer p : peers.all()) {
            p.disconnect(DisconnectReason.CLOSED_LOCALLY, "node closed");
        }
        open = false;
        for (IoLane lane : lanes) {
            lane.loop.stop();
            lane.port.close();
        }
        for (IoLane lane : lanes) {
            // from a lane's own thread (a listener, a fatal error) that lane dispatches after its turn
            if (!lane.loop.inLoop()) {
                try {
                    lane.loop.join(5_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                lane.events.dispatchAfterStop();
            }
        }
        LOG.log(Level.DEBUG, () -> "reliable-udp node on " + localAddress + " closed");
    }

    /**
     * Stops like a crashed process: closes the port without telling any peer. Peers see a timeout.
     * For tests of timeout and restart handling.
     */
    void abort() {
        acceptingSends = false;
        open = false;
        for (IoLane lane : lanes) {
            lane.loop.stop();
            lane.port.close();
        }
        try {
            for (IoLane lane : lanes) {
                lane.loop.join(5_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ReliableUdpNode[" + localAddress + ", peers=" + peers.size() + (open ? "" : ", closed") + "]";
    }
}
