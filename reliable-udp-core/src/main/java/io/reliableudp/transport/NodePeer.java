package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.connection.DisconnectReason;
import io.reliableudp.connection.DropReason;
import io.reliableudp.connection.Session;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A peer of a {@link DatagramNode}: the {@link Connection} of one remote address behind a lock.
 * Every call into the connection (and so into the message layer) holds {@link #lock}; the receive
 * loop, the send tick and application threads take turns.
 */
final class NodePeer implements Peer, Connection.Events, Connection.Transmitter {

    private final DatagramNode node;
    private final InetSocketAddress address;
    final ReentrantLock lock = new ReentrantLock();
    private final ByteBuffer sendBuffer;
    private final @Nullable CompletableFuture<Peer> connectFuture;
    private final boolean[] reliable;
    private @Nullable Connection connection;
    private volatile PeerState state = PeerState.CONNECTING;
    private volatile @Nullable DisconnectReason reason;
    private volatile boolean serverSide;

    NodePeer(DatagramNode node, InetSocketAddress address, boolean client) {
        this.node = node;
        this.address = address;
        this.sendBuffer = ByteBuffer.allocateDirect(node.config().message().datagramBudget() + 512);
        this.connectFuture = client ? new CompletableFuture<>() : null;
        List<ChannelConfig> channels = node.config().message().channels();
        this.reliable = new boolean[channels.size()];
        for (int i = 0; i < reliable.length; i++) {
            reliable[i] = channels.get(i).mode().isReliable();
        }
    }

    void attach(Connection c, boolean server) {
        this.connection = c;
        this.serverSide = server;
        if (server) {
            state = PeerState.CONNECTED;
        }
    }

    Connection connection() {
        Connection c = connection;
        if (c == null) {
            throw new IllegalStateException("peer without connection");
        }
        return c;
    }

    boolean serverSide() {
        return serverSide;
    }

    @Nullable CompletableFuture<Peer> connectFuture() {
        return connectFuture;
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
        if (!node.acceptsSends()) {
            return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "node is shutting down"));
        }
        long waitNanos = node.config().sendQueueWait().toNanos();
        long deadline = waitNanos > 0 ? System.nanoTime() + waitNanos : 0;
        while (true) {
            Session.Send sent;
            lock.lock();
            try {
                sent = connection().send(channel, payload, node.now());
            } finally {
                lock.unlock();
            }
            CompletableFuture<Void> f = sent.future();
            if (waitNanos > 0 && f.isCompletedExceptionally() && isQueueFull(f) && System.nanoTime() - deadline < 0) {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                continue;
            }
            boolean acked = channel >= 0 && channel < reliable.length && reliable[channel];
            return f.thenApply(new ToDelivery(address, sent.channel(), sent.messageId(), acked));
        }
    }

    private static boolean isQueueFull(CompletableFuture<Void> f) {
        Throwable t = f.exceptionNow();
        return t instanceof DeliveryException d && d.reason() == DeliveryFailure.QUEUE_FULL;
    }

    /** Maps the message layer's completion to the public {@link Delivery}. */
    private record ToDelivery(InetSocketAddress peer, int channel, int messageId, boolean acked)
            implements Function<Void, Delivery> {
        @Override
        public Delivery apply(Void ignored) {
            return new Delivery(peer, channel, messageId, acked);
        }
    }

    @Override
    public void flush() {
        lock.lock();
        try {
            connection().flush(node.now());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void disconnect() {
        disconnect(DisconnectReason.CLOSED_LOCALLY, "disconnected by the application");
    }

    void disconnect(DisconnectReason why, String detail) {
        lock.lock();
        try {
            connection().disconnect(why, detail, true, node.now());
        } finally {
            lock.unlock();
        }
    }

    boolean hasPendingReliable() {
        lock.lock();
        try {
            return connection().hasPendingReliable();
        } finally {
            lock.unlock();
        }
    }

    void tick(double now) {
        lock.lock();
        try {
            connection().update(now);
        } finally {
            lock.unlock();
        }
    }

    void receive(byte[] data, int offset, int length, double now) {
        lock.lock();
        try {
            connection().receive(data, offset, length, now);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public PeerStats stats() {
        lock.lock();
        try {
            Connection c = connection();
            return node.statsOf(this, c);
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------ connection events (under lock)

    @Override
    public void onConnected() {
        state = PeerState.CONNECTED;
        node.post(DatagramNode.Event.connected(this));
    }

    @Override
    public void onDisconnected(DisconnectReason why, String detail) {
        reason = why;
        state = PeerState.DISCONNECTED;
        node.removed(this, why, detail);
        node.post(DatagramNode.Event.disconnected(this, why, detail));
    }

    @Override
    public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
        byte[] copy = new byte[length];
        System.arraycopy(data, offset, copy, 0, length);
        node.post(DatagramNode.Event.message(this, channel, messageId, copy));
    }

    @Override
    public void onDrop(DropReason why) {
        node.countDrop(why);
    }

    @Override
    public void transmit(byte[] data, int offset, int length) {
        node.transmit(sendBuffer, address, data, offset, length);
    }

    Map<String, Long> emptyCounters() {
        return Map.of();
    }

    @Override
    public String toString() {
        return "Peer[" + address + ", " + state + (reason == null ? "" : ", " + reason) + "]";
    }
}
