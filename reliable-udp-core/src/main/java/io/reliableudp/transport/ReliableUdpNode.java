package io.reliableudp.transport;

import io.reliableudp.link.LinkConditionerConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A reliable-UDP node: one UDP socket, many peers. It can connect to servers (client role) and,
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

    /** Binds the socket, starts the receive loop and the send tick. */
    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        return DatagramNode.start(config, listener);
    }

    /** The bound address (with the real port when 0 was configured). */
    InetSocketAddress localAddress();

    NodeConfig config();

    /** Starts a handshake with a server; the future completes when connected or fails with the reason. */
    CompletableFuture<Peer> connect(InetSocketAddress remote);

    /** The peer at that address, or null. */
    @Nullable Peer peer(InetSocketAddress address);

    /** The current peers (connecting or connected). */
    Collection<Peer> peers();

    NodeStats stats();

    /** True from start until close. */
    boolean isOpen();

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
