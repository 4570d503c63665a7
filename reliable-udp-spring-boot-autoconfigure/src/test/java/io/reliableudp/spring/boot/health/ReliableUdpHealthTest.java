package io.reliableudp.spring.boot.health;

import io.reliableudp.DisconnectReason;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.boot.autoconfigure.health.ReliableUdpHealthContributorAutoConfiguration;
import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.spring.boot.metrics.FakeNode;
import io.reliableudp.spring.boot.metrics.FakePeer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@Timeout(30)
class ReliableUdpHealthTest {

    private final FakeNode node = new FakeNode(40001);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpHealthContributorAutoConfiguration.class))
            .withBean("udp", ReliableUdpNode.class, () -> node)
            .withBean(UdpPeerDirectory.class, () -> FakeNode.names("server", "127.0.0.1:40000"))
            .withPropertyValues("reliable-udp.health.max-rtt=200ms", "reliable-udp.health.max-loss=0.05");

    @Test
    void upThenDegradedWhenThePeerIsKilledThenUpWhenItReturns() {
        FakePeer server = node.connect(40000).rtt(12.345f);
        node.connect(50000); // an unnamed client never changes the status
        runner.run(context -> {
            HealthIndicator indicator = context.getBean("reliableUdpHealthContributor", HealthIndicator.class);
            Health up = indicator.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("open", true).containsEntry("localAddress", "127.0.0.1:40001")
                    .containsEntry("otherPeers", 1).containsEntry("maxRttMillis", 200.0).containsEntry("maxLoss", 0.05);
            assertThat(peerDetails(up, "server")).containsEntry("address", "127.0.0.1:40000")
                    .containsEntry("state", "CONNECTED").containsEntry("rttMillis", 12.35).containsEntry("loss", 0.0)
                    .containsEntry("problems", List.of());

            // killed: it times out and the node forgets it
            server.state(PeerState.DISCONNECTED, DisconnectReason.TIMEOUT);
            node.remove(server);
            Health degraded = indicator.health();
            assertThat(degraded.getStatus()).isEqualTo(ReliableUdpHealthIndicator.DEGRADED);
            assertThat(degraded.getStatus().getCode()).isEqualTo("DEGRADED");
            assertThat(peerDetails(degraded, "server")).containsEntry("state", "DISCONNECTED")
                    .containsEntry("disconnectReason", "TIMEOUT")
                    .containsEntry("problems", List.of("disconnected (TIMEOUT)"));

            // reconnecting
            FakePeer again = node.connect(40000).state(PeerState.CONNECTING, null);
            assertThat(indicator.health().getStatus()).isEqualTo(ReliableUdpHealthIndicator.DEGRADED);
            assertThat(peerDetails(indicator.health(), "server")).containsEntry("state", "CONNECTING");
            again.state(PeerState.CONNECTED, null);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void degradedWhenRttOrLossExceedTheThresholds() {
        FakePeer server = node.connect(40000);
        runner.run(context -> {
            HealthIndicator indicator = context.getBean(HealthIndicator.class);
            server.rtt(250);
            Health slow = indicator.health();
            assertThat(slow.getStatus()).isEqualTo(ReliableUdpHealthIndicator.DEGRADED);
            assertThat(peerDetails(slow, "server")).containsEntry("problems", List.of("rtt 250.0 ms > max-rtt 200.0 ms"));
            server.rtt(20).loss(7.5f);
            Health lossy = indicator.health();
            assertThat(lossy.getStatus()).isEqualTo(ReliableUdpHealthIndicator.DEGRADED);
            assertThat(peerDetails(lossy, "server")).containsEntry("loss", 0.075)
                    .containsEntry("problems", List.of("loss 0.075 > max-loss 0.05"));
            server.loss(1);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void degradedWhileAConfiguredPeerHasNeverConnectedAndDownWhenTheSocketIsClosed() {
        runner.run(context -> {
            HealthIndicator indicator = context.getBean(HealthIndicator.class);
            Health never = indicator.health();
            assertThat(never.getStatus()).isEqualTo(ReliableUdpHealthIndicator.DEGRADED);
            assertThat(peerDetails(never, "server")).containsEntry("state", "ABSENT")
                    .containsEntry("problems", List.of("never connected"));
            node.close();
            Health down = indicator.health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails()).containsEntry("open", false);
        });
    }

    @Test
    void aCompositeByBeanNameWhenThereAreSeveralNodes() {
        FakeNode server = new FakeNode(40000);
        node.connect(40000);
        runner.withBean("udpServer", ReliableUdpNode.class, () -> server).run(context -> {
            HealthContributor contributor = context.getBean("reliableUdpHealthContributor", HealthContributor.class);
            assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
            CompositeHealthContributor composite = (CompositeHealthContributor) contributor;
            HealthIndicator client = (HealthIndicator) composite.getContributor("udp");
            HealthIndicator serverSide = (HealthIndicator) composite.getContributor("udpServer");
            // the server node never had the named peer: it is not expected there
            assertThat(serverSide.health().getStatus()).isEqualTo(Status.UP);
            assertThat(client.health().getStatus()).isEqualTo(Status.UP);
            node.remove((FakePeer) node.peer(new java.net.InetSocketAddress("127.0.0.1", 40000)));
            assertThat(client.health().getStatus()).isEqualTo(ReliableUdpHealthIndicator.DEGRADED);
            assertThat(serverSide.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void theHealthEndpointShowsTheComponentAndDegradedRanksAsDocumented() {
        node.connect(40000);
        runner.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
                        HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoint.health.show-details=always",
                        "management.endpoint.health.status.order=down,out-of-service,degraded,up,unknown")
                .run(context -> {
                    HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
                    HealthDescriptor whole = endpoint.health();
                    assertThat(whole.getStatus()).isEqualTo(Status.UP);
                    assertThat(((CompositeHealthDescriptor) whole).getComponents()).containsKey("reliableUdp");
                    node.remove((FakePeer) node.peer(new java.net.InetSocketAddress("127.0.0.1", 40000)));
                    HealthDescriptor degraded = endpoint.health();
                    assertThat(degraded.getStatus().getCode()).isEqualTo("DEGRADED");
                    IndicatedHealthDescriptor component = (IndicatedHealthDescriptor) endpoint.healthForPath("reliableUdp");
                    assertThat(component.getDetails()).containsKey("peers");
                });
    }

    @Test
    void withoutTheDocumentedStatusOrderBootLeavesDegradedOutOfTheAggregate() {
        runner.withConfiguration(AutoConfigurations.of(HealthContributorAutoConfiguration.class,
                        HealthContributorRegistryAutoConfiguration.class, HealthEndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoint.health.show-details=always")
                .run(context -> {
                    HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
                    // the configured peer never connected: the component is DEGRADED...
                    assertThat(endpoint.healthForPath("reliableUdp").getStatus().getCode()).isEqualTo("DEGRADED");
                    // ...but Boot's default order (down, out-of-service, up, unknown) ignores unknown codes,
                    // so the other contributors (here: ping) decide
                    assertThat(endpoint.health().getStatus()).isEqualTo(Status.UP);
                });
    }

    @Test
    void offWhenDisabledWithoutANodeOrWithoutBootHealth() {
        runner.withPropertyValues("management.health.reliable-udp.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("reliableUdpHealthContributor"));
        runner.withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("reliableUdpHealthContributor"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ReliableUdpHealthContributorAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("reliableUdpHealthContributor"));
        runner.withClassLoader(new FilteredClassLoader(HealthContributor.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("reliableUdpHealthContributor"));
    }

    @Test
    void rejectsWrongThresholdsNamingTheProperty() {
        runner.withPropertyValues("reliable-udp.health.max-loss=5")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("reliable-udp.health.max-loss"));
        runner.withPropertyValues("reliable-udp.health.max-rtt=0s")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("reliable-udp.health.max-rtt"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> peerDetails(Health health, String name) {
        Map<String, Object> peers = (Map<String, Object>) health.getDetails().get("peers");
        assertThat(peers).containsKey(name);
        return (Map<String, Object>) peers.get(name);
    }
}
