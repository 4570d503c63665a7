package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.connection.DisconnectReason;
import io.reliableudp.connection.DropReason;
import io.reliableudp.connection.HandshakeFailure;
import io.reliableudp.connection.HandshakeServer;
import io.reliableudp.connection.Session;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig;
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
 */
final class DatagramNode implements ReliableUdpNode, IoLoop.Handler {

    private static final System.Logger LOG = System.getLogger(DatagramNode.class.getName());

    private final NodeConfig config;
    private final DatagramPort port;
    private final InetSocketAddress localAddress;
    private final ConnectionSettings settings;
    /** Thread-safe; this node's own (nonces, salts, cookie keys): nodes never contend for one. */
    private final SecureRandom random = new SecureRandom();
    private final long startNanos = System.nanoTime();
    private final int budget;
    private final NodeCounters counters = new NodeCounters();
    private final PeerTable peers = new PeerTable();
    private final NodeEvents events;
    private final Acceptor acceptor;
    private final IoLoop loop;
    /** Ticks the I/O loop ran (tests check that a send did not wait for one). */
    private volatile long ticks;
    private final boolean immediate;
    /** IMMEDIATE: peers with something queued by other threads (or by listeners on the I/O thread). */
    private final DirtyPeers dirty = new DirtyPeers();
    /** IMMEDIATE: each peer's next message-layer deadline; I/O thread only. */
    private final PeerTimers<NodePeer> timers = new PeerTimers<>();
    private final java.util.function.Consumer<NodePeer> writeQueued = p -> writeQueued(p);

    private volatile boolean open = true;
    private volatile boolean acceptingSends = true;
    private volatile @Nullable LinkConditionerConfig linkConditioner;
    private volatile int conditionerGeneration;

