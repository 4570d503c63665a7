package io.reliableudp.spring.test;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Helpers for tests of applications that use reliable-udp: the port a node bound (with
 * {@code reliable-udp.port=0}), its address as another node dials it, and waiting for a connection.
 */
public final class ReliableUdpTestUtils {

    private static final long POLL_NANOS = 5_000_000;

    private ReliableUdpTestUtils() {
    }

    /**
     * The port the node bound (the real one when 0 was configured).
     *
     * @param node a running node
     * @return the port
     * @throws IllegalStateException when the node is not running
     */
    public static int boundPort(ReliableUdpNode node) {
        return node.localAddress().getPort();
    }

    /**
     * The node's address as a local peer dials it: {@code 127.0.0.1:port} (the bind address may be the
     * wildcard), ready for {@code reliable-udp.peers.<name>.address}.
     *
     * @param node a running node
     * @return {@code 127.0.0.1:port}
     */
    public static String dialAddress(ReliableUdpNode node) {
        return "127.0.0.1:" + boundPort(node);
    }

    /**
     * Waits until the node has a connected peer of that name or address.
     *
     * @param node the node
     * @param peer a configured peer name or {@code host:port}
     * @param timeout how long to wait
     * @return the connected peer
     * @throws TimeoutException when it did not connect in time (the message says the peer's state)
     * @throws InterruptedException when interrupted while waiting
     */
    public static Peer awaitConnected(ManagedReliableUdpNode node, String peer, Duration timeout)
            throws TimeoutException, InterruptedException {
        return awaitConnected(node, node.peerDirectory().parseTarget(peer), timeout);
    }

    /**
     * Waits until the node has a connected peer at that address.
     *
     * @param node the node
     * @param address the peer's address
     * @param timeout how long to wait
     * @return the connected peer
     * @throws TimeoutException when it did not connect in time
     * @throws InterruptedException when interrupted while waiting
     */
    public static Peer awaitConnected(ReliableUdpNode node, InetSocketAddress address, Duration timeout)
            throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Peer p = node.peer(address);
            if (p != null && p.state() == PeerState.CONNECTED) {
                return p;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("no connected peer at " + UdpAddresses.format(address) + " after " + timeout
                        + " (state: " + describe(p) + ")");
            }
            Thread.sleep(Duration.ofNanos(POLL_NANOS));
        }
    }

    /**
     * Waits until the node has at least that many connected peers (e.g. a server waiting for its clients).
     *
     * @param node the node
     * @param count how many
     * @param timeout how long to wait
     * @throws TimeoutException when fewer connected in time
     * @throws InterruptedException when interrupted while waiting
     */
    public static void awaitConnectedPeers(ReliableUdpNode node, int count, Duration timeout)
            throws TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long connected = node.peers().stream().filter(p -> p.state() == PeerState.CONNECTED).count();
            if (connected >= count) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException(connected + " of " + count + " peers connected after " + timeout);
            }
            Thread.sleep(Duration.ofNanos(POLL_NANOS));
        }
    }

    private static String describe(@Nullable Peer p) {
        if (p == null) {
            return "absent";
        }
        return p.state() + (p.disconnectReason() == null ? "" : ", " + p.disconnectReason());
    }
}
