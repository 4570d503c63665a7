package io.reliableudp.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpOperations;
import io.reliableudp.spring.listener.ListenerTestApp;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.IntegrationMessageHeaderAccessor;
import org.springframework.integration.channel.QueueChannel;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.integration.mapping.support.JsonHeaders;
import org.springframework.messaging.Message;

/**
 * A peer chooses the headers it sends; the receiving application sees only the ones it allowed. The
 * hostile peer here is an ordinary client whose template carries every header it is given (the
 * outbound default), so it sends what Spring Integration and the application would act on: the JSON
 * transformer's type id, an aggregator's correlation and sequence headers, a priority.
 */
@Timeout(60)
class InboundHeaderAllowListTests {

    /** Headers that steer a Spring application when a peer may set them. */
    static final Map<String, Object> HOSTILE = hostile();

    private static Map<String, Object> hostile() {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put(JsonHeaders.TYPE_ID, "java.lang.ProcessBuilder");
        h.put(IntegrationMessageHeaderAccessor.CORRELATION_ID, "steered");
        h.put(IntegrationMessageHeaderAccessor.SEQUENCE_NUMBER, 7);
        h.put(IntegrationMessageHeaderAccessor.SEQUENCE_SIZE, 7);
        h.put(IntegrationMessageHeaderAccessor.PRIORITY, 9);
        h.put("tenant", "acme");
        return h;
    }

    private AnnotationConfigApplicationContext server;
    private AnnotationConfigApplicationContext client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static ListenerTestApp app() {
        return new ListenerTestApp().channel("events", DeliveryMode.RELIABLE_ORDERED).channel("flow", DeliveryMode.RELIABLE_ORDERED);
    }

    private void sendHostileHeaders(String... allowedHeaders) {
        server = app().inboundHeaders(allowedHeaders).start(ServerApp.class);
        client = app().peer("server", server).start();
        ReliableUdpOperations udp = client.getBean(ReliableUdpOperations.class);
        udp.send("server", "events", "to a listener", HOSTILE).join();
        udp.send("server", "flow", "to a flow", HOSTILE).join();
    }

    private Message<?> listenerMessage() throws InterruptedException {
        Message<?> m = server.getBean(ServerApp.class).received.poll(10, TimeUnit.SECONDS);
        assertThat(m).as("the listener got the message").isNotNull();
        return m;
    }

    private Message<?> flowMessage() {
        Message<?> m = server.getBean("fromFlow", QueueChannel.class).receive(10_000);
        assertThat(m).as("the flow got the message").isNotNull();
        return m;
    }

    @Test
    void byDefaultNoHeaderAPeerChoseReachesAListenerOrAFlow() throws Exception {
        sendHostileHeaders();
        for (Message<?> m : new Message<?>[] { listenerMessage(), flowMessage() }) {
            assertThat(m.getHeaders()).doesNotContainKeys(JsonHeaders.TYPE_ID, IntegrationMessageHeaderAccessor.CORRELATION_ID,
                    IntegrationMessageHeaderAccessor.SEQUENCE_NUMBER, IntegrationMessageHeaderAccessor.SEQUENCE_SIZE,
                    IntegrationMessageHeaderAccessor.PRIORITY, "tenant");
            // the transport headers come from the connection and are there
            assertThat(m.getHeaders()).containsKeys(ReliableUdpHeaders.PEER_ADDRESS, ReliableUdpHeaders.CHANNEL_NAME, ReliableUdpHeaders.MESSAGE_ID);
        }
    }

    @Test
    void onlyTheHeadersTheApplicationNamedPass() throws Exception {
        sendHostileHeaders("tenant", "trace*");
        for (Message<?> m : new Message<?>[] { listenerMessage(), flowMessage() }) {
            assertThat(m.getHeaders()).containsEntry("tenant", "acme");
            assertThat(m.getHeaders()).doesNotContainKeys(JsonHeaders.TYPE_ID, IntegrationMessageHeaderAccessor.CORRELATION_ID,
                    IntegrationMessageHeaderAccessor.SEQUENCE_NUMBER, IntegrationMessageHeaderAccessor.PRIORITY);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class ServerApp {

        final BlockingQueue<Message<?>> received = new LinkedBlockingQueue<>();

        @UdpMessageListener(channels = "events")
        void onEvent(Message<String> message) {
            received.add(message);
        }

        @Bean
        QueueChannel fromFlow() {
            return new QueueChannel();
        }

        @Bean
        IntegrationFlow inbound(ManagedReliableUdpNode node) {
            return IntegrationFlow.from(ReliableUdp.inboundAdapter(node).channels("flow").payloadType(String.class))
                    .channel("fromFlow")
                    .get();
        }
    }
}
