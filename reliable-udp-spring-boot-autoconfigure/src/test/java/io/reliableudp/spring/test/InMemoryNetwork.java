package io.reliableudp.spring.test;

import io.reliableudp.connection.DisconnectReason;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory stand-in for the UDP transport: nodes started through {@link #factory()} find each other
 * by address and exchange messages through per-node single "receive threads", keeping the
 * {@link NodeListener} contract (serial per node, in order per channel). Reliable sends complete when the
 * receiver's listener was called; delivery can be {@link #hold() held} to leave sends pending.
 */
public final class InMemoryNetwork {

    private static final AtomicInteger PORTS = new AtomicInteger(47_000);

    private final Map<InetSocketAddress, FakeNode> nodes = new ConcurrentHashMap<>();
    private volatile boolean held;
    private volatile boolean dropUnreliable;
    private final List<Runnable> heldDeliveries = new ArrayList<>();

    /** A factory starting in-memory nodes on 127.0.0.1 (port 0 picks a fresh port). */
    public ReliableUdpNodeFactory factory() {
        return this::start;
    }

    /** Holds every delivery (and so every ack) until {@link #release()}. */
    public void hold() {
        held = true;
    }

    /** Delivers what was held and stops holding. */
    public void release() {
        List<Runnable> toRun;
        synchronized (heldDeliveries) {
            held = false;
            toRun = new ArrayList<>(heldDeliveries);
            heldDeliveries.clear();
        }
        toRun.forEach(Runnable::run);
    }

    /** Silently loses every unreliable message from now on (they still complete as written). */
    public void dropUnreliable(boolean drop) {
        dropUnreliable = drop;
    }

    private ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        int port = config.bindAddress().getPort() == 0 ? PORTS.getAndIncrement() : config.bindAddress().getPort();
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
        FakeNode node = new FakeNode(address, config, listener);
        if (nodes.putIfAbsent(address, node) != null) {
            throw new java.net.BindException("Address already in use: " + address);
        }
        return node;
    }

    private void deliver(Runnable delivery) {
        synchronized (heldDeliveries) {
            if (held) {
                heldDeliveries.add(delivery);
                return;
            }
        }
        delivery.run();
    }

    final class FakeNode implements ReliableUdpNode {
        private final InetSocketAddress address;
        private final NodeConfig config;
        private final NodeListener listener;
        private final ExecutorService receiveThread;
        private final Map<InetSocketAddress, FakePeer> peers = new ConcurrentHashMap<>();
        private volatile boolean open = true;
        private volatile boolean draining;

        FakeNode(InetSocketAddress address, NodeConfig config, NodeListener listener) {
            this.address = address;
            this.config = config;
            this.listener = listener;
            this.receiveThread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("fake-receive-" + address.getPort()).factory());
        }

        void onReceiveThread(Runnable r) {
            if (!receiveThread.isShutdown()) {
                try {
                    receiveThread.execute(r);
                } catch (RuntimeException ignored) {
                    // closed meanwhile
                }
            }
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public NodeConfig config() {
            return config;
        }

        @Override
        public CompletableFuture<Peer> connect(InetSocketAddress remote) {
            FakeNode target = nodes.get(remote);
            if (!open || draining) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "node closed"));
            }
            if (target == null || !target.open || !target.config.acceptIncoming()) {
                return CompletableFuture.failedFuture(new IOException("no answer from " + remote + " (connect timeout)"));
            }
            FakePeer existing = peers.get(remote);
            if (existing != null && existing.state == PeerState.CONNECTED) {
                return CompletableFuture.completedFuture(existing);
            }
            FakePeer local = new FakePeer(this, remote);
            FakePeer far = new FakePeer(target, address);
            local.other = far;
            far.other = local;
            peers.put(remote, local);
            target.peers.put(address, far);
            CompletableFuture<Peer> f = new CompletableFuture<>();
            target.onReceiveThread(() -> target.listener.onConnected(far));
            onReceiveThread(() -> {
                listener.onConnected(local);
                f.complete(local);
            });
            return f;
        }

        @Override
        public @Nullable Peer peer(InetSocketAddress address) {
            return peers.get(address);
        }

        @Override
        public Collection<Peer> peers() {
            return List.copyOf(peers.values());
        }

        @Override
        public NodeStats stats() {
            return new NodeStats(0, 0, 0, 0, Map.of(), Map.of(), peers.size(), 0, 0);
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void setLinkConditioner(@Nullable LinkConditionerConfig config) {
            // the in-memory network has no datagrams to condition
        }

        @Override
        public CompletableFuture<Void> shutdown(Duration drainTimeout) {
            draining = true;
            return CompletableFuture.runAsync(() -> {
                long deadline = System.nanoTime() + drainTimeout.toNanos();
                while (System.nanoTime() < deadline && peers.values().stream().anyMatch(p -> !p.pending.isEmpty())) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
                close();
            });
        }

        @Override
        public void close() {
            if (!open) {
                return;
            }
            open = false;
            for (FakePeer p : List.copyOf(peers.values())) {
                p.end(DisconnectReason.CLOSED_LOCALLY, DeliveryFailure.CLOSED);
            }
            nodes.remove(address, this);
            receiveThread.shutdown();
            try {
                receiveThread.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    final class FakePeer implements Peer {
        private final FakeNode node;
        private final InetSocketAddress address;
        private final AtomicInteger[] ids = new AtomicInteger[64];
        final Map<CompletableFuture<Delivery>, Boolean> pending = new ConcurrentHashMap<>();
        private volatile PeerState state = PeerState.CONNECTED;
        private volatile @Nullable DisconnectReason reason;
        private @Nullable FakePeer other;

        FakePeer(FakeNode node, InetSocketAddress address) {
            this.node = node;
            this.address = address;
            for (int i = 0; i < ids.length; i++) {
                ids[i] = new AtomicInteger();
            }
        }

        @Override
        public InetSocketAddress address() {
            return address;
        }

        @Override
        public PeerState state() {
            return state;
        }

        @Override
        public @Nullable DisconnectReason disconnectReason() {
            return reason;
        }

        @Override
        public CompletableFuture<Delivery> send(int channel, byte[] payload) {
            if (node.draining || !node.open) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "node is shutting down"));
            }
            if (state != PeerState.CONNECTED) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.NOT_CONNECTED, "not connected"));
            }
            if (channel < 0 || channel >= node.config.message().channels().size()) {
                return CompletableFuture.failedFuture(new IllegalArgumentException("no channel " + channel));
            }
            if (payload.length > node.config.message().maxMessageSize()) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.TOO_LARGE, "too large"));
            }
            DeliveryMode mode = node.config.message().channels().get(channel).mode();
            int id = ids[channel].getAndIncrement() & 0xFFFF;
            FakePeer target = other;
            CompletableFuture<Delivery> f = new CompletableFuture<>();
            if (!mode.isReliable()) {
                if (!dropUnreliable && target != null) {
                    deliver(() -> target.node.onReceiveThread(() -> target.node.listener.onMessage(target, channel, id, payload)));
                }
                f.complete(new Delivery(address, channel, id, false));
                return f;
            }
            pending.put(f, Boolean.TRUE);
            f.whenComplete((d, e) -> pending.remove(f));
            deliver(() -> {
                if (target == null || target.state != PeerState.CONNECTED) {
                    return;
                }
                target.node.onReceiveThread(() -> {
                    target.node.listener.onMessage(target, channel, id, payload);
                    // the ack travels back on the sender's receive thread
                    node.onReceiveThread(() -> f.complete(new Delivery(address, channel, id, true)));
                });
            });
            return f;
        }

        @Override
        public void flush() {
            // nothing is batched in memory
        }

        @Override
        public void disconnect() {
            end(DisconnectReason.CLOSED_LOCALLY, DeliveryFailure.CLOSED);
        }

        void end(DisconnectReason localReason, DeliveryFailure failure) {
            if (state == PeerState.DISCONNECTED) {
                return;
            }
            state = PeerState.DISCONNECTED;
            reason = localReason;
            node.peers.remove(address, this);
            for (CompletableFuture<Delivery> f : List.copyOf(pending.keySet())) {
                f.completeExceptionally(new DeliveryException(failure, "disconnected before the ack"));
            }
            node.onReceiveThread(() -> node.listener.onDisconnected(this, localReason));
            FakePeer o = other;
            if (o != null) {
                o.end(DisconnectReason.CLOSED_BY_PEER, DeliveryFailure.DISCONNECTED);
            }
        }

        @Override
        public PeerStats stats() {
            List<ChannelStats> channels = new ArrayList<>();
            for (int i = 0; i < node.config.message().channels().size(); i++) {
                channels.add(new ChannelStats(i, node.config.message().channels().get(i).mode(), 0, 0, 0, 0, 0, 0, 0, 0));
            }
            return new PeerStats(state, 0.1f, 0.1f, 0.1f, 0.1f, 0, 0, 0, 0, 0, 0, 0, Map.of(), channels, false, 60, 0, 0);
        }
    }
}
