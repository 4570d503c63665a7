package io.reliableudp.spring.boot.actuate.endpoint;

import io.reliableudp.spring.boot.autoconfigure.health.ReliableUdpHealthContributorAutoConfiguration;
import io.reliableudp.spring.boot.autoconfigure.endpoint.ReliableUdpEndpointAutoConfiguration;
import io.reliableudp.spring.boot.health.ReliableUdpHealthIndicator;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration;
import io.reliableudp.spring.boot.metrics.ReliableUdpMetrics;
import io.reliableudp.spring.boot.autoconfigure.metrics.ReliableUdpMetricsAutoConfiguration;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The whole chain over real UDP on loopback: the starter's node connects to a server started here;
 * meters move with real traffic; health goes UP -> DEGRADED when the server is killed (the link
 * times out) -> UP when it comes back on the same port and the starter reconnects.
 */
@Timeout(60)
class RealNodeObservabilityTest {

    @Test
    void metersHealthAndEndpointFollowARealLink() throws Exception {
        AtomicInteger received = new AtomicInteger();
        NodeListener counting = (peer, channel, id, payload) -> received.incrementAndGet();
        ReliableUdpNode server = ReliableUdpNode.start(serverConfig(0), counting);
        int port = server.localAddress().getPort();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(ReliableUdpAutoConfiguration.class,
                            ReliableUdpMetricsAutoConfiguration.class, ReliableUdpHealthContributorAutoConfiguration.class,
                            ReliableUdpEndpointAutoConfiguration.class, EndpointAutoConfiguration.class,
                            JacksonEndpointAutoConfiguration.class,
                            org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class))
                    .withBean(MeterRegistry.class, () -> registry)
                    .withPropertyValues("reliable-udp.bind-address=127.0.0.1", "reliable-udp.accept-incoming=false",
                            "reliable-udp.timeout=1s", "reliable-udp.keep-alive-interval=100ms",
                            "reliable-udp.reconnect.initial-backoff=100ms", "reliable-udp.reconnect.max-backoff=500ms",
                            "reliable-udp.peers.server.address=127.0.0.1:" + port,
                            "reliable-udp.metrics.refresh-interval=1h",
                            "management.endpoints.web.exposure.include=reliableudp")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        ReliableUdpNode client = context.getBean(ReliableUdpNode.class);
                        HealthIndicator health = context.getBean("reliableUdpHealthContributor", HealthIndicator.class);
                        ReliableUdpMetrics metrics = context.getBean(ReliableUdpMetrics.class);
                        ReliableUdpEndpoint endpoint = context.getBean(ReliableUdpEndpoint.class);
                        InetSocketAddress serverAddress = new InetSocketAddress("127.0.0.1", port);

                        await().atMost(Duration.ofSeconds(10)).until(() -> health.health().getStatus().equals(Status.UP));

                        Peer peer = client.peer(serverAddress);
                        assertThat(peer).isNotNull();
                        List<CompletableFuture<Delivery>> sends = new ArrayList<>();
                        for (int i = 0; i < 200; i++) {
                            sends.add(peer.send(0, new byte[100 + i]));
                        }
                        peer.flush();
                        for (CompletableFuture<Delivery> f : sends) {
                            f.get(10, TimeUnit.SECONDS);
                        }
                        await().atMost(Duration.ofSeconds(10)).until(() -> received.get() >= 200);
                        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                            metrics.refresh();
                            assertThat(counter(registry, "reliable.udp.messages", "channel", "0", "event", "sent")).isGreaterThanOrEqualTo(200);
                            assertThat(counter(registry, "reliable.udp.messages", "channel", "0", "event", "acked")).isGreaterThanOrEqualTo(200);
                            assertThat(counter(registry, "reliable.udp.packets", "event", "sent")).isPositive();
                            assertThat(counter(registry, "reliable.udp.packets", "event", "acked")).isPositive();
                            assertThat(counter(registry, "reliable.udp.peer.bytes", "direction", "sent")).isGreaterThan(200 * 100);
                            // a loopback round trip can be 0 at the packet layer's time resolution (it failed
                            // about one run in three on a loaded machine with isPositive): a sane value is asserted,
                            // and that samples flow is the timer's count below
                            assertThat(registry.get("reliable.udp.rtt").tag("peer", "server").timeGauge().value(TimeUnit.SECONDS))
                                    .isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
                            assertThat(registry.get("reliable.udp.rtt.samples").tag("peer", "server").timer().count()).isPositive();
                        });
                        assertThat(registry.get("reliable.udp.datagrams").tags("direction", "sent").functionCounter().count())
                                .isPositive();
                        assertThat(registry.get("reliable.udp.connections").gauge().value()).isEqualTo(1);
                        ReliableUdpEndpoint.PeerReport seen = endpoint.nodes().nodes().values().iterator().next().peers().get(0);
                        assertThat(seen.name()).isEqualTo("server");
                        assertThat(seen.state()).isEqualTo(PeerState.CONNECTED);
                        assertThat(seen.channels().get(0).messagesAcked()).isGreaterThanOrEqualTo(200);

                        // kill the server: the link times out
                        server.close();
                        await().atMost(Duration.ofSeconds(15))
                                .until(() -> health.health().getStatus().equals(ReliableUdpHealthIndicator.DEGRADED));
                        metrics.refresh();

                        // it comes back on the same port; the starter reconnects
                        ReliableUdpNode again = ReliableUdpNode.start(serverConfig(port), counting);
                        try {
                            await().atMost(Duration.ofSeconds(20)).until(() -> health.health().getStatus().equals(Status.UP));
                            metrics.refresh();
                            assertThat(registry.get("reliable.udp.peer.connected").tag("peer", "server").gauge().value())
                                    .isEqualTo(1);
                            assertThat(registry.get("reliable.udp.connections").gauge().value()).isEqualTo(1);
                            // the reconnected link's counts continue on top of the first one's
                            assertThat(counter(registry, "reliable.udp.messages", "channel", "0", "event", "acked"))
                                    .isGreaterThanOrEqualTo(200);
                        } finally {
                            again.close();
                        }
                    });
        } finally {
            server.close();
        }
    }

    private static NodeConfig serverConfig(int port) {
        return NodeConfig.builder().bindAddress(new InetSocketAddress("127.0.0.1", port))
                .timeout(Duration.ofSeconds(1)).keepAliveInterval(Duration.ofMillis(100)).build();
    }

    private static double counter(SimpleMeterRegistry registry, String name, String... tags) {
        return registry.get(name).tag("peer", "server").tags(tags).functionCounter().count();
    }
}
