package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.EndpointAddress;
import io.fabric8.kubernetes.api.model.EndpointAddressBuilder;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Peers from Kubernetes discovery ({@code spring-cloud-kubernetes-fabric8-discovery}) against fabric8's
 * mock API server in CRUD mode: a headless Service "orders" with a UDP port named {@code reliable-udp}
 * (published by the discovery client as the instance metadata {@code port.reliable-udp}), and its
 * Endpoints (and EndpointSlices) changing as pods come and go while keyed messages flow; the
 * instances are re-resolved on the heartbeats of the catalog watch alone. Each "pod" is a
 * real node on an address of its own in 127.0.0.0/8, all on one port, as pods of a service are.
 *
 * <p>The fabric8 client is 8.0.0 with the JDK HTTP client (the mock server of the 7.4 line Spring Cloud
 * Kubernetes manages is not on Maven Central), the mock server runs on Vert.x 5 with Netty aligned to
 * it; see the module's pom.
 */
@EnableKubernetesMockClient(crud = true)
@Timeout(120)
class KubernetesDiscoveryTests {

    static KubernetesMockServer server;
    static KubernetesClient client;

    private static final String NS = "test";

    private final UdpServers servers = new UdpServers();
    private ConfigurableApplicationContext app;

    @AfterEach
    void close() {
        if (app != null) {
            app.close();
        }
        servers.close();
        client.endpoints().inNamespace(NS).delete();
        client.discovery().v1().endpointSlices().inNamespace(NS).delete();
        client.services().inNamespace(NS).delete();
    }

