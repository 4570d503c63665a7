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
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ReliableUdpNode} implementation, the top of the transport's tiers (package-info): wires the
 * {@link IoLane}s (one {@link DatagramPort} and I/O thread each), the {@link Acceptor}, the
 * {@link PeerTable} and the peers ({@link #newPeer}: a {@link PeerDriver} with its
 * {@link PeerTransmitter} and the {@link PeerHandle} the application gets), holds what every lane shares
 * (counters, clock, conditioner setting, receive memory), and implements the public operations (connect,
 * peers, pause, stats, link conditioner, shutdown, close). The parts below reach it only through the
 * narrow interfaces it implements ({@link Acceptor.Node}, {@link IoLane.Node}, {@link PeerDriver.Node},
 * {@link PeerHandle.Gate}).
 *
 * <p>The send mode is read here once ({@link #timing}): it picks the lanes' {@link LaneSchedule}, which
 * decides when a peer's queued work goes out. Threads: each lane's I/O thread (platform by default, see
 * {@link ReceiveThreadMode}) receives its socket's datagrams, runs the tick and calls the
 * {@link NodeListener} for its peers; application threads queue (see {@link PeerHandle}); the port is
 * written by whichever thread holds the peer's lock when the datagram is made. Listener events caused by
 * application threads (e.g. a local disconnect) are handed to the lane's thread, so the listener sees the
 * calls of one peer one at a time, in order. docs/architecture.md draws which thread owns which state.
 * Nothing is static: any number of nodes (and so of loops) may run in one process, also on one port.
 *
 * <p>With {@link NodeConfig#ioThreads()} N above 1 the node has N lanes: N sockets on its port
 * ({@code SO_REUSEPORT}), one I/O thread each; a peer belongs to one lane (see {@link IoLane}). Peer
 * table, acceptor (one token bucket, serialized), counters and the public operations stay shared.
 */
final class DatagramNode implements ReliableUdpNode, Acceptor.Node, IoLane.Node, PeerDriver.Node, PeerHandle.Gate {

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
    private final NodeClock clock = new NodeClock();
    private final int budget;
    /** What a connection's datagrams may grow to, by path. */
    private final PathBudget pathBudget;
    private final NodeCounters counters = new NodeCounters();
    private final PeerTable peers = new PeerTable();
    private final Acceptor acceptor;
    /** When queued work goes out (the send mode), chosen once here: the lanes' schedules come from it. */
    private final LaneSchedule.Factory timing;
    /** The receive memory of every connection of this node, against {@link NodeConfig#receiveMemoryLimit()}. */
    private final ReceivePool receivePool;
    /** Channels paused on the whole node ({@link #pauseReceiving}), one bit each. */
    private final java.util.concurrent.atomic.AtomicLong pausedChannels = new java.util.concurrent.atomic.AtomicLong();

    /** Tests: runs in {@link #connect} between its check that the node is open and the peer's entry in the table. */
    volatile @Nullable Runnable beforeConnectAdds;

    private volatile boolean open = true;
    private volatile boolean acceptingSends = true;
    private final ConditionerSetting conditioning = new ConditionerSetting();

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
        this.timing = timing(config);
        this.receivePool = new ReceivePool(config.receiveMemoryLimit(),
                Math.min(message.maxMessageSize(), config.receiveMemoryLimit()));
        if (sessions == Sessions.DEFAULT) {
            sessions = MessageSession.factory(receivePool);
        }
        this.budget = message.maxDatagramBudget();
        this.pathBudget = new PathBudget(message.datagramBudget(), budget, config.pathMtuDiscovery());
        double keepAlive = seconds(config.keepAliveInterval());
        double handshakeResend = Math.min(keepAlive, 0.25);
        double tick = timing.tickSeconds(config, handshakeResend);
        // probes after silence go out on the tick: their interval is never shorter than it
        this.settings = new ConnectionSettings(config.protocolId(), config.preSharedKey(), keepAlive,
                seconds(config.timeout()), seconds(config.connectTimeout()), handshakeResend, message, sessions,
                true, ConnectionSettings.probeInterval(keepAlive, tick), credentials(config));
        HandshakeServer handshake = new HandshakeServer(settings, random, new HandshakeServer.Reporter() {
            @Override
            public void drop(DropReason reason) {
                counters.drop(reason);
            }

            @Override
            public void failure(HandshakeFailure failure) {
                countFailure(failure);
            }
        });
        this.acceptor = new Acceptor(this, config, counters, clock, handshake, peers, random);
        IoLane.Shared shared = new IoLane.Shared(config, counters, clock, peers, receivePool, budget, ports.length,
                conditioning, timing);
        this.lanes = new IoLane[ports.length];
        for (int i = 0; i < ports.length; i++) {
            lanes[i] = new IoLane(this, shared, i, ports[i], listener, tick);
        }
    }

    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        return start(config, listener, Sessions.DEFAULT);
    }

    /** Starts a node whose connections use {@code sessions} as their message layer (tests use doubles). */
    static DatagramNode start(NodeConfig config, NodeListener listener, Session.Factory sessions) throws IOException {
        return start(config, listener, sessions, BatchedPorts.open(config));
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
        LOG.log(Level.DEBUG, () -> "reliable-udp node started on " + node.localAddress + " (" + ports.length
                + " " + port.kind() + " port(s)) with " + config);
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
     * The send mode's schedule ({@link LaneSchedule}): the one place the transport reads
     * {@link NodeConfig#sendMode()}.
     */
    static LaneSchedule.Factory timing(NodeConfig config) {
        return config.sendMode() == MessageConfig.SendMode.TICK ? TickLaneSchedule.FACTORY : ImmediateLaneSchedule.FACTORY;
    }

    /** The I/O loop's tick: the send rate in {@code TICK}; in {@code IMMEDIATE} half the shorter of keepalive and handshake retry. */
    static double tickSeconds(NodeConfig config, double handshakeResendSeconds) {
        return timing(config).tickSeconds(config, handshakeResendSeconds);
    }

    double now() {
        return clock.now();
    }

    @Override
    public boolean acceptsSends() {
        return acceptingSends;
    }

    /** The node's clock's origin (System.nanoTime at start): the lanes' deadlines are on it. */
    long startNanos() {
        return clock.startNanos();
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

    /** The datagram budget a connection to {@code remote} may grow to (see {@link PathBudget}). */
    @Override
    public int pathBudget(InetSocketAddress remote) {
        return pathBudget.of(remote);
    }

    @Override
    public void discoverPath(Connection c, InetSocketAddress remote) {
        pathBudget.discover(c, remote);
    }

    /**
     * The connection {@code c} now uses the path to {@code remote} (its peer's address changed): its
     * datagram budget falls back to the base and its size search starts over (see {@link PathBudget#restart}).
     * Under the peer's lock.
     */
    @Override
    public void restartPath(Connection c, InetSocketAddress remote, double now) {
        pathBudget.restart(c, remote, now);
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
        return conditioning.isSet();
    }

    /** {@code lane}'s port failed for good or its loop died: the node closes. */
    @Override
    public void onFatal(IoLane lane, Throwable cause) {
        if (open) {
            close();
            lane.events.dispatch();
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

    // ------------------------------------------------------------------ what lanes, peers and the acceptor ask

    @Override
    public void onHandshake(IoLane lane, InetSocketAddress from, byte[] data, int length, double now) {
        acceptor.onHandshake(lane, from, data, length, now);
    }

    /** A new peer on {@code lane}: its driver, transmit path and the handle applications get. */
    PeerDriver newPeer(IoLane lane, InetSocketAddress address, boolean client) {
        PeerTransmitter transmitter = new PeerTransmitter(lane, address, conditioning, clock, counters,
                config.message().datagramBudget());
        PeerDriver driver = new PeerDriver(this, lane, address, client, clock, counters, transmitter);
        new PeerHandle(driver, lane, this, config, settings.timeout());
        return driver;
    }

    @Override
    public void admit(IoLane lane, InetSocketAddress from, HandshakeServer.Verified verified, double now) {
        PeerDriver peer = newPeer(lane, from, false);
        peer.salt(verified.salt());
        peer.lock.lock();
        try {
            if (!peers.addServer(peer)) {
                // this node began connecting to that address meanwhile, or (once in 2^32 / connections) a live
                // connection has that salt: the client asks for a fresh challenge, with another salt
                counters.drop(DropReason.UNEXPECTED);
                return;
            }
            counters.connectionsOpened.increment();
            peer.attach(Connection.server(settings, peer.transmitter(), peer, verified, now), true);
            connected(peer);
            lane.connected(peer);
        } finally {
            peer.unlock();
        }
    }

    @Override
    public void forget(PeerDriver peer) {
        peers.remove(peer);
    }

    /** A peer moved (under its lock): its table entry follows; a dedicated socket connected to the old address closes. */
    @Override
    public void moved(PeerDriver peer, InetSocketAddress from, InetSocketAddress to) {
        peers.move(peer, from, to);
        if (peer.releaseDedicated()) {
            peer.lane().undedicate(from);
            dedicatedOpen.decrementAndGet();
        }
    }

    void countFailure(HandshakeFailure failure) {
        counters.failure(failure);
    }

    @Override
    public void removed(PeerDriver peer, DisconnectReason why, String detail) {
        peers.remove(peer);
        if (peer.releaseDedicated()) {
            peer.lane().undedicate(peer.address());
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
    @Override
    public void connected(PeerDriver peer) {
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
        if (peer.lane().dedicate(peer.address())) {
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
    public String portKind() {
        return lanes[0].port.kind();
    }

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
        return connect(remote, false);
    }

    @Override
    public CompletableFuture<Peer> connectAnother(InetSocketAddress remote) {
        return connect(remote, true);
    }

    private CompletableFuture<Peer> connect(InetSocketAddress remote, boolean another) {
        if (!open || !acceptingSends) {
            return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.CLOSED_LOCALLY, "node is closed"));
        }
        if (remote.isUnresolved()) {
            return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.DENIED, "unresolved address " + remote));
        }
        PeerDriver peer = newPeer(nextClientLane(), remote, true);
        Runnable hook = beforeConnectAdds;
        if (hook != null) {
            hook.run();
        }
        peer.lock.lock();
        try {
            PeerDriver existing = peers.addClient(peer, another);
            if (existing != null) {
                CompletableFuture<Peer> f = existing.connectFuture();
                if (f != null) {
                    return f;
                }
                return existing.state() == PeerState.CONNECTED ? CompletableFuture.completedFuture(existing.handle())
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
                // the server must not take a second connection from this address for a restart of the first
                boolean others = another && peers.at(remote).length > 1;
                peer.attach(Connection.client(settings, peer.transmitter(), peer, random, others, now()), false);
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
        PeerDriver peer = peers.get(address);
        return peer == null ? null : peer.handle();
    }

    @Override
    public Collection<Peer> peers() {
        return peers.all().stream().map(PeerDriver::handle).toList();
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
            for (PeerDriver p : peers.all()) {
                p.pausesChanged();
            }
        }
    }

    @Override
    public void resumeReceiving(int channel) {
        long bit = channelBit(channel);
        if ((pausedChannels.getAndUpdate(m -> m & ~bit) & bit) != 0) {
            for (PeerDriver p : peers.all()) {
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
    @Override
    public long pausedChannels() {
        return pausedChannels.get();
    }

    /** The receive memory shared by this node's connections. */
    ReceivePool receivePool() {
        return receivePool;
    }

    @Override
    public synchronized void setLinkConditioner(@Nullable LinkConditionerConfig config) {
        conditioning.set(config);
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
        for (PeerDriver p : peers.all()) {
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
        for (PeerDriver p : peers.all()) {
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
