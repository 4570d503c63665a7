package io.reliableudp.spring.core;

import java.util.Collection;

/**
 * Supplies {@link UdpPeerGroup}s to the peer directory when it is built (with Boot: every bean of this
 * type, e.g. the one of {@code reliable-udp-spring-cloud} for {@code reliable-udp.peers.<name>.service-id}).
 */
@FunctionalInterface
public interface UdpPeerGroupProvider {

    /**
     * The groups.
     *
     * @return the groups, each with a name of its own
     */
    Collection<? extends UdpPeerGroup> peerGroups();
}
