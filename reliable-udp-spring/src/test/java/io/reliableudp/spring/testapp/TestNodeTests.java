package io.reliableudp.spring.testapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.transport.InMemoryNetwork;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The shared fixture itself: two plain-Spring nodes on one in-memory network reach each other by name. */
@Timeout(60)
class TestNodeTests {

    @Test
    void aNamedPeerReceivesWhatTheOtherNodeSends() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        try (TestNode server = TestNode.builder(network).channel("events", DeliveryMode.RELIABLE_ORDERED)
                .configuration(Server.class).start();
                TestNode client = TestNode.builder(network).channel("events", DeliveryMode.RELIABLE_ORDERED)
                        .peer("server", server).start()) {
            client.template().send("server", "events", "hello").get(10, TimeUnit.SECONDS);
            Received received = server.bean(Received.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !received.texts.isEmpty());
            assertThat(received.texts).containsExactly("hello");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Server {
        @Bean
        Received received() {
            return new Received();
        }
    }

    static class Received {
        final List<String> texts = new CopyOnWriteArrayList<>();

        @UdpMessageListener(channels = "events")
        void on(String text) {
            texts.add(text);
        }
    }
}
