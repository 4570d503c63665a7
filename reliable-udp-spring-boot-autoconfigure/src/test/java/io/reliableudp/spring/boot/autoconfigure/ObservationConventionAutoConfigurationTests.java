package io.reliableudp.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The observation properties: {@code reliable-udp.observation.convention=open-telemetry} puts the keys of
 * OpenTelemetry's messaging semantic conventions on send and process observations (low and high
 * cardinality as the conventions and Micrometer say), and {@code reliable-udp.template.observation-enabled}
 * (off by default, turned on here) / {@code reliable-udp.listener.observation-enabled} switch each side.
 */
@Timeout(60)
class ObservationConventionAutoConfigurationTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();
    private ConfigurableApplicationContext server;
    private ConfigurableApplicationContext client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private ConfigurableApplicationContext start(Class<?> app, String... properties) {
        ReliableUdpNodeFactory factory = network.nodeFactory();
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "reliable-udp.template.observation-enabled=true")
                .properties("spring.autoconfigure.exclude=org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
                .properties(properties)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("reliableUdpNodeFactory", factory))
                .run();
    }

    private void startPair(String serverProperty, String clientProperty) {
        server = start(ServerApp.class, serverProperty);
        int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        client = start(ClientApp.class, "reliable-udp.peers.server.address=127.0.0.1:" + port, clientProperty);
    }

    @Test
    void theOpenTelemetryConventionEmitsTheMessagingKeys() throws Exception {
        startPair("reliable-udp.observation.convention=open-telemetry", "reliable-udp.observation.convention=open-telemetry");
        SendResult result = client.getBean(ReliableUdpTemplate.class).send("server", "reliable-ordered", "hello").get(10, TimeUnit.SECONDS);
        int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();

        TestObservationRegistryAssert.assertThat(client.getBean(TestObservationRegistry.class))
                .hasObservationWithNameEqualTo("reliable.udp.send").that().hasBeenStopped()
                .hasContextualNameEqualTo("send reliable-ordered")
                .hasLowCardinalityKeyValue("messaging.system", "reliable_udp")
                .hasLowCardinalityKeyValue("messaging.operation.type", "send")
                .hasLowCardinalityKeyValue("messaging.operation.name", "send")
                .hasLowCardinalityKeyValue("messaging.destination.name", "reliable-ordered")
                .hasLowCardinalityKeyValue("messaging.reliable_udp.delivery_mode", "RELIABLE_ORDERED")
                .hasLowCardinalityKeyValue("messaging.reliable_udp.peer", "server")
                .hasHighCardinalityKeyValue("messaging.message.id", Integer.toString(result.messageId()))
                .hasHighCardinalityKeyValue("network.peer.address", "127.0.0.1")
                .hasHighCardinalityKeyValue("network.peer.port", Integer.toString(port))
                .hasHighCardinalityKeyValue("messaging.message.body.size", Integer.toString(result.payloadBytes()))
                // the per-message values never become meter tags; reliable-udp's own keys are not doubled
                .doesNotHaveLowCardinalityKeyValueWithKey("messaging.message.id")
                .doesNotHaveLowCardinalityKeyValueWithKey("network.peer.address")
                .doesNotHaveLowCardinalityKeyValueWithKey("reliable.udp.channel");

        TestObservationRegistry serverRegistry = server.getBean(TestObservationRegistry.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> TestObservationRegistryAssert.assertThat(serverRegistry)
                .hasObservationWithNameEqualTo("reliable.udp.process").that().hasBeenStopped()
                .hasContextualNameEqualTo("process reliable-ordered")
                .hasLowCardinalityKeyValue("messaging.system", "reliable_udp")
                .hasLowCardinalityKeyValue("messaging.operation.type", "process")
                .hasLowCardinalityKeyValue("messaging.destination.name", "reliable-ordered")
                .hasLowCardinalityKeyValue("messaging.reliable_udp.listener.id", "observed")
                .hasHighCardinalityKeyValue("messaging.message.id", Integer.toString(result.messageId()))
                .hasHighCardinalityKeyValue("network.peer.address", "127.0.0.1")
                .doesNotHaveLowCardinalityKeyValueWithKey("network.peer.port"));
    }

    @Test
    void theDefaultConventionKeepsReliableUdpKeys() throws Exception {
        startPair("reliable-udp.listener.auto-startup=true", "reliable-udp.template.default-peer=server");
        client.getBean(ReliableUdpTemplate.class).send("server", "reliable-ordered", "hello").get(10, TimeUnit.SECONDS);
        TestObservationRegistryAssert.assertThat(client.getBean(TestObservationRegistry.class))
                .hasObservationWithNameEqualTo("reliable.udp.send").that()
                .hasLowCardinalityKeyValue("reliable.udp.channel", "reliable-ordered")
                .doesNotHaveLowCardinalityKeyValueWithKey("messaging.system");
    }

    @Test
    void eachSideIsSwitchedOffByItsProperty() throws Exception {
        startPair("reliable-udp.listener.observation-enabled=false", "reliable-udp.template.observation-enabled=false");
        client.getBean(ReliableUdpTemplate.class).send("server", "reliable-ordered", "hello").get(10, TimeUnit.SECONDS);
        Handled handled = server.getBean(Handled.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> handled.count.get() == 1);
        TestObservationRegistryAssert.assertThat(client.getBean(TestObservationRegistry.class)).doesNotHaveAnyObservation();
        TestObservationRegistryAssert.assertThat(server.getBean(TestObservationRegistry.class)).doesNotHaveAnyObservation();
    }

    @Test
    void theTemplatesSwitchTurnsSendObservationsOffAndOnAtRunTime() throws Exception {
        startPair("reliable-udp.listener.observation-enabled=false", "reliable-udp.template.default-peer=server");
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        TestObservationRegistry registry = client.getBean(TestObservationRegistry.class);
        template.setObservationEnabled(false);
        template.send("server", "reliable-ordered", "not observed").get(10, TimeUnit.SECONDS);
        TestObservationRegistryAssert.assertThat(registry).doesNotHaveAnyObservation();
        template.setObservationEnabled(true);
        template.send("server", "reliable-ordered", "observed").get(10, TimeUnit.SECONDS);
        TestObservationRegistryAssert.assertThat(registry).hasNumberOfObservationsWithNameEqualTo("reliable.udp.send", 1);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientApp {

        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ServerApp {

        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }

        @Bean
        Handled handled() {
            return new Handled();
        }
    }

    static class Handled {
        final AtomicInteger count = new AtomicInteger();

        @UdpMessageListener(id = "observed", channels = "reliable-ordered")
        void onMessage(String text) {
            count.incrementAndGet();
        }
    }
}