    private static int freePortOnAll(String... hosts) throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            int port;
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(hosts[0], 0))) {
                port = s.getLocalPort();
            }
            boolean free = true;
            for (String h : hosts) {
                try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(h), port))) {
                    // free
                } catch (java.net.SocketException e) {
                    free = false;
                }
            }
            if (free) {
                return port;
            }
        }
        throw new IllegalStateException("no UDP port free on all of " + List.of(hosts));
    }

    private void createService(int port) {
        client.services().inNamespace(NS).resource(new ServiceBuilder().withNewMetadata().withName("orders").withNamespace(NS).endMetadata()
                .withNewSpec().withClusterIP("None").withType("ClusterIP")
                .addNewPort().withName("reliable-udp").withProtocol("UDP").withPort(port).endPort().endSpec().build()).create();
    }

    /** The Endpoints of the service: one ready address per pod (pod name to IP). */
    private void setEndpoints(Map<String, String> pods, int port) {
        List<EndpointAddress> addresses = pods.entrySet().stream().map(e -> new EndpointAddressBuilder().withIp(e.getValue())
                .withNewTargetRef().withKind("Pod").withName(e.getKey()).withNamespace(NS).withUid("uid-" + e.getKey()).endTargetRef()
                .build()).toList();
        client.endpoints().inNamespace(NS).resource(new EndpointsBuilder().withNewMetadata().withName("orders").withNamespace(NS).endMetadata()
                .addNewSubset().withAddresses(addresses)
                .addNewPort().withName("reliable-udp").withProtocol("UDP").withPort(port).endPort().endSubset().build())
                .createOr(existing -> existing.update());
    }

    /** The EndpointSlice of the service: one ready endpoint per pod. */
    private void setEndpointSlice(Map<String, String> pods, int port) {
        List<io.fabric8.kubernetes.api.model.discovery.v1.Endpoint> endpoints = pods.entrySet().stream().map(e -> new EndpointBuilder()
                .withAddresses(e.getValue()).withNewConditions().withReady(true).endConditions()
                .withNewTargetRef().withKind("Pod").withName(e.getKey()).withNamespace(NS).withUid("uid-" + e.getKey()).endTargetRef()
                .build()).toList();
        client.discovery().v1().endpointSlices().inNamespace(NS).resource(new EndpointSliceBuilder().withNewMetadata()
                .withName("orders-slice").withNamespace(NS).addToLabels("kubernetes.io/service-name", "orders").endMetadata()
                .withAddressType("IPv4").withEndpoints(endpoints)
                .addNewPort().withName("reliable-udp").withProtocol("UDP").withPort(port).endPort().build())
                .createOr(existing -> existing.update());
    }

    /** The client with scheduling on: Spring Cloud Kubernetes' catalog watch is a {@code @Scheduled} method. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    @org.springframework.scheduling.annotation.EnableScheduling
    @org.springframework.context.annotation.Import(ClientApp.class)
    static class KubernetesClientApp {
    }

    private ConfigurableApplicationContext startClient(boolean slices) {
        return ClientApp.start(KubernetesClientApp.class,
                "spring.main.cloud-platform=kubernetes",
                "spring.cloud.kubernetes.client.master-url=" + server.url("/"),
                "spring.cloud.kubernetes.client.namespace=" + NS,
                "spring.cloud.kubernetes.client.trust-certs=true",
                "spring.cloud.kubernetes.discovery.namespaces=" + NS,
                "spring.cloud.kubernetes.discovery.use-endpoint-slices=" + slices,
                // read as a placeholder by @Scheduled, so in its exact (camel case) spelling
                "spring.cloud.kubernetes.discovery.catalogServicesWatchDelay=500",
                "spring.cloud.kubernetes.config.enabled=false",
                "spring.cloud.kubernetes.secrets.enabled=false",
                "eureka.client.enabled=false",
                "reliable-udp.discovery.refresh-interval=1h");
    }

    @Test
    void podsComeAndGoInTheEndpointsWhileMessagesFlow() throws Exception {
        podsComeAndGo(false);
    }

    @Test
    void podsComeAndGoInTheEndpointSlicesWhileMessagesFlow() throws Exception {
        podsComeAndGo(true);
    }

    private void podsComeAndGo(boolean slices) throws Exception {
        if (slices) {
            announceEndpointSlices();
        }
        int port = freePortOnAll("127.0.0.2", "127.0.0.3", "127.0.0.4");
        servers.start("a", "127.0.0.2", port);
        servers.start("b", "127.0.0.3", port);
        servers.start("c", "127.0.0.4", port);
        createService(port);
        Map<String, String> pods = new LinkedHashMap<>(Map.of("orders-a", "127.0.0.2", "orders-b", "127.0.0.3"));
        update(slices, pods, port);

        app = startClient(slices);
        DiscoveryPeerGroup orders = app.getBean(DiscoveryPeerGroups.class).group("orders");
        await().atMost(Duration.ofSeconds(30)).until(() -> orders.instances().size() == 2);
        assertThat(orders.instances()).contains(new InetSocketAddress("127.0.0.2", port), new InetSocketAddress("127.0.0.3", port));
        assertThat(orders.members().keySet()).extracting(DiscoveryPeerGroup.Instance::id).containsExactlyInAnyOrder("uid-orders-a", "uid-orders-b");

        MessageFlow flow = new MessageFlow(app.getBean(ReliableUdpTemplate.class), "orders", 16, Duration.ofMillis(20)).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > 100);

        // a pod is added (scale up)
        pods.put("orders-c", "127.0.0.4");
        update(slices, pods, port);
        await().atMost(Duration.ofSeconds(20)).until(() -> orders.instances().size() == 3);
        int mark = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().skip(mark).anyMatch(s -> s.startsWith("c|")));

        // a pod is removed from the endpoints (terminating: not ready), drained, then stopped
        pods.remove("orders-a");
        update(slices, pods, port);
        await().atMost(Duration.ofSeconds(20)).until(() -> orders.members().size() == 2);
        servers.stop("a");
        int mark2 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.size() > mark2 + 100);

        // the pod comes back (a new pod with the same IP would have a new uid: a new instance)
        servers.start("a", "127.0.0.2", port);
        pods.put("orders-a", "127.0.0.2");
        update(slices, pods, port);
        await().atMost(Duration.ofSeconds(20)).until(() -> orders.instances().size() == 3);
        int mark3 = servers.arrivals.size();
        await().atMost(Duration.ofSeconds(10)).until(() -> servers.arrivals.stream().skip(mark3).anyMatch(s -> s.startsWith("a|")));

        MessageFlow.Outcome outcome = flow.settle(servers, Duration.ofSeconds(20));
        assertThat(outcome.failures()).as("a pod removed from the endpoints first drains: nothing fails").isEmpty();
        assertThat(outcome.delivered()).isEqualTo(flow.sentCount());
    }

    /**
     * The API discovery answers a cluster gives (the CRUD mock has none): Spring Cloud Kubernetes checks that
     * {@code discovery.k8s.io/v1} serves EndpointSlice before it watches slices.
     */
    private static void announceEndpointSlices() {
        server.expect().get().withPath("/apis").andReturn(200, new io.fabric8.kubernetes.api.model.APIGroupListBuilder()
                .addNewGroup().withName("discovery.k8s.io").addNewVersion().withGroupVersion("discovery.k8s.io/v1").withVersion("v1")
                .endVersion().endGroup().build()).always();
        server.expect().get().withPath("/apis/discovery.k8s.io/v1").andReturn(200, new io.fabric8.kubernetes.api.model.APIResourceListBuilder()
                .withGroupVersion("discovery.k8s.io/v1").addNewResource().withName("endpointslices").withKind("EndpointSlice")
                .withNamespaced(true).endResource().build()).always();
    }

    /**
     * The pods change as the control plane shows it: the Endpoints (what the discovery client lists) and,
     * on a cluster with slices, the EndpointSlice (what the catalog watch compares when
     * {@code use-endpoint-slices} is on). The node's own period is an hour here: the catalog watch's
     * {@code HeartbeatEvent} is what re-resolves the instances.
     */
    private void update(boolean slices, Map<String, String> pods, int port) {
        setEndpoints(pods, port);
        if (slices) {
            setEndpointSlice(pods, port);
        }
    }
}
