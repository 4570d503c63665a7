package io.reliableudp.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * {@code stop()} of a listener container hands the messages it already took (acknowledged by the
 * node) to the listener before it returns, within its shutdown timeout; what it could not hand over is
 * counted, logged with its peer, channel and id, and a sender waiting for the listener is told so.
 * While stopped, the node holds the channel's messages; {@code start()} hands them over. Two
 * applications over the core's in-memory network; the listener takes 20 ms a message.
 */
@Timeout(120)
class GracefulStopTests {

    private SlowListenerPair pair;
    private ReliableUdpTemplate template;
    private UdpMessageListenerContainer container;
    private SlowListenerPair.SlowListener listener;

    @BeforeEach
    void startBoth() {
        pair = new SlowListenerPair(Duration.ofMillis(20), server -> { }, ChannelConfig.DEFAULT_MAX_QUEUED_MESSAGES);
        template = pair.template;
        container = pair.container;
        listener = pair.listener;
    }

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
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
    void whatTheTimeoutLeavesIsCountedLoggedAndItsWaitingSenderToldNotProcessed() throws Exception {
        Logger log = (Logger) LoggerFactory.getLogger(UdpMessageListenerContainer.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        log.addAppender(logged);
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
        log.detachAppender(logged);
        assertThat(logged.list).map(ILoggingEvent::getFormattedMessage)
                .anySatisfy(m -> assertThat(m).contains("listener 'slow' could not handle a message").contains("peer ")
                        .contains("channel 'waiting', id "));
    }

    @Test
    void pauseAndResumeByListenerIdHoldTheChannelInTheNode() throws Exception {
        UdpListenerEndpointRegistry registry = pair.server.getBean(UdpListenerEndpointRegistry.class);
        Objects.requireNonNull(registry.getListenerContainer("slow")).pause();
        assertThat(container.isPauseRequested()).isTrue();
        assertThat(pair.serverNode.isReceivingPaused(0)).isTrue();
        List<CompletableFuture<SendResult>> futures = send("slow", 30);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);   // the node took them
        assertThat(container.getQueuedCount()).isZero();
        assertThat(listener.handled).isEmpty();
        container.resume();
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.handled.size() == 30);
        assertThat(listener.handled).containsExactlyElementsOf(names("slow", 0, 30));
        assertThat(container.isPaused()).isFalse();
    }
}
