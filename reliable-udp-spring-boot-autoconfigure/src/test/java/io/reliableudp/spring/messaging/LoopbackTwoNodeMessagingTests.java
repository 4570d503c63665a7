package io.reliableudp.spring.messaging;

import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The two-application tests over the real UDP transport on 127.0.0.1. They run as soon as the transport
 * can start a node; until then they are reported as skipped (an assumption), never passed.
 */
class LoopbackTwoNodeMessagingTests extends AbstractTwoNodeMessagingTests {

    @Override
    protected @Nullable ReliableUdpNodeFactory nodeFactory() {
        return null;
    }

    @Override
    protected int unreliableMinimumOf(int sent) {
        // loopback drops nothing unless the socket buffer overflows; 50 small messages never fill it
        return sent * 9 / 10;
    }

    @Override
    @BeforeAll
    void startBoth() {
        Assumptions.assumeTrue(transportAvailable(), "the UDP transport cannot start a node yet (ReliableUdpNode.start refuses)");
        super.startBoth();
    }

    static boolean transportAvailable() {
        NodeConfig config = NodeConfig.builder().bindAddress(new InetSocketAddress("127.0.0.1", 0)).build();
        try (ReliableUdpNode node = ReliableUdpNode.start(config, (Peer peer, int channel, int id, byte[] payload) -> { })) {
            return node.isOpen();
        } catch (IOException e) {
            return false;
        }
    }
}