    private DatagramNode(NodeConfig config, NodeListener listener, Session.Factory sessions, DatagramPort port) {
        this.config = config;
        this.port = port;
        this.localAddress = port.localAddress();
        MessageConfig requested = config.message();
        int overhead = Connection.frameOverhead(config.encrypted());
        MessageConfig message = requested.toBuilder()
                .lowerLayerOverhead(Math.max(overhead, requested.lowerLayerOverhead()))
                .sendRateHz(config.sendRateHz())
                .sendMode(config.sendMode())
                .build();
        this.immediate = config.sendMode() == MessageConfig.SendMode.IMMEDIATE;
        this.budget = message.datagramBudget();
        double keepAlive = seconds(config.keepAliveInterval());
        this.settings = new ConnectionSettings(config.protocolId(), config.preSharedKey(), keepAlive,
                seconds(config.timeout()), seconds(config.connectTimeout()), Math.min(keepAlive, 0.25), message, sessions);
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
        this.acceptor = new Acceptor(this, handshake, peers);
        this.events = new NodeEvents(listener, counters.listenerErrors);
        this.loop = new IoLoop(port, this, tickSeconds(config, settings.handshakeResendInterval()), config.receiveBusyPoll().toNanos(),
                config.receiveThreadMode(), "reliable-udp-io-" + localAddress.getPort());
        events.attach(loop);
    }

    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        return start(config, listener, Sessions.DEFAULT);
    }

    /** Starts a node whose connections use {@code sessions} as their message layer (tests use doubles). */
    static DatagramNode start(NodeConfig config, NodeListener listener, Session.Factory sessions) throws IOException {
        return start(config, listener, sessions, UdpDatagramPort.open(config));
    }

    /** Starts a node on {@code port} (which it owns from now on and closes when it closes). */
    static DatagramNode start(NodeConfig config, NodeListener listener, Session.Factory sessions, DatagramPort port) {
        DatagramNode node;
        try {
            node = new DatagramNode(config, listener, sessions, port);
        } catch (RuntimeException e) {
            port.close();
            throw e;
        }
        if (config.linkConditioner() != null) {
            node.setLinkConditioner(config.linkConditioner());
        }
        node.loop.start();
        LOG.log(Level.DEBUG, () -> "reliable-udp node started on " + node.localAddress + " with " + config);
        return node;
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
     * IMMEDIATE: {@code peer} has something queued; the I/O thread writes it in its next turn. Any
     * thread; a burst of sends costs one mark per peer and one wake-up of the loop.
     */
    void sendSoon(NodePeer peer) {
        if (dirty.mark(peer)) {
            loop.wakeup();
        }
    }

    /**
     * IMMEDIATE: whether a sending thread may write its message itself (the I/O loop is waiting and no
     * wake-up is pending, so the message would leave alone after a wake-up of the loop anyway). False
     * on the I/O thread (a listener's reply leaves with the turn's write) and while a link conditioner is set.
     */
    boolean callerMayWrite() {
        return linkConditioner == null && loop.idle();
    }

    /**
     * IMMEDIATE, I/O thread: {@code peer}'s message layer wants its next update at {@code deadline}
     * (seconds on {@link #now()}'s clock; +inf: none).
     */
    void schedule(NodePeer peer, double deadline) {
        long nanos;
        if (deadline == Double.POSITIVE_INFINITY || Double.isNaN(deadline)) {
            nanos = Long.MAX_VALUE;
        } else {
            double offset = Math.max(0, deadline) * 1e9;
            // a deadline beyond ~290 years is no deadline
            nanos = offset >= 9.0e18 ? Long.MAX_VALUE : startNanos + (long) Math.ceil(offset);
        }
        timers.schedule(peer, nanos);
    }

    private void writeQueued(NodePeer peer) {
        try {
            peer.writeQueued(now());
        } catch (RuntimeException e) {
            failed(peer, "sending", e);
        }
    }

    ConnectionSettings settings() {
        return settings;
    }

    NodeCounters counters() {
        return counters;
    }

    // ------------------------------------------------------------------ the I/O loop's work (I/O thread)

    @Override
    public void onDatagram(InetSocketAddress from, byte[] data, int length) {
        counters.received(length);
        if (length > budget) {
            countDrop(DropReason.TOO_LARGE);
            return;
        }
        if (length == 0) {
            countDrop(DropReason.MALFORMED);
            return;
        }
        byte type = data[0];
        double now = now();
        if (Acceptor.handles(type)) {
            acceptor.onHandshake(from, data, length, now);
            return;
        }
        NodePeer peer = peers.get(from);
        if (peer == null) {
            countDrop(Connection.belongsToConnection(type) ? DropReason.UNKNOWN_SENDER : DropReason.MALFORMED);
            return;
        }
        peer.receive(data, 0, length, now);
    }

    @Override
    public void onDatagramFailed(RuntimeException e) {
        LOG.log(Level.ERROR, "bug: datagram handling threw; datagram dropped", e);
        countDrop(DropReason.MALFORMED);
    }

    @Override
    public void onTurn(boolean tick) {
        if (linkConditioner != null || tick) {
            double now = now();
            if (linkConditioner != null) {
                for (NodePeer peer : peers.all()) {
                    peer.pollConditioner(now);
                }
            }
            if (tick) {
                ticks++; // only the I/O thread writes it
                tick(now);
            }
        }
        if (immediate) {
            runDeadlines();
        }
        events.dispatch();
        if (immediate && !dirty.isEmpty()) {
            // after the listener calls, so that a reply a listener just sent leaves in this turn
            dirty.drain(writeQueued);
        }
    }

    @Override
    public long nextDeadline() {
        return timers.earliest();
    }

    /** IMMEDIATE: updates every peer whose message-layer deadline has come (each reschedules itself). */
    private void runDeadlines() {
        long nowNanos = System.nanoTime();
        if (timers.earliest() - nowNanos > 0) {
            return;
        }
        double now = now();
        NodePeer p;
        // a peer whose new deadline is already due (a round cut by its packet limit) goes again in the next turn
        int budget = timers.size();
        while (budget-- > 0 && (p = timers.pollDue(nowNanos)) != null) {
            try {
                p.onDeadline(now);
            } catch (RuntimeException e) {
                failed(p, "update", e);
            }
        }
    }

    @Override
    public boolean conditioned() {
        return linkConditioner != null;
    }

    @Override
    public void onFatal(Throwable cause) {
        if (open) {
            close();
            events.dispatch();
        }
    }

    /**
     * TICK: every peer sends. IMMEDIATE: only the peers whose connection timers may be due (keepalive,
     * timeout, handshake, the session's housekeeping): one tick serves every peer due by then, and an
     * idle peer costs a comparison per tick and an update per keepalive interval.
     */
    private void tick(double now) {
        for (NodePeer peer : peers.all()) {
            if (immediate && !peer.housekeepingDue(now)) {
                continue;
            }
            try {
                peer.tick(now);
            } catch (RuntimeException e) {
                failed(peer, "update", e);
            }
        }
    }

    /** A bug below us threw for {@code peer}: logged, and the peer disconnected (or forgotten). */
    private void failed(NodePeer peer, String what, RuntimeException e) {
        LOG.log(Level.ERROR, "bug: " + what + " of " + peer.address() + " threw; disconnecting it", e);
        try {
            peer.disconnect(DisconnectReason.PROTOCOL_ERROR, "internal error: " + e);
        } catch (RuntimeException again) {
            peers.remove(peer); // cannot even disconnect: forget it
        }
        timers.schedule(peer, Long.MAX_VALUE);
    }

    // ------------------------------------------------------------------ what peers and the acceptor call

    /** Queues a listener call (see {@link NodeEvents#post}). */
    void post(NodeEvents.Event event) {
        events.post(event);
    }

    /** Queues a delivered message (see {@link NodeEvents#postMessage}). */
    void postMessage(NodePeer peer, int channel, int messageId, byte[] payload) {
        events.postMessage(peer, channel, messageId, payload);
    }

    /** Queues an RTT sample (see {@link NodeEvents#postRttSample}). */
    void postRttSample(NodePeer peer, float rttMillis) {
        events.postRttSample(peer, rttMillis);
    }

    /**
     * Writes one datagram by copying it into {@code buffer} (a direct buffer, so the port sends it
     * without another copy); {@code buffer} is owned by the caller's peer (under its lock) or the I/O
     * thread.
     */
    void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length) {
        transmit(buffer, to, data, offset, length, true);
    }

    /**
     * Writes a datagram the link conditioner releases: counted as sent when it was submitted to the
     * conditioner (which stands for the network: what it drops was sent, a duplicate was sent once).
     */
    void transmitConditioned(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length) {
        transmit(buffer, to, data, offset, length, false);
    }

    private void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length, boolean count) {
        buffer.clear();
        buffer.put(0, data, offset, length);
        transmit(buffer, 0, length, to, count);
    }

    /**
     * Writes the datagram {@code buffer[offset, offset+length)} as it lies (absolute indexes): a
     * direct buffer goes to the kernel without a copy. Leaves the buffer as {@link ByteBuffer#clear()}
     * does. The buffer is owned by the caller's peer (under its lock) or the I/O thread.
     */
    void transmit(ByteBuffer buffer, int offset, int length, InetSocketAddress to) {
        transmit(buffer, offset, length, to, true);
    }

    /** As {@link #transmit(ByteBuffer, int, int, InetSocketAddress)}; {@code count} false when the conditioner counted it. */
    private void transmit(ByteBuffer buffer, int offset, int length, InetSocketAddress to, boolean count) {
        buffer.clear();
        buffer.position(offset).limit(offset + length);
        try {
            if (port.send(buffer, to)) {
                if (count) {
                    counters.sent(length);
                }
            } else {
                counters.sendErrors.increment(); // send buffer full: the datagram is lost like on the wire
            }
        } catch (ClosedChannelException e) {
            // closing: nothing goes out any more
        } catch (IOException e) {
            counters.sendErrors.increment();
            LOG.log(Level.DEBUG, () -> "send to " + to + " failed: " + e);
        } finally {
            buffer.clear();
        }
    }

    void countDrop(DropReason reason) {
        counters.drop(reason);
    }

    void countFailure(HandshakeFailure failure) {
        counters.failure(failure);
    }

    void removed(NodePeer peer, DisconnectReason why, String detail) {
        peers.remove(peer);
        if (!peer.serverSide() && why != DisconnectReason.CLOSED_LOCALLY) {
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

    /** Ticks the I/O loop has run so far. */
    long ticks() {
        return ticks;
    }

    /** The I/O loop (tests wake it). */
    IoLoop loop() {
        return loop;
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
        NodePeer peer = new NodePeer(this, remote, true);
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
            try {
                peer.attach(Connection.client(settings, peer, peer, random, now()), false);
            } catch (RuntimeException e) {
                peers.forget(peer);
                return CompletableFuture.failedFuture(e);
            }
        } finally {
            peer.lock.unlock();
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
        return counters.snapshot(peers.size());
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void setLinkConditioner(@Nullable LinkConditionerConfig config) {
        this.linkConditioner = config;
        conditionerGeneration++;
        loop.wakeup(); // a conditioner shortens the loop's wait (it releases delayed datagrams every millisecond)
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
        loop.stop();
        port.close();
        if (!loop.inLoop()) {
            try {
                loop.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            events.dispatchAfterStop();
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
        loop.stop();
        port.close();
        try {
            loop.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ReliableUdpNode[" + localAddress + ", peers=" + peers.size() + (open ? "" : ", closed") + "]";
    }
}
