package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.HandshakeServer;
import io.reliableudp.message.DatagramSender;
import io.reliableudp.message.ReceivePool;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One I/O thread's share of a node ({@link NodeConfig#ioThreads()}): its {@link DatagramPort} (one of
 * the N sockets on the node's port), the {@link IoLoop} that reads it, and the state only that thread
 * touches: its {@link LaneSchedule} (in {@code IMMEDIATE}: the peers it has to write and their
 * message-layer deadlines) and its queue of listener calls ({@link NodeEvents}). A peer belongs to one
 * lane for its life (the one whose socket received its first datagram, or the one a connect picked),
 * so one peer's timers, writes and listener calls stay on one thread: the lane owns its peers'
 * {@link PeerDriver}s. Its one job is that thread's turn ({@link IoLoop.Handler}): a datagram read goes
 * to the node (a handshake) or to its peer, then each turn runs the link conditioners, the tick, the
 * listener calls and the schedule's writes and deadlines; and the sends by its socket, counted. The
 * shared state (peer table, acceptor, counters, the clock) stays with the node, which the lane reaches
 * only through {@link Node}.
 *
 * <p>A datagram of this lane's peer that another lane's socket read (the kernel's socket group
 * changed) is copied and handed over ({@link #handOver}), so that every call into the peer, and so
 * the order of its listener calls, stays on this lane's thread.
 */
final class IoLane implements IoLoop.Handler, PeerDriver.Lane, PeerTransmitter.Socket {

    private static final System.Logger LOG = System.getLogger(IoLane.class.getName());

    /** What a lane asks of its node (implemented by {@link DatagramNode}). */
    interface Node {
        /** A handshake datagram (request or response) read by {@code lane}'s socket (its thread). */
        void onHandshake(IoLane lane, InetSocketAddress from, byte[] data, int length, double now);

        /** {@code lane}'s port failed for good or its loop died. */
        void onFatal(IoLane lane, Throwable cause);
    }

    /** What the lanes of one node share, given by the node. */
    record Shared(NodeConfig config, NodeCounters counters, NodeClock clock, PeerTable peers, ReceivePool receivePool,
                  int budget, int laneCount, ConditionerSetting conditioning, LaneSchedule.Factory timing) {
    }

    final int index;
    final DatagramPort port;
    final IoLoop loop;
    final NodeEvents events;
    private final LaneSchedule schedule;
    private final Node node;
    private final NodeCounters counters;
    private final NodeClock clock;
    private final PeerTable peers;
    private final ReceivePool receivePool;
    private final int budget;
    private final int laneCount;
    private final ConditionerSetting conditioning;
    /** Whether connections move to a new address of their peer (the encrypted modes; docs/connection.md, "Migration"). */
    private final boolean migrates;
    /** Datagrams of this lane's peers read by other lanes, for this lane's next turn. */
    private final ConcurrentLinkedQueue<HandedOver> handedOver = new ConcurrentLinkedQueue<>();
    /** Most datagrams {@link #handedOver} holds: past it (or past the node's receive memory) they are dropped. */
    static final int MAX_HANDED_OVER = 1024;
    /** Datagrams in {@link #handedOver}. */
    private final AtomicInteger handedOverCount = new AtomicInteger();
    /** Ticks this lane's loop ran; its thread only writes it. */
    private volatile long ticks;

    IoLane(Node node, Shared shared, int index, DatagramPort port, NodeListener listener, double tickSeconds) {
        this.node = node;
        this.index = index;
        this.port = port;
        this.counters = shared.counters();
        this.clock = shared.clock();
        this.peers = shared.peers();
        this.receivePool = shared.receivePool();
        this.budget = shared.budget();
        this.laneCount = shared.laneCount();
        this.conditioning = shared.conditioning();
        NodeConfig config = shared.config();
        this.migrates = config.encrypted();
        this.events = new NodeEvents(listener, counters.listenerErrors);
        this.loop = new IoLoop(port, this, tickSeconds, config.receiveBusyPoll().toNanos(), config.receiveThreadMode(),
                "reliable-udp-io-" + port.localAddress().getPort() + (index == 0 ? "" : "-" + index));
        events.attach(loop);
        this.schedule = shared.timing().create(this, loop, events, peers, clock, conditioning);
    }

    /** When this lane's peers' queued work goes out (the node's send mode). */
    LaneSchedule schedule() {
        return schedule;
    }

    // ------------------------------------------------------------------ PeerDriver.Lane

    @Override
    public boolean inLoop() {
        return loop.inLoop();
    }

    @Override
    public void adopt(PeerDriver peer) {
        schedule.adopt(peer);
    }

    @Override
    public void deadline(PeerDriver peer, double next) {
        schedule.deadline(peer, next);
    }

    @Override
    public void resumeLeft(PeerDriver peer) {
        schedule.resumeLeft(peer);
    }

    @Override
    public void connected(PeerDriver peer) {
        events.post(NodeEvents.Event.connected(peer));
    }

    @Override
    public void disconnected(PeerDriver peer, DisconnectReason why, String detail) {
        events.post(NodeEvents.Event.disconnected(peer, why, detail));
    }

    @Override
    public void message(PeerDriver peer, int channel, int messageId, byte[] payload, int ageMillis) {
        events.postMessage(peer, channel, messageId, payload, ageMillis);
    }

    @Override
    public void migrated(PeerDriver peer, InetSocketAddress from, InetSocketAddress to) {
        events.post(NodeEvents.Event.migrated(peer, from, to));
    }

    @Override
    public void rttSample(PeerDriver peer, float rttMillis) {
        events.postRttSample(peer, rttMillis);
    }

    @Override
    public boolean dedicate(InetSocketAddress address) {
        return port.dedicate(address);
    }

    @Override
    public void undedicate(InetSocketAddress address) {
        port.undedicate(address);
    }

    /**
     * Another lane read a datagram of {@code peer} (of this lane): a copy is handled in this lane's next
     * turn. At most {@link #MAX_HANDED_OVER} wait, their bytes counted in the node's receive memory;
     * one past either is dropped (counted as {@code rate_limited}; a reliable sender resends it).
     */
    @Override
    public void handOver(PeerDriver peer, InetSocketAddress from, byte[] data, int length, boolean newPath) {
        if (handedOverCount.incrementAndGet() > MAX_HANDED_OVER) {
            handedOverCount.decrementAndGet();
            counters.drop(DropReason.RATE_LIMITED);
            return;
        }
        if (!receivePool.tryReserve(length, false)) {
            handedOverCount.decrementAndGet();
            counters.drop(DropReason.RATE_LIMITED);
            return;
        }
        handedOver.add(new HandedOver(peer, from, java.util.Arrays.copyOf(data, length), newPath));
        loop.wakeup();
    }

    /** Datagrams waiting to be handed over to this lane (tests). */
    int handedOverCount() {
        return handedOverCount.get();
    }

    /** This lane's thread: the datagrams other lanes handed over, in the order they came. */
    private void receiveHandedOver(double now) {
        HandedOver h;
        while ((h = handedOver.poll()) != null) {
            handedOverCount.decrementAndGet();
            receivePool.release(h.data.length);
            if (h.peer.state() != PeerState.DISCONNECTED) {
                h.peer.receive(h.from, h.data, 0, h.data.length, now, h.newPath);
            }
        }
    }

    /** A datagram read by another lane, copied. */
    private record HandedOver(PeerDriver peer, InetSocketAddress from, byte[] data, boolean newPath) {
    }

    long ticks() {
        return ticks;
    }

    long housekeepingVisits() {
        return schedule.housekeepingVisits();
    }

    // ------------------------------------------------------------------ the turn (this lane's thread)

    /** One datagram read by this lane's thread: to the node (a handshake) or to its peer. */
    @Override
    public void onDatagram(InetSocketAddress from, byte[] data, int length) {
        counters.received(length);
        if (length > budget) {
            counters.drop(DropReason.TOO_LARGE);
            return;
        }
        if (length == 0) {
            counters.drop(DropReason.MALFORMED);
            return;
        }
        byte type = data[0];
        double now = clock.now();
        if (HandshakeServer.isRequest(type) || HandshakeServer.isResponse(type)) {
            node.onHandshake(this, from, data, length, now);
            return;
        }
        PeerDriver peer = peers.find(from, data, length);
        boolean newPath = false;
        if (migrates) {
            // a frame naming an accepted connection of another address: perhaps its peer moved (migration)
            int salt = Connection.frameSalt(data, length);
            if (salt != 0 && Connection.isFrame(type) && (peer == null || peer.salt() != salt)) {
                PeerDriver owner = peers.bySalt(salt);
                if (owner != null) {
                    peer = owner;
                    newPath = true;
                }
            }
        }
        if (peer == null) {
            counters.drop(Connection.belongsToConnection(type) ? DropReason.UNKNOWN_SENDER : DropReason.MALFORMED);
            return;
        }
        if (peer.lane() != this) {
            // the kernel moved this address to another socket: its own lane handles it (rare; a copy)
            counters.otherLane.increment();
            peer.lane().handOver(peer, from, data, length, newPath);
            return;
        }
        peer.receive(from, data, 0, length, now, newPath);
    }

    /** A bug: handling a datagram threw (dropped, counted, logged). */
    @Override
    public void onDatagramFailed(RuntimeException e) {
        LOG.log(Level.ERROR, "bug: datagram handling threw; datagram dropped", e);
        counters.drop(DropReason.MALFORMED);
    }

    /** This lane's turn (its thread): conditioners and tick of its peers, events, then the schedule's writes and deadlines. */
    @Override
    public void onTurn(boolean tick) {
        if (laneCount > 1 && !handedOver.isEmpty()) {
            try {
                receiveHandedOver(clock.now());
            } catch (RuntimeException e) {
                onDatagramFailed(e);
            }
        }
        boolean conditioned = conditioning.isSet();
        if (conditioned || tick) {
            double now = clock.now();
            if (conditioned) {
                for (PeerDriver peer : peers.all()) {
                    if (peer.lane() == this) {
                        peer.pollConditioner(now);
                    }
                }
            }
            if (tick) {
                ticks++; // only this lane's thread writes it
                schedule.tick(now);
            }
        }
        events.dispatch();
        schedule.turn();
    }

    // ------------------------------------------------------------------ the socket's sends (any thread)

    /**
     * Writes one datagram by copying it into {@code buffer} (a direct buffer, so the port sends it
     * without another copy); {@code buffer} is owned by the caller's peer (under its lock) or the I/O
     * thread.
     */
    public void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length) {
        transmit(buffer, to, data, offset, length, DatagramSender.NODE_CLASS, true);
    }

    @Override
    public void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length, int tos) {
        transmit(buffer, to, data, offset, length, tos, true);
    }

    /**
     * Writes a datagram the link conditioner releases: counted as sent when it was submitted to the
     * conditioner (which stands for the network: what it drops was sent, a duplicate was sent once).
     */
    @Override
    public void transmitConditioned(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length) {
        transmit(buffer, to, data, offset, length, DatagramSender.NODE_CLASS, false);
    }

    private void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length,
                          int tos, boolean count) {
        buffer.clear();
        buffer.put(0, data, offset, length);
        transmit(buffer, 0, length, to, tos, count);
    }

    /**
     * Writes the datagram {@code buffer[offset, offset+length)} as it lies (absolute indexes): a
     * direct buffer goes to the kernel without a copy. Leaves the buffer as {@link ByteBuffer#clear()}
     * does. The buffer is owned by the caller's peer (under its lock) or the I/O thread. A peer's
     * datagrams leave by its lane's socket, the one its lane reads.
     */
    @Override
    public void transmit(ByteBuffer buffer, int offset, int length, InetSocketAddress to, int tos) {
        transmit(buffer, offset, length, to, tos, true);
    }

    /**
     * As {@link #transmit(ByteBuffer, int, int, InetSocketAddress, int)}; {@code count} false when the
     * conditioner counted it. The node's class ({@link DatagramSender#NODE_CLASS}) is the port's own.
     */
    private void transmit(ByteBuffer buffer, int offset, int length, InetSocketAddress to, int tos, boolean count) {
        buffer.clear();
        buffer.position(offset).limit(offset + length);
        try {
            if (tos == DatagramSender.NODE_CLASS ? port.send(buffer, to) : port.send(buffer, to, tos)) {
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

    // ------------------------------------------------------------------ IoLoop.Handler

    /** The end of a pass: the port sends what this lane's thread queued; what the kernel refused is counted. */
    @Override
    public void flush() {
        int lost = port.flush();
        if (lost > 0) {
            counters.sendErrors.add(lost);
        }
    }

    @Override
    public boolean conditioned() {
        return conditioning.isSet();
    }

    @Override
    public long nextDeadline() {
        return schedule.nextDeadline();
    }

    @Override
    public void onFatal(Throwable cause) {
        node.onFatal(this, cause);
    }

    @Override
    public String toString() {
        return "IoLane[" + index + ", " + port.localAddress() + "]";
    }
}
