package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.cloud.client.discovery.simple.InstanceProperties;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.cloud.client.discovery.simple.SimpleDiscoveryProperties;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Peers from the simple discovery client ({@code spring.cloud.discovery.client.simple.instances}):
 * three real instances on loopback join, leave and come back (the instance list changed as a
 * configuration refresh would, followed by a {@link HeartbeatEvent}) while keyed messages flow.
 */
@Timeout(90)
class SimpleDiscoveryTests {

    private final UdpServers servers = new UdpServers();
    private ConfigurableApplicationContext client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        servers.close();
    }

    private ConfigurableApplicationContext startClient(Map<String, Integer> instances, String... extra) {
        List<String> props = new ArrayList<>(List.of("eureka.client.enabled=false", "spring.cloud.kubernetes.enabled=false"));
        int i = 0;
        for (Map.Entry<String, Integer> e : instances.entrySet()) {
            String p = "spring.cloud.discovery.client.simple.instances.orders[" + i + "].";
            props.add(p + "instance-id=" + e.getKey());
            props.add(p + "uri=http://127.0.0.1:8080");
            props.add(p + "metadata[reliable-udp.port]=" + e.getValue());
            i++;
        }
        props.addAll(List.of(extra));
        return ClientApp.start(props.toArray(String[]::new));
    }

    /** Replaces the instance list, as a configuration refresh would, and tells the node as Spring Cloud does. */
    private void setInstances(Map<String, Integer> instances) {
        SimpleDiscoveryProperties simple = client.getBean(SimpleDiscoveryProperties.class);
        List<InstanceProperties> list = new ArrayList<>();
        instances.forEach((id, port) -> list.add(instance(id, Map.of("reliable-udp.port", String.valueOf(port)))));
        Map<String, List<InstanceProperties>> all = new HashMap<>(simple.getInstances());
        all.put("orders", list);
        simple.setInstances(all);
        client.publishEvent(new HeartbeatEvent(this, System.nanoTime()));
    }

    private static InstanceProperties instance(String id, Map<String, String> metadata) {
        InstanceProperties p = new InstanceProperties();
        p.setInstanceId(id);
        p.setServiceId("orders");
        p.setUri(URI.create("http://127.0.0.1:8080"));
        p.setMetadata(new HashMap<>(metadata));
        return p;
    }

    private DiscoveryPeerGroup orders() {
        return client.getBean(DiscoveryPeerGroups.class).group("orders");
    }

    @Test
    void messagesKeepFlowingWhileInstancesJoinLeaveAndReturn() {
        int a = servers.start("a", 0);
        int b = servers.start("b", 0);
        int c = servers.start("c", 0);
        Map<String, Integer> ab = new java.util.LinkedHashMap<>(Map.of("a", a, "b", b));
        client = startClient(ab);
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 2);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        MessageFlow flow = new MessageFlow(template, "orders", 24, Duration.ofMillis(10)).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > 200);

        // c joins
        setInstances(Map.of("a", a, "b", b, "c", c));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 3);
        int mark = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().skip(mark).anyMatch(s -> s.startsWith("c|")));

        // a leaves (deregistered, then stopped): its connection drains and closes
        setInstances(Map.of("b", b, "c", c));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().members().size() == 2);
        servers.stop("a");
        int mark2 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > mark2 + 200);

        // a returns on its port
        servers.start("a", a);
        setInstances(Map.of("a", a, "b", b, "c", c));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 3);
        int mark3 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().skip(mark3).anyMatch(s -> s.startsWith("a|")));

        MessageFlow.Outcome outcome = flow.settle(servers, Duration.ofSeconds(20));
        // a graceful departure (deregistered first) loses nothing: every message was delivered
        assertThat(outcome.failures()).isEmpty();
        assertThat(outcome.delivered()).isEqualTo(flow.sentCount());

        // while the instances stay the same, one key's messages go to one instance
        Map<String, Set<String>> lastRoundOwners = new HashMap<>();
        List<MessageFlow.Sent> tail = flow.sent.subList(flow.sent.size() - 24 * 5, flow.sent.size());
        tail.forEach(s -> lastRoundOwners.computeIfAbsent(s.key(), k -> new HashSet<>()).add(servers.where(s.text())));
        assertThat(lastRoundOwners.values()).allSatisfy(owners -> assertThat(owners).hasSize(1));
    }

    @Test
    void aKilledInstanceFailsItsInFlightMessagesWithAReasonAndTheRestIsReRouted() {
        int a = servers.start("a", 0);
        int b = servers.start("b", 0);
        client = startClient(new java.util.LinkedHashMap<>(Map.of("a", a, "b", b)), "reliable-udp.timeout=1s", "reliable-udp.keep-alive-interval=250ms");
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 2);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        MessageFlow flow = new MessageFlow(template, "orders", 16, Duration.ofMillis(5)).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().anyMatch(s -> s.startsWith("a|")));

        servers.kill("a");                       // gone while messages are in flight, still registered
        int mark = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > mark + 100);
        setInstances(Map.of("b", b));            // and now deregistered
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().members().size() == 1);
        int mark2 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > mark2 + 100);

        MessageFlow.Outcome outcome = flow.settle(servers, Duration.ofSeconds(20));
        // each message was delivered (acknowledged and received) or failed with a reason; no future was left pending
        assertThat(outcome.delivered() + outcome.failed()).isEqualTo(flow.sentCount());
        // after the deregistration every key is served by b
        List<MessageFlow.Sent> tail = flow.sent.subList(flow.sent.size() - 16 * 3, flow.sent.size());
        assertThat(tail).allSatisfy(s -> assertThat(servers.where(s.text())).isEqualTo("b"));
    }

    @Test
    void anInstanceThatDoesNotAnswerIsSkippedAndItsKeysAreReRouted() throws Exception {
        int a = servers.start("a", 0);
        int ghost;
        try (java.net.DatagramSocket s = new java.net.DatagramSocket(0, java.net.InetAddress.getLoopbackAddress())) {
            ghost = s.getLocalPort();   // a port nobody listens on once the socket is closed
        }
        client = startClient(new java.util.LinkedHashMap<>(Map.of("a", a, "ghost", ghost)));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 2);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        DiscoveryPeerGroup group = orders();
        List<String> ghostKeys = new ArrayList<>();
        for (int k = 0; ghostKeys.size() < 5; k++) {
            if (group.choose("key-" + k, List.of()).getPort() == ghost) {
                ghostKeys.add("key-" + k);
            }
        }
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (String key : ghostKeys) {
            futures.add(template.sendWithKey("orders", key, "0", "to-ghost-" + key));
        }
        // the connect to the ghost fails (not yet handed to a connection): re-routed to a, delivered
        for (CompletableFuture<SendResult> f : futures) {
            assertThat(f.get(10, TimeUnit.SECONDS).peerAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", a));
        }
        ghostKeys.forEach(k -> assertThat(servers.where("to-ghost-" + k)).isEqualTo("a"));
    }

    @Test
    void sendToAllSendsToEveryInstanceAndSendAndRequestsUseTheGroup() {
        int a = servers.start("a", 0);
        int b = servers.start("b", 0);
        int c = servers.start("c", 0);
        client = startClient(new java.util.LinkedHashMap<>(Map.of("a", a, "b", b, "c", c)));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 3);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        Map<InetSocketAddress, CompletableFuture<SendResult>> all = template.sendToAll("orders", "0", "hello-all");
        assertThat(all).hasSize(3);
        all.values().forEach(f -> assertThat(f.join().peerName()).isEqualTo("orders"));
        await().atMost(Duration.ofSeconds(5)).until(() -> servers.where("hello-all") != null
                && servers.where("hello-all").split(",").length == 3);

        // without a key: round robin over the instances
        List<CompletableFuture<SendResult>> rr = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            rr.add(template.send("orders", "0", "rr-" + i));
        }
        rr.forEach(CompletableFuture::join);
        Map<String, Integer> per = new HashMap<>();
        for (int i = 0; i < 30; i++) {
            int n = i;
            await().atMost(Duration.ofSeconds(5)).until(() -> servers.where("rr-" + n) != null);
            per.merge(servers.where("rr-" + i), 1, Integer::sum);
        }
        assertThat(per).containsOnlyKeys("a", "b", "c").allSatisfy((k, v) -> assertThat(v).isEqualTo(10));

        // the key as a header (what the Integration outbound adapter sends with)
        CompletableFuture<SendResult> h1 = template.send(org.springframework.messaging.support.MessageBuilder.withPayload("hdr-1")
                .setHeader(io.reliableudp.spring.support.ReliableUdpHeaders.PEER, "orders")
                .setHeader(io.reliableudp.spring.support.ReliableUdpHeaders.ROUTING_KEY, "entity-7").build());
        assertThat(h1.join().peerAddress()).isEqualTo(orders().choose("entity-7", List.of()));

        // names, meters, health
        UdpPeerDirectory directory = client.getBean(ManagedReliableUdpNode.class).peerDirectory();
        assertThat(directory.nameOf(new InetSocketAddress("127.0.0.1", b))).isEqualTo("orders");
        assertThat(directory.label(new InetSocketAddress("127.0.0.1", b))).isEqualTo("127.0.0.1:" + b);
        MeterRegistry registry = client.getBean(MeterRegistry.class);
        assertThat(registry.get("reliable.udp.discovery.instances").tag("service", "orders").tag("state", "routable").gauge().value())
                .isEqualTo(3.0);
        assertThat(registry.get("reliable.udp.discovery.instance.changes").tag("change", "joined").counters()).hasSize(3);
        Health health = client.getBean("reliableUdpDiscoveryHealthIndicator", HealthIndicator.class).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails().toString()).contains("a=", "b=", "c=", "routable");
    }

    @Test
    void anInstanceWithoutAUdpPortIsRejectedCountedAndLogged() {
        int a = servers.start("a", 0);
        client = startClient(new java.util.LinkedHashMap<>(Map.of("a", a)));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 1);
        SimpleDiscoveryProperties simple = client.getBean(SimpleDiscoveryProperties.class);
        InstanceProperties noPort = instance("noport", Map.of());
        InstanceProperties badPort = instance("badport", Map.of("reliable-udp.port", "udp"));
        InstanceProperties ok = instance("a", Map.of("reliable-udp.port", String.valueOf(a)));
        Map<String, List<InstanceProperties>> all = new HashMap<>(simple.getInstances());
        all.put("orders", List.of(ok, noPort, badPort));
        simple.setInstances(all);
        client.publishEvent(new HeartbeatEvent(this, 1L));
        await().atMost(Duration.ofSeconds(5)).until(() -> orders().rejected().size() == 2);
        assertThat(orders().rejected().get("noport")).contains("no UDP port", "reliable-udp.port");
        assertThat(orders().rejected().get("badport")).contains("'udp' is not a port");
        assertThat(orders().instances()).hasSize(1);
        MeterRegistry registry = client.getBean(MeterRegistry.class);
        assertThat(registry.get("reliable.udp.discovery.instance.rejected").tag("instance", "noport").counter().count()).isEqualTo(1.0);
        // counted once per instance, not once per refresh
        int refreshes = (int) client.getBean(DiscoveryPeerGroups.class).refreshCount();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.getBean(DiscoveryPeerGroups.class).refreshCount() > refreshes + 2);
        assertThat(registry.get("reliable.udp.discovery.instance.rejected").tag("instance", "noport").counter().count()).isEqualTo(1.0);
    }

    @Test
    void sendsWithoutAKeyFollowTheApplicationsReactorLoadBalancer() {
        int a = servers.start("a", 0);
        int b = servers.start("b", 0);
        int c = servers.start("c", 0);
        List<String> props = new ArrayList<>(List.of("eureka.client.enabled=false", "spring.cloud.kubernetes.enabled=false"));
        int i = 0;
        for (Map.Entry<String, Integer> e : new java.util.LinkedHashMap<>(Map.of("a", a, "b", b, "c", c)).entrySet()) {
            String p = "spring.cloud.discovery.client.simple.instances.orders[" + i++ + "].";
            props.add(p + "instance-id=" + e.getKey());
            props.add(p + "uri=http://127.0.0.1:8080");
            props.add(p + "metadata[reliable-udp.port]=" + e.getValue());
        }
        client = ClientApp.start(PreferringClientApp.class, props.toArray(String[]::new));
        await().atMost(Duration.ofSeconds(10)).until(() -> orders().instances().size() == 3);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        List<CompletableFuture<SendResult>> sent = new ArrayList<>();
        for (int n = 0; n < 20; n++) {
            sent.add(template.send("orders", "0", "lb-" + n));
        }
        // the application's policy (prefer the instance "b") decides, not round robin
        sent.forEach(f -> assertThat(f.join().peerAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", b)));
        // keyed sends are not the load balancer's business: they stay on the ring
        Set<InetSocketAddress> owners = new HashSet<>();
        for (int n = 0; n < 40; n++) {
            owners.add(template.sendWithKey("orders", "k" + n, "0", "keyed-" + n).join().peerAddress());
        }
        assertThat(owners).hasSizeGreaterThan(1);
    }

    /** The client with a load-balancer policy of its own for every service. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.context.annotation.Import(ClientApp.class)
    @org.springframework.cloud.loadbalancer.annotation.LoadBalancerClients(defaultConfiguration = PreferB.class)
    static class PreferringClientApp {
    }

    /** A policy as an application writes one (here: prefer the instance with id "b", as a zone preference would). */
    static class PreferB {
        @org.springframework.context.annotation.Bean
        org.springframework.cloud.loadbalancer.core.ReactorLoadBalancer<org.springframework.cloud.client.ServiceInstance> preferB(
                org.springframework.beans.factory.ObjectProvider<org.springframework.cloud.loadbalancer.core.ServiceInstanceListSupplier> suppliers) {
            return new org.springframework.cloud.loadbalancer.core.ReactorServiceInstanceLoadBalancer() {
                @Override
                public reactor.core.publisher.Mono<org.springframework.cloud.client.loadbalancer.Response<org.springframework.cloud.client.ServiceInstance>> choose(
                        org.springframework.cloud.client.loadbalancer.Request request) {
                    return suppliers.getObject().get(request).next().map(list -> list.stream()
                            .filter(si -> "b".equals(si.getInstanceId()))
                            .findFirst()
                            .<org.springframework.cloud.client.loadbalancer.Response<org.springframework.cloud.client.ServiceInstance>>map(
                                    org.springframework.cloud.client.loadbalancer.DefaultResponse::new)
                            .orElseGet(org.springframework.cloud.client.loadbalancer.EmptyResponse::new));
                }
            };
        }
    }
}
