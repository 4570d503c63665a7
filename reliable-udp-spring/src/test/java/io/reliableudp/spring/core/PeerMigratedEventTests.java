package io.reliableudp.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.Peer;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A connection that moved to a new address of its peer becomes a {@link UdpPeerMigratedEvent}. */
class PeerMigratedEventTests {

    @Test
    void aMigrationIsPublishedWithBothAddresses() {
        Object source = new Object();
        UdpInboundDispatcher dispatcher = new UdpInboundDispatcher(source, new UdpChannels(NodeConfig.builder().build(), Map.of()),
                new UdpPeerDirectory(Map.of(), ReconnectPolicy.DEFAULT));
        List<Object> published = new CopyOnWriteArrayList<>();
        dispatcher.setEventPublisher(published::add, Runnable::run);
        Peer peer = (Peer) Proxy.newProxyInstance(Peer.class.getClassLoader(), new Class<?>[] {Peer.class},
                (p, m, a) -> m.getName().equals("toString") ? "peer" : null);
        InetSocketAddress from = new InetSocketAddress("192.0.2.1", 4000);
        InetSocketAddress to = new InetSocketAddress("192.0.2.9", 4001);

        dispatcher.onPeerMigrated(peer, from, to);

        assertThat(published).singleElement().isInstanceOfSatisfying(UdpPeerMigratedEvent.class, e -> {
            assertThat(e.getSource()).isSameAs(source);
            assertThat(e.getPeer()).isSameAs(peer);
            assertThat(e.getFrom()).isEqualTo(from);
            assertThat(e.getTo()).isEqualTo(to);
        });
    }
}
