package io.reliableudp.transport;

import java.io.IOException;

/**
 * The {@link ReliableUdpNode} over a {@link java.nio.channels.DatagramChannel}.
 *
 * <p>Not built yet: the transport issue fills this in. Until then {@link #start} refuses, loudly.
 */
final class DatagramNode {

    private DatagramNode() {
    }

    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        throw new IOException("the UDP transport is not implemented yet (see the transport issue)");
    }
}
