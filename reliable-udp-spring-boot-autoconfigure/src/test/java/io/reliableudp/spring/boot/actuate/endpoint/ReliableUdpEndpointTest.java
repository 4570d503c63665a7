package io.reliableudp.spring.boot.actuate.endpoint;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.boot.autoconfigure.endpoint.ReliableUdpEndpointAutoConfiguration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.spring.boot.metrics.FakeNode;
import io.reliableudp.spring.boot.metrics.FakePeer;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jmx.JmxEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.actuate.endpoint.jmx.ExposableJmxEndpoint;
import org.springframework.boot.actuate.endpoint.jmx.JmxEndpointsSupplier;
import org.springframework.boot.actuate.endpoint.jmx.JmxOperation;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

@Timeout(30)
class ReliableUdpEndpointTest {

    private final FakeNode node = new FakeNode(40001);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpEndpointAutoConfiguration.class,
                    EndpointAutoConfiguration.class, JacksonEndpointAutoConfiguration.class))
            .withBean("udp", ReliableUdpNode.class, () -> node)
            .withBean(UdpPeerDirectory.class, () -> FakeNode.names("server", "127.0.0.1:40000"))
            .withPropertyValues("management.endpoints.web.exposure.include=health,reliableudp");

    @Test
    void theReadJsonHasTheDocumentedShape() throws IOException {
        node.connect(40000).traffic(3).rtt(15).loss(2);
        node.connect(50000).traffic(1);
        runner.run(context -> {
            ReliableUdpEndpoint endpoint = context.getBean(ReliableUdpEndpoint.class);
            endpoint.linkConditioner(null, null, 20.0, 2.0, 0.01, null, null, null, null, null, null, null, null, 42L);
            JsonMapper json = context.getBean(EndpointJsonMapper.class).get();
            JsonNode read = json.readTree(json.writeValueAsString(endpoint.nodes()));
            JsonNode documented = json.readTree(documentedJson("read"));
            assertThat(paths(read)).isEqualTo(paths(documented));
            assertThat(udp(read).get("linkConditioner").get("latencyMillis").asDouble()).isEqualTo(20.0);

            JsonNode udp = udp(read);
            assertThat(udp.get("open").asBoolean()).isTrue();
            assertThat(udp.get("localAddress").asString()).isEqualTo("127.0.0.1:40001");
            assertThat(udp.get("config").get("encrypted").asBoolean()).isFalse();
            assertThat(udp.get("stats").get("datagramsDropped").get("malformed").asLong()).isZero();
            JsonNode server = udp.get("peers").get(1);
            assertThat(server.get("name").asString()).isEqualTo("server");
            assertThat(udp.get("peers").get(0).get("name").asString()).isEqualTo("other");
            assertThat(server.get("rttMillis").asDouble()).isEqualTo(15.0);
            assertThat(server.get("packetLoss").asDouble()).isEqualTo(0.02, org.assertj.core.data.Offset.offset(1e-6));
            assertThat(server.get("queuedMessages").asInt()).isEqualTo(1 + 2); // one traffic call queues 1 on channel 0, 2 on channel 1
            assertThat(server.get("packetCounters").get("num_packets_acked").asLong()).isEqualTo(3);
            assertThat(server.get("channels").get(1).get("mode").asString()).isEqualTo("UNRELIABLE");
            assertThat(server.get("channels").get(1).get("messagesResent").asLong()).isEqualTo(3);

            JsonNode byPeer = json.readTree(json.writeValueAsString(endpoint.peer("server")));
            assertThat(paths(byPeer)).isEqualTo(paths(json.readTree(documentedJson("peer"))));
            assertThat(byPeer.get("nodes").get("udp").get("address").asString()).isEqualTo("127.0.0.1:40000");
            assertThat(endpoint.peer("127.0.0.1:50000")).isNotNull();
            assertThat(endpoint.peer("127.0.0.1:50001")).isNull();
            // an unknown name is a peer no node has: null, which actuator answers with 404 (not found, not a bad request)
            assertThat(endpoint.peer("nobody")).isNull();
            assertThat(endpoint.disconnect("nobody")).isNull();
        });
    }

    @Test
    void deleteDisconnectsThePeer() {
        FakePeer server = node.connect(40000);
        runner.run(context -> {
            ReliableUdpEndpoint endpoint = context.getBean(ReliableUdpEndpoint.class);
            ReliableUdpEndpoint.DisconnectResult result = endpoint.disconnect("server");
            assertThat(result).isNotNull();
            assertThat(result.peer()).isEqualTo("server");
            assertThat(result.address()).isEqualTo("127.0.0.1:40000");
            assertThat(result.nodes()).containsExactly("udp");
            assertThat(server.disconnects()).isEqualTo(1);
            assertThat(node.peers()).isEmpty();
            assertThat(endpoint.disconnect("server")).isNull();
        });
    }

    @Test
    void writeChangesTheLinkConditionerAtRunTime() {
        runner.run(context -> {
            ReliableUdpEndpoint endpoint = context.getBean(ReliableUdpEndpoint.class);
            assertThat(endpoint.nodes().nodes().get("udp").linkConditioner()).isNull();
            ReliableUdpEndpoint.LinkConditionerResult set = endpoint.linkConditioner(null, null, 40.0, 5.0, 0.1,
                    null, null, null, null, null, null, null, null, 7L);
            LinkConditionerConfig expected = new LinkConditionerConfig(40, 5, 0.1, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
            assertThat(set.nodes()).containsEntry("udp", expected);
            assertThat(node.linkConditioner()).isEqualTo(expected);
            assertThat(endpoint.nodes().nodes().get("udp").linkConditioner()).isEqualTo(expected);

            endpoint.linkConditioner("udp", false, null, null, null, null, null, null, null, null, null, null, null, null);
            assertThat(node.linkConditioner()).isNull();
            assertThat(endpoint.nodes().nodes().get("udp").linkConditioner()).isNull();

            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> endpoint.linkConditioner(null, true, null, null, 1.5, null, null, null, null,
                            null, null, null, null, null))
                    .withMessageContaining("lossProbability");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> endpoint.linkConditioner("nope", true, null, null, null, null, null, null, null,
                            null, null, null, null, null));
            assertThat(node.conditionerCalls()).hasSize(2);
            node.close();
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> endpoint.linkConditioner("udp", true, null, null, null, null, null, null, null,
                            null, null, null, null, null))
                    .withMessageContaining("not running");
            assertThat(endpoint.linkConditioner(null, false, null, null, null, null, null, null, null, null, null, null,
                    null, null).nodes()).isEmpty();
        });
    }

    @Test
    void readOnlyByDefaultWriteOperationsOnlyWithUnrestrictedAccess() {
        jmxRunner(node).run(context -> assertThat(operations(context.getBean(JmxEndpointsSupplier.class)).keySet())
                .containsExactlyInAnyOrder(OperationType.READ + ":nodes", OperationType.READ + ":peer"));
        // closing that context closed the node (its destroy method): take a fresh one
        FakeNode fresh = new FakeNode(40001);
        fresh.connect(40000);
        jmxRunner(fresh).withPropertyValues("management.endpoint.reliableudp.access=UNRESTRICTED").run(context -> {
            Map<String, JmxOperation> ops = operations(context.getBean(JmxEndpointsSupplier.class));
            assertThat(ops.keySet()).containsExactlyInAnyOrder(OperationType.READ + ":nodes", OperationType.READ + ":peer",
                    OperationType.WRITE + ":linkConditioner", OperationType.DELETE + ":disconnect");
            // through actuator's own invoker: every parameter but one left out
            Map<String, Object> args = new HashMap<>();
            args.put("lossProbability", 0.25);
            ops.get(OperationType.WRITE + ":linkConditioner").invoke(new InvocationContext(SecurityContext.NONE, args));
            assertThat(fresh.linkConditioner()).isNotNull();
            assertThat(fresh.linkConditioner().lossProbability()).isEqualTo(0.25);
            Object r = ops.get(OperationType.DELETE + ":disconnect")
                    .invoke(new InvocationContext(SecurityContext.NONE, Map.of("peer", "server")));
            assertThat(r).isInstanceOf(ReliableUdpEndpoint.DisconnectResult.class);
            assertThat(fresh.peers()).isEmpty();
        });
    }

    private static ApplicationContextRunner jmxRunner(FakeNode node) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ReliableUdpEndpointAutoConfiguration.class,
                        EndpointAutoConfiguration.class, JacksonEndpointAutoConfiguration.class,
                        JmxAutoConfiguration.class, JmxEndpointAutoConfiguration.class))
                .withBean("udp", ReliableUdpNode.class, () -> node)
                .withBean(UdpPeerDirectory.class, () -> FakeNode.names("server", "127.0.0.1:40000"))
                .withPropertyValues("spring.jmx.enabled=true",
                        "management.endpoints.jmx.exposure.include=reliableudp",
                        "management.endpoints.jmx.unique-names=true");
    }

    @Test
    void absentWhenNotExposedOrWithoutANode() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ReliableUdpEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
                .withBean("udp", ReliableUdpNode.class, () -> node)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReliableUdpEndpoint.class));
        runner.withPropertyValues("management.endpoint.reliableudp.access=NONE")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReliableUdpEndpoint.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ReliableUdpEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=reliableudp")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReliableUdpEndpoint.class));
    }

    @Test
    void aClosedNodeIsReportedNotFailed() {
        node.close();
        runner.run(context -> {
            ReliableUdpEndpoint.NodeReport report = context.getBean(ReliableUdpEndpoint.class).nodes().nodes().get("udp");
            assertThat(report.open()).isFalse();
            assertThat(report.localAddress()).isNull();
            assertThat(report.peers()).isEmpty();
        });
    }

    private static JsonNode udp(JsonNode read) {
        return read.get("nodes").get("udp");
    }

    private static Map<String, JmxOperation> operations(JmxEndpointsSupplier supplier) {
        ExposableJmxEndpoint endpoint = supplier.getEndpoints().stream()
                .filter(e -> e.getEndpointId().toString().equals("reliableudp")).findFirst().orElseThrow();
        return endpoint.getOperations().stream().collect(Collectors.toMap(o -> o.getType() + ":" + o.getName(), o -> o));
    }

    /** The JSON sample in docs/observability.md between {@code <!-- json:NAME -->} and the closing fence. */
    static String documentedJson(String name) throws IOException {
        Path p = Path.of("docs/observability.md");
        if (!Files.exists(p)) {
            p = Path.of("../docs/observability.md");
        }
        String doc = Files.readString(p);
        String marker = "<!-- json:" + name + " -->";
        int start = doc.indexOf(marker);
        assertThat(start).as(marker).isNotNegative();
        int open = doc.indexOf("```json", start) + "```json".length();
        int close = doc.indexOf("```", open);
        return doc.substring(open, close);
    }

    /** Every field path of a JSON tree; arrays by their first element, map keys of known maps generalised. */
    static Set<String> paths(JsonNode node) {
        Set<String> out = new TreeSet<>();
        collect(node, "", out);
        return out;
    }

    private static void collect(JsonNode node, String prefix, Set<String> out) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                String key = e.getKey();
                boolean map = prefix.endsWith("nodes") || prefix.endsWith("packetCounters")
                        || prefix.endsWith("datagramsDropped") || prefix.endsWith("handshakeFailures");
                String path = prefix + "." + (map ? "*" : key);
                if (key.equals("disconnectReason")) {
                    continue; // present only once a peer's connection ended (null fields are left out)
                }
                out.add(path);
                collect(e.getValue(), path, out);
            }
        } else if (node.isArray() && !node.isEmpty()) {
            collect(node.get(0), prefix + "[]", out);
        }
    }
}
