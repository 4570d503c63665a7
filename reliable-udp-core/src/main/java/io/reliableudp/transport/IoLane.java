package io.reliableudp.transport;

import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * One I/O thread's share of a node ({@link NodeConfig#ioThreads()}): its {@link DatagramPort} (one of
 * the N sockets on the node's port), the {@link IoLoop} that reads it, and the state only that thread
 * touches: the peers it has to write ({@link DirtyPeers}), their message-layer deadlines
 * ({@link PeerTimers}) and its queue of listener calls ({@link NodeEvents}). A peer belongs to one
 * lane for its life (the one whose socket received its first datagram, or the one a connect picked),
 * so one peer's timers, writes and listener calls stay on one thread. The shared state (peer table,
 * acceptor, counters) stays in the {@link DatagramNode}; this class hands the loop's calls to it.
 *
 * <p>A datagram of this lane's peer that another lane's socket read (the kernel's socket group
 * changed) is copied and handed over ({@link #handOver}), so that every call into the peer, and so
 * the order of its listener calls, stays on this lane's thread.
 */
final class IoLane implements IoLoop.Handler {

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
    /** Datagrams of this lane's peers read by other lanes, for this lane's next turn. */
    private final ConcurrentLinkedQueue<HandedOver> handedOver = new ConcurrentLinkedQueue<>();
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

    /** Another lane read a datagram of {@code peer} (of this lane): a copy is handled in this lane's next turn. */
    void handOver(NodePeer peer, byte[] data, int length) {
        handedOver.add(new HandedOver(peer, java.util.Arrays.copyOf(data, length)));
        loop.wakeup();
    }

    /** This lane's thread: the datagrams other lanes handed over, in the order they came. */
    void receiveHandedOver(double now) {
        HandedOver h;
        while ((h = handedOver.poll()) != null) {
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

    @Override
    public void onDatagram(InetSocketAddress from, byte[] data, int length) {
        node.onDatagram(this, from, data, length);
    }

    @Override
    public void onTurn(boolean tick) {
        node.onTurn(this, tick);
    }

    @Override
    public boolean conditioned() {
        return node.conditioned();
    }

    @Override
    public long nextDeadline() {
        return timers.earliest();
    }

    @Override
    public void onDatagramFailed(RuntimeException e) {
        node.onDatagramFailed(e);
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
