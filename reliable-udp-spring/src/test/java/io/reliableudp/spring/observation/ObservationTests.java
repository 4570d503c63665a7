package io.reliableudp.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.support.DefaultUdpHeaderMapper;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.testapp.TestNode;
import io.reliableudp.transport.InMemoryNetwork;
import java.net.InetSocketAddress;
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
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Send and process observations, and one trace across the UDP hop: a propagating handler (standing in
 * for Micrometer Tracing's) writes a trace id into the sender's carrier, the envelope carries it, and the
 * receiver's handler reads it back from the process observation's carrier. Two plain-Spring
 * applications ({@link TestNode}) on the core's in-memory network, the registries set on the template and
 * the container factory as an application without Boot does.
 */
@Timeout(60)
class ObservationTests {

    static final String TRACE_HEADER = "traceparent";

    private final InMemoryNetwork network = new InMemoryNetwork();
    private @Nullable TestNode server;
    private @Nullable TestNode client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /**
     * A node whose template and listener containers observe into the registry of its configuration,
     * and whose listeners see the carried trace header (the inbound allow-list names it).
     */
    private TestNode start(Class<?> app, @Nullable InetSocketAddress serverAddress) {
        DefaultUdpHeaderMapper headers = new DefaultUdpHeaderMapper();
        headers.setInboundHeaderNames(TRACE_HEADER);
        ReliableUdpMessageMapper mapper = ReliableUdpMessageMapper.createDefault().withHeaderMapper(headers);
        TestObservationRegistry registry = TestObservationRegistry.create();
        Propagating propagating = new Propagating();
        registry.observationConfig().observationHandler(propagating);
        TestNode.Builder builder = TestNode.builder(network)
                .channel("reliable-ordered", DeliveryMode.RELIABLE_ORDERED)
                .channel("reliable-unordered", DeliveryMode.RELIABLE_UNORDERED)
                .configuration(app)
                .template(t -> {
                    t.setMessageMapper(mapper);
                    t.setObservationRegistry(registry);
                })
                .containerFactory(f -> f.setObservationRegistry(registry))
                .context(c -> {
                    c.registerBean(Propagating.class, () -> propagating);
                    c.registerBean(TestObservationRegistry.class, () -> registry);
                });
        if (serverAddress != null) {
            builder.peer("server", serverAddress);
        }
        return builder.start();
    }

    @Test
    void sendIsObservedUntilTheAckAndTheTraceContinuesInTheListener() throws Exception {
        TestNode server = this.server = start(ServerApp.class, null);
        TestNode client = this.client = start(ClientApp.class, server.address());

        SendResult result = client.template().send("server", "reliable-ordered", "hello").get(10, TimeUnit.SECONDS);
        String sentTrace = client.bean(Propagating.class).injected.get(0);

        TestObservationRegistry clientRegistry = client.bean(TestObservationRegistry.class);
        TestObservationRegistryAssert.assertThat(clientRegistry).hasObservationWithNameEqualTo("reliable.udp.send").that()
                .hasBeenStarted().hasBeenStopped()
                .hasLowCardinalityKeyValue("reliable.udp.channel", "reliable-ordered")
                .hasLowCardinalityKeyValue("reliable.udp.delivery.mode", "RELIABLE_ORDERED")
                .hasLowCardinalityKeyValue("reliable.udp.peer", "server")
                .hasHighCardinalityKeyValue("reliable.udp.message.id", Integer.toString(result.messageId()))
                .hasContextualNameEqualTo("reliable-ordered send");

        Listener listener = server.bean(Listener.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> listener.traces.size() == 1);
        // the listener saw the carried trace header, and the process observation extracted the same value
        assertThat(listener.traces).containsExactly(sentTrace);
        Propagating serverHandler = server.bean(Propagating.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> serverHandler.extracted.size() == 1);
        assertThat(serverHandler.extracted).containsExactly(sentTrace);
        TestObservationRegistryAssert.assertThat(server.bean(TestObservationRegistry.class))
                .hasObservationWithNameEqualTo("reliable.udp.process").that().hasBeenStopped()
                .hasLowCardinalityKeyValue("reliable.udp.listener.id", "traced")
                .hasLowCardinalityKeyValue("reliable.udp.channel", "reliable-ordered");
    }

    @Test
    void aFailedSendStopsItsObservationWithTheError() {
        server = start(ServerApp.class, null);
        TestNode client = this.client = start(ClientApp.class, new InetSocketAddress("127.0.0.1", 1));
        var future = client.template().send("server", "reliable-ordered", "lost");
        assertThat(future).failsWithin(Duration.ofSeconds(10));
        TestObservationRegistryAssert.assertThat(client.bean(TestObservationRegistry.class))
                .hasObservationWithNameEqualTo("reliable.udp.send").that().hasBeenStopped().assertThatError().isNotNull();
    }

    @Test
    void aFailingListenerIsRecordedAsAnErrorOnItsObservation() {
        TestNode server = this.server = start(ServerApp.class, null);
        TestNode client = this.client = start(ClientApp.class, server.address());
        client.template().send("server", "reliable-unordered", "boom");
        TestObservationRegistry registry = server.bean(TestObservationRegistry.class);
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
    static class ClientApp {
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerApp {

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
