package io.reliableudp.transport;

import io.reliableudp.link.LinkConditionerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A reliable-UDP node: one UDP socket (or another {@link DatagramPort}), many peers. It can connect to servers (client role) and,
 * when {@link NodeConfig#acceptIncoming()} is set, accept connections (server role). Thread-safe.
 *
 * <pre>{@code
 * try (ReliableUdpNode node = ReliableUdpNode.start(config, listener)) {
 *     Peer server = node.connect(new InetSocketAddress("127.0.0.1", 40000)).get();
 *     server.send(0, "hello".getBytes(UTF_8)).get();
 * }
 * }</pre>
 */
public interface ReliableUdpNode extends AutoCloseable {

    /** Binds a UDP socket ({@link UdpDatagramPort#open(NodeConfig)}), starts the receive loop and the send tick. */
    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        return DatagramNode.start(config, listener);
    }

    /**
     * Starts a node on a port opened by the caller: a {@link UdpDatagramPort} (e.g. one of several
     * bound to one address with {@code SO_REUSEPORT}) or a port of an {@link InMemoryNetwork}. The
     * node owns the port from now on and closes it when it closes. The port decides the address:
     * {@link NodeConfig#bindAddress()} and the socket buffer sizes of {@code config} are not used.
     */
    static ReliableUdpNode start(NodeConfig config, NodeListener listener, DatagramPort port) {
        return DatagramNode.start(config, listener, Sessions.DEFAULT, port);
    }

    /** The bound address (with the real port when 0 was configured). */
    InetSocketAddress localAddress();

    NodeConfig config();

    /** Starts a handshake with a server; the future completes when connected or fails with the reason. */
    CompletableFuture<Peer> connect(InetSocketAddress remote);

    /**
     * Opens another connection to {@code remote}, beside those this node has with it already (where
     * {@link #connect} returns the one there is): a new {@link Peer} with its own handshake, keys,
     * channels and statistics. Datagrams of the connections between the same two addresses are told
     * apart by their connection id (docs/connection.md, "Several connections between two addresses").
     * The default refuses ({@link UnsupportedOperationException}); the nodes of this library open one.
     */
    default CompletableFuture<Peer> connectAnother(InetSocketAddress remote) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("connectAnother"));
    }

    /** The peer at that address, or null. */
    @Nullable Peer peer(InetSocketAddress address);

    /** The current peers (connecting or connected). */
    Collection<Peer> peers();

    NodeStats stats();

    /**
     * What the node's socket runs on ({@link NodeConfig#batchedIo()}): {@code "batched (recvmmsg/sendmmsg,
     * GSO, GRO)"}, {@code "plain (DatagramChannel)"}, or another port's own name.
     */
    default String portKind() {
        return "unknown";
    }

    /** True from start until close. */
    boolean isOpen();

    /**
     * Replaces the allow-list of peer keys ({@link NodeConfig#allowedPeers()}) for the handshakes that
     * start from now on; connections already made stay. Rotating a peer's key: add the new key under
     * the same name, let the peer switch, then remove the old key.
     *
     * @throws IllegalStateException when this node has no identity (its mode cannot change at run time)
     * @throws IllegalArgumentException when the list is empty
     * @throws UnsupportedOperationException from a node that cannot change it (the default)
     */
    default void allowedPeers(Collection<PeerIdentity> peers) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot change its allow-list");
    }

    /**
     * Replaces this node's own key pair ({@link NodeConfig#identity()}) for the handshakes that start
     * from now on; connections already made stay. A handshake in flight that a peer began with the old
     * key still completes. Peers must have the new public key on their allow-lists first.
     *
     * @throws IllegalStateException when this node was started without an identity
     * @throws UnsupportedOperationException from a node that cannot change it (the default)
     */
    default void identity(NodeIdentity identity) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot change its identity");
    }

    /**
     * Pauses delivery on {@code channel} for every connection, present and future: as
     * {@link Peer#pauseReceiving} on each (their messages are held against the receive memory limits,
     * and once a limit is reached the node stops acknowledging packets that carry more of them, so the
     * senders' queues fill and their sends fail with {@code QUEUE_FULL}). A connection stays paused
     * while either it or the node has the channel paused. Any thread.
     *
     * @param channel channel index
     * @throws IllegalArgumentException when the channel does not exist
     * @throws UnsupportedOperationException when this node cannot pause
     */
    default void pauseReceiving(int channel) {
        throw new UnsupportedOperationException("pauseReceiving is not supported by " + getClass().getName());
    }

    /**
     * Resumes delivery on {@code channel} after {@link #pauseReceiving}: each connection not paused on
     * its own hands its held messages to the listener, in order, on its I/O thread. Any thread.
     *
     * @param channel channel index
     * @throws IllegalArgumentException when the channel does not exist
     * @throws UnsupportedOperationException when this node cannot pause
     */
    default void resumeReceiving(int channel) {
        throw new UnsupportedOperationException("resumeReceiving is not supported by " + getClass().getName());
    }

    /** Replaces the link conditioner on outgoing datagrams (null removes it). For tests and demos. */
    void setLinkConditioner(@Nullable LinkConditionerConfig config);

    /**
     * Graceful stop: refuses new sends, waits up to {@code drainTimeout} for pending reliable messages
     * to be acknowledged, then disconnects every peer (failing what is still pending with CLOSED) and
     * closes the socket.
     */
    CompletableFuture<Void> shutdown(Duration drainTimeout);

    /** Immediate stop: disconnects every peer (pending sends fail with CLOSED) and closes the socket. */
    @Override
    void close();
}
