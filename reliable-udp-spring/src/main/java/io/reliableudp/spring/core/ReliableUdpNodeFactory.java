package io.reliableudp.spring.core;

import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;

/**
 * Starts the node behind a {@link ManagedReliableUdpNode}. The default is {@link ReliableUdpNode#start};
 * declare a bean of this type to start something else (a node in another process, a test double).
 */
@FunctionalInterface
public interface ReliableUdpNodeFactory {

    /**
     * Binds and starts a node.
     *
     * @param config the node's settings
     * @param listener receives messages and connection events (on the node's receive thread)
     * @return the running node
     * @throws IOException when the socket cannot be bound
     */
    ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException;
}
