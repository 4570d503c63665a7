package io.reliableudp.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code stop()} of a listener container hands the messages it already took (acknowledged by the
 * node) to the listener before it returns, within its shutdown timeout; what it could not hand over is
 * counted, logged with its peer, channel and id, and a sender waiting for the listener is told so.
 * While stopped, the node holds the channel's messages; {@code start()} hands them over. Two
 * applications over the test artifact's in-memory network; the listener takes 20 ms a message.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class GracefulStopTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();
    private ConfigurableApplicationContext server;
    private ConfigurableApplicationContext client;
    private ReliableUdpTemplate template;
    private UdpMessageListenerContainer container;
    private SlowListener listener;

    private ConfigurableApplicationContext start(Class<?> app, String... properties) {
        ReliableUdpNodeFactory factory = network.nodeFactory();
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "reliable-udp.channels.slow.index=0",
                        "reliable-udp.channels.waiting.index=1", "reliable-udp.channels.waiting.ack-mode=processed",
                        "reliable-udp.template.reply-timeout=30s")
                .properties(properties)
                .initializers(ctx -> ctx.getBeanFactory().registerSingleton("reliableUdpNodeFactory", factory))
                .run();
    }

    @BeforeEach
    void startBoth() {
        server = start(ServerApp.class);
        int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        client = start(ClientApp.class, "reliable-udp.peers.server.address=127.0.0.1:" + port);
        template = client.getBean(ReliableUdpTemplate.class);
        container = Objects.requireNonNull(server.getBean(UdpListenerEndpointRegistry.class).getListenerContainer("slow"));
        listener = server.getBean(SlowListener.class);
    }

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private List<CompletableFuture<SendResult>> send(String channel, int n) {
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(template.send("server", channel, channel + "-" + i));
        }
        return futures;
    }

    private static List<String> names(String channel, int from, int to) {
        List<String> names = new ArrayList<>();
        for (int i = from; i < to; i++) {
            names.add(channel + "-" + i);
        }
        return names;
    }

    @Test
    void stopHandsEveryAcknowledgedMessageToTheListenerBeforeItReturns() throws Exception {
        List<CompletableFuture<SendResult>> futures = send("slow", 100);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);   // all acknowledged
        container.stop();
        assertThat(listener.handled).containsExactlyElementsOf(names("slow", 0, 100));
        assertThat(container.getNotProcessedCount()).isZero();

        // stopped, the node holds the channel's messages; start hands them over, in order
        List<CompletableFuture<SendResult>> later = send("slow", 20);
        CompletableFuture.allOf(later.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(listener.handled).hasSize(100);
        container.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.handled.size() == 120);
        assertThat(listener.handled.subList(100, 120)).containsExactlyElementsOf(names("slow", 0, 20));
    }

    @Test
    void whatTheTimeoutLeavesIsCountedLoggedAndItsWaitingSenderToldNotProcessed(CapturedOutput output) throws Exception {
        container.setShutdownTimeout(Duration.ofMillis(100));
        List<CompletableFuture<SendResult>> futures = send("waiting", 60);
        await().atMost(Duration.ofSeconds(30)).until(() -> container.getQueuedCount() + listener.handled.size() == 60);
        container.stop();
        long notProcessed = container.getNotProcessedCount();
        assertThat(notProcessed).isPositive();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).handle((v, e) -> null).get(30, TimeUnit.SECONDS);
        long told = futures.stream().filter(CompletableFuture::isCompletedExceptionally).filter(f -> {
            Throwable t = f.handle((r, e) -> e).join();
            Throwable cause = t.getCause() != null ? t.getCause() : t;
            return cause instanceof RemoteListenerException r && r.category() == RemoteListenerException.Category.NOT_PROCESSED;
        }).count();
        assertThat(told).isEqualTo(notProcessed);
        assertThat(futures.stream().filter(f -> !f.isCompletedExceptionally()).count()).isEqualTo(listener.handled.size());
        assertThat(listener.handled.size() + notProcessed).isEqualTo(60);
        assertThat(server.getBean(MeterRegistry.class).get("reliable.udp.listener.not.processed").tag("listener", "slow")
                .functionCounter().count()).isEqualTo(notProcessed);
        assertThat(output).contains("listener 'slow' could not handle a message").contains("channel 'waiting', id ")
                .contains("peer ");
    }

    @Test
    void pauseAndResumeByListenerIdHoldTheChannelInTheNode() throws Exception {
        UdpListenerEndpointRegistry registry = server.getBean(UdpListenerEndpointRegistry.class);
        Objects.requireNonNull(registry.getListenerContainer("slow")).pause();
        assertThat(container.isPauseRequested()).isTrue();
        assertThat(server.getBean(ManagedReliableUdpNode.class).isReceivingPaused(0)).isTrue();
        List<CompletableFuture<SendResult>> futures = send("slow", 30);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);   // the node took them
        assertThat(container.getQueuedCount()).isZero();
        assertThat(listener.handled).isEmpty();
        container.resume();
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.handled.size() == 30);
        assertThat(listener.handled).containsExactlyElementsOf(names("slow", 0, 30));
        assertThat(container.isPaused()).isFalse();
    }

    static class SlowListener {
        final List<String> handled = Collections.synchronizedList(new ArrayList<>());

        @UdpMessageListener(id = "slow", channels = { "slow", "waiting" })
        void onMessage(String text) throws InterruptedException {
            Thread.sleep(20);
            handled.add(text);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ServerApp {
        @Bean
        SlowListener slowListener() {
            return new SlowListener();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientApp {
    }
}
