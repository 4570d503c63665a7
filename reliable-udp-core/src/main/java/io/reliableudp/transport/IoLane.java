package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One I/O thread's share of a node ({@link NodeConfig#ioThreads()}): its {@link DatagramPort} (one of
 * the N sockets on the node's port), the {@link IoLoop} that reads it, and the state only that thread
 * touches: the peers it has to write ({@link DirtyPeers}), their message-layer deadlines
 * ({@link PeerTimers}) and its queue of listener calls ({@link NodeEvents}). A peer belongs to one
 * lane for its life (the one whose socket received its first datagram, or the one a connect picked),
 * so one peer's timers, writes and listener calls stay on one thread. Its one job is that thread's
 * turn ({@link IoLoop.Handler}): a datagram read goes to the acceptor or to its peer, then each turn
 * runs the link conditioners, the tick of the peers due, the message-layer deadlines, the listener
 * calls and the writes of the peers marked; and the sends by its socket, counted. The shared state
 * (peer table, acceptor, counters, the clock) stays in the {@link DatagramNode}.
 *
 * <p>A datagram of this lane's peer that another lane's socket read (the kernel's socket group
 * changed) is copied and handed over ({@link #handOver}), so that every call into the peer, and so
 * the order of its listener calls, stays on this lane's thread.
 */
final class IoLane implements IoLoop.Handler {

    private static final System.Logger LOG = System.getLogger(IoLane.class.getName());

    final int index;
    final DatagramPort port;
    final IoLoop loop;
    final DirtyPeers dirty = new DirtyPeers();
    final PeerTimers<NodePeer> timers = new PeerTimers<>();
    /**
     * IMMEDIATE: this lane's peers by when their connection timers are next due (keepalive, timeout,
     * handshake, the session's housekeeping), nanoseconds of the node's clock: a tick visits only the
     * peers due by then, not every peer of the node. I/O thread only.
     */
    final PeerTimers<NodePeer.Housekeeping> housekeeping = new PeerTimers<>();
    /** Peers made since the last tick (by any thread), for this lane's housekeeping heap. */
    private final ConcurrentLinkedQueue<NodePeer> adopted = new ConcurrentLinkedQueue<>();
    /** Heap entries the ticks took out (due or gone peers); this lane's thread only writes it. */
    private volatile long housekeepingVisits;
    final NodeEvents events;
    private final DatagramNode node;
    private final java.util.function.Consumer<NodePeer> writeQueued = this::writeQueued;
    /** Datagrams of this lane's peers read by other lanes, for this lane's next turn. */
    private final ConcurrentLinkedQueue<HandedOver> handedOver = new ConcurrentLinkedQueue<>();
    /** Most datagrams {@link #handedOver} holds: past it (or past the node's receive memory) they are dropped. */
    static final int MAX_HANDED_OVER = 1024;
    /** Datagrams in {@link #handedOver}. */
    private final java.util.concurrent.atomic.AtomicInteger handedOverCount = new java.util.concurrent.atomic.AtomicInteger();
    /** Ticks this lane's loop ran; its thread only writes it. */
    private volatile long ticks;

    IoLane(DatagramNode node, int index, DatagramPort port, NodeListener listener, double tickSeconds) {
        this.node = node;
        this.index = index;
        this.port = port;
        NodeConfig config = node.config();
        this.events = new NodeEvents(listener, node.counters().listenerErrors);
        this.loop = new IoLoop(port, this, tickSeconds, config.receiveBusyPoll().toNanos(), config.receiveThreadMode(),
                "reliable-udp-io-" + port.localAddress().getPort() + (index == 0 ? "" : "-" + index));
        events.attach(loop);
    }

    /**
     * {@code peer} (of this lane) has something queued; this lane's thread writes it in its next turn.
     * Any thread; a burst costs one mark and one wake-up.
     */
    void sendSoon(NodePeer peer) {
        if (dirty.mark(peer)) {
            loop.wakeup();
        }
    }

    /**
     * {@code peer} (of this lane) was written by an application thread, which leaves its timers to this
     * lane's next turn, whatever wakes the loop (under the peer's lock): marked, no wake-up.
     */
    void markQuietly(NodePeer peer) {
        dirty.markQuietly(peer);
    }

    /**
     * After {@link #markQuietly}: the quietly marked peer's next deadline ({@code deadline}, seconds on
     * the node's clock), for which the loop gets a turn without being woken now (its wake timer). Any
     * thread.
     */
    void wakeAtQuietly(double deadline) {
        long nanos = deadlineNanos(deadline);
        if (nanos != Long.MAX_VALUE) {
            loop.wakeAtQuietly(nanos);
        }
    }

    /**
     * Whether the loop, waiting now, will run a turn by itself by {@code deadline} (seconds on the
     * node's clock; +inf: no deadline): its wait ends by then. False while it is not waiting (it may be
     * about to wait longer). Any thread; a hint that is only ever acted on while the loop waits.
     */
    boolean wakesBy(double deadline) {
        long until = loop.waitingUntil();
        if (until == Long.MAX_VALUE) {
            return false;
        }
        long nanos = deadlineNanos(deadline);
        return nanos == Long.MAX_VALUE || until - nanos <= 0;
    }

    /**
     * A deadline in seconds on {@link DatagramNode#now()}'s clock as System.nanoTime, rounded up;
     * Long.MAX_VALUE for none (+inf, NaN, or beyond ~290 years).
     */
    private long deadlineNanos(double deadline) {
        if (deadline == Double.POSITIVE_INFINITY || Double.isNaN(deadline)) {
            return Long.MAX_VALUE;
        }
        double offset = Math.max(0, deadline) * 1e9;
        return offset >= 9.0e18 ? Long.MAX_VALUE : node.startNanos() + (long) Math.ceil(offset);
    }

    /**
     * Another lane read a datagram of {@code peer} (of this lane): a copy is handled in this lane's next
     * turn. At most {@link #MAX_HANDED_OVER} wait, their bytes counted in the node's receive memory;
     * one past either is dropped (counted as {@code rate_limited}; a reliable sender resends it).
     */
    void handOver(NodePeer peer, byte[] data, int length) {
        if (handedOverCount.incrementAndGet() > MAX_HANDED_OVER) {
            handedOverCount.decrementAndGet();
            node.countDrop(DropReason.RATE_LIMITED);
            return;
        }
        if (!node.receivePool().tryReserve(length, false)) {
            handedOverCount.decrementAndGet();
            node.countDrop(DropReason.RATE_LIMITED);
            return;
        }
        handedOver.add(new HandedOver(peer, java.util.Arrays.copyOf(data, length)));
        loop.wakeup();
    }

    /** Datagrams waiting to be handed over to this lane (tests). */
    int handedOverCount() {
        return handedOverCount.get();
    }

    /** This lane's thread: the datagrams other lanes handed over, in the order they came. */
    void receiveHandedOver(double now) {
        HandedOver h;
        while ((h = handedOver.poll()) != null) {
            handedOverCount.decrementAndGet();
            node.receivePool().release(h.data.length);
            if (h.peer.state() != PeerState.DISCONNECTED) {
                h.peer.receive(h.data, 0, h.data.length, now);
            }
        }
    }

    boolean hasHandedOver() {
        return !handedOver.isEmpty();
    }

    /** A datagram read by another lane, copied. */
    private record HandedOver(NodePeer peer, byte[] data) {
    }

    long ticks() {
        return ticks;
    }

    /** A new peer of this lane (any thread): its first housekeeping runs in this lane's next tick. */
    void adopt(NodePeer peer) {
        adopted.add(peer);
    }

    /** This lane's thread: puts the peers made since the last tick in the housekeeping heap, due at once. */
    void takeAdopted() {
        NodePeer p;
        while ((p = adopted.poll()) != null) {
            housekeeping.schedule(p.housekeeping, 0);
        }
    }

    long housekeepingVisits() {
        return housekeepingVisits;
    }

    void visited() {
        housekeepingVisits++; // only this lane's thread writes it
    }

    void ticked() {
        ticks++; // only this lane's thread writes it
    }

    // ------------------------------------------------------------------ the turn (this lane's thread)

    /** One datagram read by this lane's thread: to the acceptor (a handshake) or to its peer. */
    @Override
    public void onDatagram(InetSocketAddress from, byte[] data, int length) {
        node.counters().received(length);
        if (length > node.budget()) {
            node.countDrop(DropReason.TOO_LARGE);
            return;
        }
        if (length == 0) {
            node.countDrop(DropReason.MALFORMED);
            return;
        }
        byte type = data[0];
        double now = node.now();
        if (Acceptor.handles(type)) {
            node.acceptor().onHandshake(this, from, data, length, now);
            return;
        }
        NodePeer peer = node.peerTable().get(from);
        if (peer == null) {
            node.countDrop(Connection.belongsToConnection(type) ? DropReason.UNKNOWN_SENDER : DropReason.MALFORMED);
            return;
        }
        if (peer.lane() != this) {
            // the kernel moved this address to another socket: its own lane handles it (rare; a copy)
            node.counters().otherLane.increment();
            peer.lane().handOver(peer, data, length);
            return;
        }
        peer.receive(data, 0, length, now);
    }

    /** A bug: handling a datagram threw (dropped, counted, logged). */
    @Override
    public void onDatagramFailed(RuntimeException e) {
        LOG.log(Level.ERROR, "bug: datagram handling threw; datagram dropped", e);
        node.countDrop(DropReason.MALFORMED);
    }

    /** This lane's turn (its thread): conditioners and tick of its peers, events, writes, their deadlines. */
    @Override
    public void onTurn(boolean tick) {
        if (node.laneCount() > 1 && hasHandedOver()) {
            try {
                receiveHandedOver(node.now());
            } catch (RuntimeException e) {
                onDatagramFailed(e);
            }
        }
        if (node.conditioned() || tick) {
            double now = node.now();
            if (node.conditioned()) {
                for (NodePeer peer : node.peerTable().all()) {
                    if (peer.lane() == this) {
                        peer.pollConditioner(now);
                    }
                }
            }
            if (tick) {
                ticked();
                tick(now);
            }
        }
        events.dispatch();
        if (node.immediate()) {
            if (!dirty.isEmpty()) {
                // after the listener calls, so that a reply a listener just sent leaves in this turn; the
                // quiet writers' deadline goes first (each set it after its mark): the drain takes their timers
                loop.quietTakenOver();
                dirty.drain(writeQueued);
            }
            // last: an acknowledgement a datagram of this turn owes at once goes after the listener
            // calls (the delivery does not wait behind it) and only when no reply carried it
            runDeadlines();
            events.dispatch(); // what the deadlines raised (a delivery failure, a disconnect)
        }
    }

    /** IMMEDIATE: updates every peer of this lane whose message-layer deadline has come (each reschedules itself). */
    private void runDeadlines() {
        long nowNanos = System.nanoTime();
        if (timers.earliest() - nowNanos > 0) {
            return;
        }
        double now = node.now();
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

    /**
     * This lane's tick, for its peers. TICK: every peer sends. IMMEDIATE: only the peers
     * whose connection timers may be due (keepalive, timeout, handshake, the session's housekeeping):
     * one tick serves every peer due by then, and an idle peer costs a comparison per tick and an
     * update per keepalive interval.
     */
    private void tick(double now) {
        if (node.immediate()) {
            tickDue(now);
            return;
        }
        for (NodePeer peer : node.peerTable().all()) {
            if (peer.lane() != this) {
                continue;
            }
            try {
                peer.tick(now);
            } catch (RuntimeException e) {
                failed(peer, "update", e);
            }
        }
    }

    /**
     * IMMEDIATE: the tick of this lane's peers that are due, taken from the lane's heap of
     * housekeeping times, so a tick costs O(due peers · log n), not a pass over every peer of the node
     * (5,000 idle peers: about 5,000 to 10,000 visits a second at a 1 s keepalive, instead of 5,000 per tick
     * per lane). A peer that left the table leaves the heap when it comes up; a peer still in the
     * handshake (due at every tick) goes back for the next tick, not this one.
     */
    private void tickDue(double now) {
        takeAdopted();
        PeerTimers<NodePeer.Housekeeping> heap = housekeeping;
        long nowKey = housekeepingKey(now);
        int budget = heap.size();
        NodePeer.Housekeeping entry;
        while (budget-- > 0 && (entry = heap.pollDue(nowKey)) != null) {
            visited();
            NodePeer peer = entry.peer;
            if (node.peerTable().get(peer.address()) != peer) {
                continue; // removed (or replaced): out of the heap for good
            }
            if (peer.housekeepingDue(now)) {
                try {
                    peer.tick(now);
                } catch (RuntimeException e) {
                    failed(peer, "update", e);
                }
            }
            long next = housekeepingKey(peer.housekeepingAt());
            if (next != Long.MAX_VALUE) {
                heap.schedule(entry, Math.max(next, nowKey + 1));
            }
        }
    }

    /**
     * A time of the node's clock (seconds) as a key of the housekeeping heap: nanoseconds, rounded down
     * (so a peer due by {@code now} is taken at the tick of {@code now}); 0 for any time before the
     * start, Long.MAX_VALUE (no key) for never.
     */
    static long housekeepingKey(double seconds) {
        if (seconds == Double.POSITIVE_INFINITY || Double.isNaN(seconds)) {
            return Long.MAX_VALUE;
        }
        if (seconds <= 0) {
            return 0;
        }
        double nanos = Math.floor(seconds * 1e9);
        return nanos >= 9.0e18 ? Long.MAX_VALUE : (long) nanos;
    }

    /** A bug below us threw for {@code peer}: logged, and the peer disconnected (or forgotten). */
    private void failed(NodePeer peer, String what, RuntimeException e) {
        LOG.log(Level.ERROR, "bug: " + what + " of " + peer.address() + " threw; disconnecting it", e);
        try {
            peer.disconnect(DisconnectReason.PROTOCOL_ERROR, "internal error: " + e);
        } catch (RuntimeException again) {
            node.peerTable().remove(peer); // cannot even disconnect: forget it
        }
        if (peer.lane().loop.inLoop()) {
            peer.lane().timers.schedule(peer, Long.MAX_VALUE);
        }
    }

    /**
     * IMMEDIATE: the message layer of {@code peer} (of this lane) wants its next update at
     * {@code deadline} (seconds on {@link DatagramNode#now()}'s clock; +inf: none). Off this lane's
     * thread (which the transport avoids: another lane hands such datagrams over) the peer is marked
     * instead, and its write on this lane's thread schedules it.
     */
    void schedule(NodePeer peer, double deadline) {
        if (!loop.inLoop()) {
            sendSoon(peer);
            return;
        }
        timers.schedule(peer, deadlineNanos(deadline));
    }

    private void writeQueued(NodePeer peer) {
        try {
            peer.writeQueued(node.now());
        } catch (RuntimeException e) {
            failed(peer, "sending", e);
        }
    }

    // ------------------------------------------------------------------ the socket's sends (any thread)

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

    private void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length,
                          boolean count) {
        buffer.clear();
        buffer.put(0, data, offset, length);
        transmit(buffer, 0, length, to, count);
    }

    /**
     * Writes the datagram {@code buffer[offset, offset+length)} as it lies (absolute indexes): a
     * direct buffer goes to the kernel without a copy. Leaves the buffer as {@link ByteBuffer#clear()}
     * does. The buffer is owned by the caller's peer (under its lock) or the I/O thread. A peer's
     * datagrams leave by its lane's socket, the one its lane reads.
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
                    node.counters().sent(length);
                }
            } else {
                node.counters().sendErrors.increment(); // send buffer full: the datagram is lost like on the wire
            }
        } catch (ClosedChannelException e) {
            // closing: nothing goes out any more
        } catch (IOException e) {
            node.counters().sendErrors.increment();
            LOG.log(Level.DEBUG, () -> "send to " + to + " failed: " + e);
        } finally {
            buffer.clear();
        }
    }

    // ------------------------------------------------------------------ IoLoop.Handler

    @Override
    public boolean conditioned() {
        return node.conditioned();
    }

    @Override
    public long nextDeadline() {
        return timers.earliest();
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
