package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.transport.NodeIdentity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.cloud.netflix.eureka.server.EnableEurekaServer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Peers from a real Eureka registry: an embedded Eureka server started by the test, three instances of
 * "orders" registering with the Eureka client (their UDP port in the instance metadata
 * {@code reliable-udp.port}), one leaving (deregistered and stopped) and returning while keyed
 * messages flow from a client that fetches the registry every second. The 30 s defaults of the
 * registry fetch, the lease and the server's response cache are tuned down to about 1 s.
 */
@Timeout(150)
class EurekaDiscoveryTests {

    /** Names of the reliable-udp auto-configurations: the instance applications here only register. */
    private static final String NO_RELIABLE_UDP = "spring.autoconfigure.exclude="
            + "io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration,"
            + "io.reliableudp.spring.cloud.autoconfigure.ReliableUdpDiscoveryAutoConfiguration";

    /**
     * The Eureka client's transport: Spring's RestClient. The server's Jersey 3 on the test class path
     * would otherwise select the Jersey transport, whose factories only the server configures.
     */
    private static final String JERSEY_OFF = "eureka.client.jersey.enabled=false";

    private final UdpServers servers = new UdpServers();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private final Map<String, ConfigurableApplicationContext> registrations = new HashMap<>();

    @AfterEach
    void close() {
        registrations.values().forEach(ConfigurableApplicationContext::close);
        for (int i = contexts.size() - 1; i >= 0; i--) {
            contexts.get(i).close();
        }
        servers.close();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableEurekaServer
    static class EurekaServerApp {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class OrdersInstanceApp {
    }

    private String startEureka() {
        ConfigurableApplicationContext eureka = new SpringApplicationBuilder(EurekaServerApp.class).web(WebApplicationType.SERVLET)
                .properties("spring.main.banner-mode=off", "server.port=0", "server.address=127.0.0.1",
                        "spring.application.name=eureka", NO_RELIABLE_UDP,
                        "eureka.client.register-with-eureka=false", "eureka.client.fetch-registry=false",
                        "eureka.instance.hostname=127.0.0.1",
                        "eureka.server.enable-self-preservation=false",
                        "eureka.server.use-read-only-response-cache=false",
                        "eureka.server.response-cache-update-interval-ms=500",
                        "eureka.server.eviction-interval-timer-in-ms=1000",
                        "eureka.server.wait-time-in-ms-when-sync-empty=0",
                        "eureka.server.registry-sync-retries=0",
                        "spring.cloud.kubernetes.enabled=false")
                .run();
        contexts.add(eureka);
        String port = eureka.getEnvironment().getProperty("local.server.port");
        return "http://127.0.0.1:" + port + "/eureka/";
    }

    private void register(String zone, String id, int udpPort) {
        ConfigurableApplicationContext instance = new SpringApplicationBuilder(OrdersInstanceApp.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "spring.application.name=orders", NO_RELIABLE_UDP,
                        "spring.cloud.kubernetes.enabled=false",
                        "eureka.client.service-url.defaultZone=" + zone,
                        "eureka.client.fetch-registry=false",
                        JERSEY_OFF,
                        "eureka.client.should-enforce-registration-at-init=true",
                        "eureka.client.initial-instance-info-replication-interval-seconds=1",
                        "eureka.client.instance-info-replication-interval-seconds=1",
                        "eureka.instance.instance-id=orders-" + id,
                        "eureka.instance.hostname=127.0.0.1", "eureka.instance.ip-address=127.0.0.1",
                        "eureka.instance.prefer-ip-address=true",
                        "eureka.instance.non-secure-port=8080",
                        "eureka.instance.lease-renewal-interval-in-seconds=1",
                        "eureka.instance.lease-expiration-duration-in-seconds=3",
                        "eureka.instance.metadata-map[reliable-udp.port]=" + udpPort)
                .run();
        registrations.put(id, instance);
    }

    private void deregister(String id) {
        ConfigurableApplicationContext c = registrations.remove(id);
        if (c != null) {
            c.close();   // the Eureka client cancels its lease on shutdown
        }
    }

    @Test
    void threeInstancesRegisterLeaveAndReturnWhileMessagesFlow() {
        String zone = startEureka();
        int a = servers.start("a", 0);
        int b = servers.start("b", 0);
        int c = servers.start("c", 0);
        register(zone, "a", a);
        register(zone, "b", b);

        ConfigurableApplicationContext client = ClientApp.start(
                "eureka.client.service-url.defaultZone=" + zone,
                "eureka.client.register-with-eureka=false",
                "eureka.client.fetch-registry=true",
                JERSEY_OFF,
                "eureka.client.registry-fetch-interval-seconds=1",
                "eureka.client.initial-instance-info-replication-interval-seconds=1",
                "spring.cloud.kubernetes.enabled=false",
                "reliable-udp.discovery.refresh-interval=1s");
        contexts.add(client);
        DiscoveryPeerGroups groups = client.getBean(DiscoveryPeerGroups.class);
        DiscoveryPeerGroup orders = groups.group("orders");
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.instances().size() == 2);

        MessageFlow flow = new MessageFlow(client.getBean(ReliableUdpTemplate.class), "orders", 16, Duration.ofMillis(20)).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > 100);

        // c registers: it joins, and keys move to it
        register(zone, "c", c);
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.instances().size() == 3);
        int mark = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().skip(mark).anyMatch(s -> s.startsWith("c|")));

        // a leaves: deregistered (its lease cancelled), drained, then its process stops
        deregister("a");
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.members().size() == 2);
        servers.stop("a");
        int mark2 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > mark2 + 100);

        // a returns on its port and registers again
        servers.start("a", a);
        register(zone, "a", a);
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.instances().size() == 3);
        int mark3 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().skip(mark3).anyMatch(s -> s.startsWith("a|")));

        MessageFlow.Outcome outcome = flow.settle(servers, Duration.ofSeconds(20));
        assertThat(outcome.failures()).as("a deregistered instance drains: nothing fails").isEmpty();
        assertThat(outcome.delivered()).isEqualTo(flow.sentCount());
        assertThat(groups.refreshCount()).as("heartbeats and the period re-resolved").isGreaterThan(3);
    }

    /**
     * A server application with {@code reliable-udp.port=0} and an identity registers itself: its Eureka
     * registration carries the port its node bound and its public key, with no metadata-map in its
     * configuration; the client reads both and its sends to the service are acknowledged.
     */
    @Test
    void aServerOnPortZeroRegistersItsBoundPortAndPublicKey() throws Exception {
        String zone = startEureka();
        NodeIdentity serverKey = NodeIdentity.generate();
        NodeIdentity clientKey = NodeIdentity.generate();
        ConfigurableApplicationContext server = new SpringApplicationBuilder(OrdersInstanceApp.class).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "spring.application.name=orders",
                        "spring.cloud.kubernetes.enabled=false",
                        "reliable-udp.bind-address=127.0.0.1", "reliable-udp.port=0",
                        "reliable-udp.security.identity.private-key=" + serverKey.privateKeyBase64(),
                        "reliable-udp.security.allowed-peers.orders-client.public-keys[0]=" + clientKey.publicKey().toBase64(),
                        "eureka.client.service-url.defaultZone=" + zone,
                        "eureka.client.fetch-registry=false",
                        JERSEY_OFF,
                        "eureka.client.should-enforce-registration-at-init=true",
                        "eureka.client.initial-instance-info-replication-interval-seconds=1",
                        "eureka.client.instance-info-replication-interval-seconds=1",
                        "eureka.instance.instance-id=orders-self",
                        "eureka.instance.hostname=127.0.0.1", "eureka.instance.ip-address=127.0.0.1",
                        "eureka.instance.prefer-ip-address=true",
                        "eureka.instance.lease-renewal-interval-in-seconds=1")
                .run();
        registrations.put("self", server);
        int boundPort = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        assertThat(boundPort).isPositive();

        ConfigurableApplicationContext client = ClientApp.start(
                "eureka.client.service-url.defaultZone=" + zone,
                "eureka.client.register-with-eureka=false",
                "eureka.client.fetch-registry=true",
                JERSEY_OFF,
                "eureka.client.registry-fetch-interval-seconds=1",
                "spring.cloud.kubernetes.enabled=false",
                "reliable-udp.discovery.refresh-interval=1s",
                "reliable-udp.discovery.register=false",
                "reliable-udp.security.identity.private-key=" + clientKey.privateKeyBase64(),
                "reliable-udp.security.allowed-peers.orders.public-keys[0]=" + serverKey.publicKey().toBase64());
        contexts.add(client);
        DiscoveryPeerGroup orders = client.getBean(DiscoveryPeerGroups.class).group("orders");
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.instances().size() == 1);

        DiscoveryPeerGroup.Instance instance = orders.members().keySet().iterator().next();
        assertThat(instance.address().getPort()).as("the port the server's node bound, from its own registration").isEqualTo(boundPort);
        assertThat(instance.publicKey()).as("the server's public key, from its own registration").isEqualTo(serverKey.publicKey());
        SendResult sent = client.getBean(ReliableUdpTemplate.class).send("orders", "0", "hello").get(10, TimeUnit.SECONDS);
        assertThat(sent.peerAddress().getPort()).isEqualTo(boundPort);
        // the health details show the registered key and that the handshake proved it
        Health health = client.getBean("reliableUdpDiscoveryHealthIndicator", HealthIndicator.class).health();
        assertThat(health.getDetails()).extractingByKey("services").asString()
                .contains("publicKey=" + serverKey.publicKey().toBase64()).contains("provedRegisteredKey=true");
    }
}
