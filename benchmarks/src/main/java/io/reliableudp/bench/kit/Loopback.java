package io.reliableudp.bench.kit;

import io.reliableudp.transport.NodeConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * The node settings the benchmarks start from: every node binds an ephemeral loopback port, clients do
 * not accept connections; everything else is the default unless a benchmark says otherwise.
 */
public final class Loopback {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private Loopback() {
    }

    /** A node on an ephemeral loopback port, otherwise the defaults. */
    public static NodeConfig.Builder node() {
        return NodeConfig.builder().bindAddress(address(0));
    }

    /** A node that only connects out (acceptIncoming false), on an ephemeral loopback port. */
    public static NodeConfig.Builder client() {
        return node().acceptIncoming(false);
    }

    /** The loopback address with {@code port}. */
    public static InetSocketAddress address(int port) {
        return new InetSocketAddress(LOOPBACK, port);
    }
}
