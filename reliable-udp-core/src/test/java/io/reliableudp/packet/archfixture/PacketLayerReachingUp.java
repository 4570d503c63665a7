package io.reliableudp.packet.archfixture;

import io.reliableudp.transport.NodeConfig;

/**
 * A deliberately wrong class for {@code ArchitectureTest}: it sits in a packet-layer package and names
 * the transport, which the layering forbids. It is a test class, so the real scan (main classes only)
 * never sees it; {@code ArchitectureTest.theLayerRuleReportsAWrongImport} checks the rule against it.
 */
public final class PacketLayerReachingUp {

    private PacketLayerReachingUp() {
    }

    /** The wrong dependency: a packet-layer class using a transport type. */
    static int maxConnections() {
        return NodeConfig.builder().build().maxConnections();
    }
}
