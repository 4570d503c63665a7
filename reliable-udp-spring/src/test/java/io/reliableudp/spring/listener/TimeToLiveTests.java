package io.reliableudp.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.testapp.AppPair;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Time-to-live through the Spring side, between two applications over the core's in-memory network:
 * a channel with a TTL and a send with the {@code rudp_ttl} header both reach the listener with the
 * {@code rudp_ageMillis} header (below the TTL), a message without one has no such header, and the
 * header is refused on a PROCESSED channel.
 */
@Timeout(60)
class TimeToLiveTests {

    private AppPair<AnnotationConfigApplicationContext> apps;
    private ReliableUdpTemplate template;
    private Listeners listeners;

    private static ListenerTestApp app() {
        return new ListenerTestApp()
                .channel("telemetry", ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).ttl(Duration.ofSeconds(5)), AckMode.RECEIVED)
                .channel("plain", DeliveryMode.RELIABLE_ORDERED)
                .channel("work", DeliveryMode.RELIABLE_ORDERED, AckMode.PROCESSED);
    }

    @BeforeEach
    void startBoth() {
        apps = ListenerTestApp.startPair(TimeToLiveTests::app, ServerApp.class);
        template = apps.client().getBean(ReliableUdpTemplate.class);
        listeners = apps.server().getBean(Listeners.class);
    }

    @AfterEach
    void close() {
        if (apps != null) {
            apps.close();
        }
    }

    @Test
    void theListenerIsToldTheAgeOfAMessageWithATtl() throws Exception {
        template.send("server", "telemetry", "channel-ttl").get(10, TimeUnit.SECONDS);
        template.send("server", "plain", "header-ttl", Map.of(ReliableUdpHeaders.TTL, "3s")).get(10, TimeUnit.SECONDS);
        template.send("server", "plain", "no-ttl").get(10, TimeUnit.SECONDS);
        Map<String, String> ages = new java.util.HashMap<>();
        for (int i = 0; i < 3; i++) { // two channels: their listener calls may come in either order
            String s = listeners.received.poll(10, TimeUnit.SECONDS);
            assertThat(s).isNotNull();
            ages.put(s.substring(0, s.indexOf(' ')), s.substring(s.lastIndexOf(' ') + 1));
        }
        assertThat(Integer.parseInt(ages.get("channel-ttl"))).isBetween(0, 4999);
        assertThat(Integer.parseInt(ages.get("header-ttl"))).isBetween(0, 2999);
        assertThat(ages.get("no-ttl")).isEqualTo("null");
    }

    @Test
    void theTtlHeaderNeedsAckModeReceived() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> template.send("server", "work", "x", Map.of(ReliableUdpHeaders.TTL, Duration.ofSeconds(1))))
                .withMessageContaining("RECEIVED");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> template.send("server", "plain", "x", Map.of(ReliableUdpHeaders.TTL, "soon")))
                .withMessageContaining("duration");
    }

    static class Listeners {
        final BlockingQueue<String> received = new LinkedBlockingQueue<>();

        @UdpMessageListener(channels = { "telemetry", "plain" })
        void on(String text, @Header(name = ReliableUdpHeaders.AGE_MILLIS, required = false) @Nullable Integer age) {
            received.add(text + " age " + age);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerApp {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }
}
