package io.reliableudp.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Send and process observations, and one trace across the UDP hop: a propagating handler (standing in
 * for Micrometer Tracing's) writes a trace id into the sender's carrier, the envelope carries it, and the
 * receiver's handler reads it back from the process observation's carrier.
 */
@Timeout(60)
class ObservationTests {

    static final String TRACE_HEADER = "traceparent";

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
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE).properties("spring.main.banner-mode=off", "reliable-udp.headers.inbound=" + TRACE_HEADER,
                        "reliable-udp.template.observation-enabled=true")
                // the apps register their handler by hand; Boot's observation auto-configuration (on the test
                // classpath through the observability module) would register the handler bean a second time
                .properties("spring.autoconfigure.exclude=org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
                .properties(properties)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("reliableUdpNodeFactory", factory))
                .run();
    }

    @Test
    void sendIsObservedUntilTheAckAndTheTraceContinuesInTheListener() throws Exception {
        server = start(ServerApp.class);
        int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        client = start(ClientApp.class, "reliable-udp.peers.server.address=127.0.0.1:" + port);

        SendResult result = client.getBean(ReliableUdpTemplate.class).send("server", "reliable-ordered", "hello").get(10, TimeUnit.SECONDS);
        String sentTrace = client.getBean(Propagating.class).injected.get(0);

        TestObservationRegistry clientRegistry = client.getBean(TestObservationRegistry.class);
        TestObservationRegistryAssert.assertThat(clientRegistry).hasObservationWithNameEqualTo("reliable.udp.send").that()
                .hasBeenStarted().hasBeenStopped()
                .hasLowCardinalityKeyValue("reliable.udp.channel", "reliable-ordered")
                .hasLowCardinalityKeyValue("reliable.udp.delivery.mode", "RELIABLE_ORDERED")
                .hasLowCardinalityKeyValue("reliable.udp.peer", "server")
                .hasHighCardinalityKeyValue("reliable.udp.message.id", Integer.toString(result.messageId()))
                .hasContextualNameEqualTo("reliable-ordered send");

        Listener listener = server.getBean(Listener.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> listener.traces.size() == 1);
        // the listener saw the carried trace header, and the process observation extracted the same value
        assertThat(listener.traces).containsExactly(sentTrace);
        Propagating serverHandler = server.getBean(Propagating.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> serverHandler.extracted.size() == 1);
        assertThat(serverHandler.extracted).containsExactly(sentTrace);
        TestObservationRegistryAssert.assertThat(server.getBean(TestObservationRegistry.class))
                .hasObservationWithNameEqualTo("reliable.udp.process").that().hasBeenStopped()
                .hasLowCardinalityKeyValue("reliable.udp.listener.id", "traced")
                .hasLowCardinalityKeyValue("reliable.udp.channel", "reliable-ordered");
    }

    @Test
    void aFailedSendStopsItsObservationWithTheError() {
        server = start(ServerApp.class);
        client = start(ClientApp.class, "reliable-udp.peers.server.address=127.0.0.1:1");
        var future = client.getBean(ReliableUdpTemplate.class).send("server", "reliable-ordered", "lost");
        assertThat(future).failsWithin(Duration.ofSeconds(10));
        TestObservationRegistryAssert.assertThat(client.getBean(TestObservationRegistry.class))
                .hasObservationWithNameEqualTo("reliable.udp.send").that().hasBeenStopped().assertThatError().isNotNull();
    }

    @Test
    void aFailingListenerIsRecordedAsAnErrorOnItsObservation() {
        server = start(ServerApp.class);
        int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        client = start(ClientApp.class, "reliable-udp.peers.server.address=127.0.0.1:" + port);
        client.getBean(ReliableUdpTemplate.class).send("server", "reliable-unordered", "boom");
        TestObservationRegistry registry = server.getBean(TestObservationRegistry.class);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                .hasObservationWithNameEqualToIgnoringCase("reliable.udp.process").that()
                .hasLowCardinalityKeyValue("reliable.udp.listener.id", "failing").hasBeenStopped().assertThatError()
                .hasMessageContaining("boom"));
    }

    /** Writes a fresh trace id on send, reads it on receive: what a tracing propagator does. */
    static class Propagating implements ObservationHandler<Observation.Context> {
        final List<String> injected = new CopyOnWriteArrayList<>();
        final List<String> extracted = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            if (context instanceof ReliableUdpSenderContext send) {
                String trace = UUID.randomUUID().toString();
                send.getSetter().set(send.getCarrier(), TRACE_HEADER, trace);
                injected.add(trace);
            } else if (context instanceof ReliableUdpReceiverContext receive) {
                String trace = receive.getGetter().get(receive.getCarrier(), TRACE_HEADER);
                if (trace != null) {
                    extracted.add(trace);
                }
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientApp {

        @Bean
        Propagating propagating() {
            return new Propagating();
        }

        @Bean
        TestObservationRegistry observationRegistry(Propagating propagating) {
            TestObservationRegistry registry = TestObservationRegistry.create();
            registry.observationConfig().observationHandler(propagating);
            return registry;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ServerApp {

        @Bean
        Propagating propagating() {
            return new Propagating();
        }

        @Bean
        TestObservationRegistry observationRegistry(Propagating propagating) {
            TestObservationRegistry registry = TestObservationRegistry.create();
            registry.observationConfig().observationHandler(propagating);
            return registry;
        }

        @Bean
        Listener listener() {
            return new Listener();
        }
    }

    static class Listener {
        final List<String> traces = new CopyOnWriteArrayList<>();

        @UdpMessageListener(id = "traced", channels = "reliable-ordered")
        void onMessage(String text, @Header(name = TRACE_HEADER, required = false) @Nullable String trace, @org.springframework.messaging.handler.annotation.Headers Map<String, Object> headers) {
            traces.add(String.valueOf(trace));
        }

        @UdpMessageListener(id = "failing", channels = "reliable-unordered")
        void fail(String text) {
            throw new IllegalStateException(text);
        }
    }
}
