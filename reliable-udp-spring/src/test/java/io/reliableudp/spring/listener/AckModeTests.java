package io.reliableudp.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.testapp.AppPair;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The two ack modes side by side, between two applications over the core's in-memory network
 * (the real protocol stack): RECEIVED completes a send when the peer's node acknowledged it, while the
 * listener may still be working; PROCESSED only once the listener returned, and fails with the remote
 * category when it threw after its retries.
 */
@Timeout(60)
class AckModeTests {

    private AppPair<AnnotationConfigApplicationContext> apps;
    private ReliableUdpTemplate template;
    private Listeners listeners;

    private static ListenerTestApp app() {
        return new ListenerTestApp().channel("work", DeliveryMode.RELIABLE_ORDERED, AckMode.PROCESSED)
                .channel("fast", DeliveryMode.RELIABLE_ORDERED)
                .channel("telemetry", DeliveryMode.UNRELIABLE)
                .channel("orphan", DeliveryMode.RELIABLE_ORDERED, AckMode.PROCESSED)
                .factory(f -> f.setBackOff(new FixedBackOff(1, 2)));
    }

    @BeforeEach
    void startBoth() {
        apps = ListenerTestApp.startPair(AckModeTests::app, ServerApp.class);
        template = apps.client().getBean(ReliableUdpTemplate.class);
        listeners = apps.server().getBean(Listeners.class);
    }

    @AfterEach
    void close() {
        listeners.gate.countDown();
        if (apps != null) {
            apps.close();
        }
    }

    @Test
    void processedCompletesOnlyOnceTheListenerReturned() throws Exception {
        assertThat(template.getAckMode("work")).isEqualTo(AckMode.PROCESSED);
        CompletableFuture<SendResult> sent = template.send("server", "work", "hold");
        assertThat(listeners.entered.await(10, TimeUnit.SECONDS)).as("the listener took the message").isTrue();
        // the listener has the message and has not returned: the future cannot be complete, whatever the node did
        assertThat(sent).isNotDone();
        listeners.gate.countDown();
        SendResult result = sent.get(10, TimeUnit.SECONDS);
        assertThat(result.acknowledged()).isTrue();
        assertThat(result.channel().name()).isEqualTo("work");
        assertThat(listeners.handled).containsExactly("hold");
        assertThat(apps.client().getBean(ManagedReliableUdpNode.class).replyCorrelator().pendingCount()).isZero();
    }

    @Test
    void receivedCompletesWhileTheListenerIsStillWorking() throws Exception {
        assertThat(template.getAckMode("fast")).isEqualTo(AckMode.RECEIVED);
        SendResult result = template.send("server", "fast", "hold").get(10, TimeUnit.SECONDS);
        assertThat(result.acknowledged()).isTrue();
        assertThat(listeners.entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(listeners.handled).isEmpty();   // the future completed, the listener has not returned
    }

    @Test
    void processedFailsWithTheRemoteCategoryWhenTheListenerThrewAfterItsRetries() {
        listeners.gate.countDown();
        CompletableFuture<SendResult> sent = template.send("server", "work", "bad");
        assertThat(sent).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class, e -> {
                    assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED);
                    assertThat(e.peer()).isEqualTo("server");
                    assertThat(e.getMessage()).doesNotContain("no good");
                });
        assertThat(listeners.badAttempts.get()).isEqualTo(3);   // the call and its two retries, then the answer
    }

    @Test
    void manySendsInOrderEachCompletesOnceItsListenerCallReturned() throws Exception {
        listeners.gate.countDown();
        List<CompletableFuture<SendResult>> futures = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            futures.add(template.send("server", "work", "m" + i));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        List<String> expected = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            expected.add("m" + i);
        }
        assertThat(listeners.handled.stream().filter(m -> m.startsWith("m")).toList()).containsExactlyElementsOf(expected);
    }

    @Test
    void processedFailsWithNoListenerWhenNoListenerTakesTheMessage() {
        CompletableFuture<SendResult> sent = template.send("server", "orphan", "anyone?");
        // answered by the receiving node at once, long before the 20 s reply timeout
        assertThat(sent).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class,
                        e -> assertThat(e.category()).isEqualTo(RemoteListenerException.Category.NO_LISTENER));
    }

    @Test
    void processedNeedsAReliableChannel() {
        assertThatIllegalArgumentException().isThrownBy(() -> template.setAckMode("telemetry", AckMode.PROCESSED))
                .withMessageContaining("reliable");
    }

    static class Listeners {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate = new CountDownLatch(1);
        final List<String> handled = new CopyOnWriteArrayList<>();
        final AtomicInteger badAttempts = new AtomicInteger();

        @UdpMessageListener(channels = { "work", "fast" })
        void onWork(String text) throws InterruptedException {
            if (text.equals("bad")) {
                badAttempts.incrementAndGet();
                throw new IllegalStateException("no good");
            }
            entered.countDown();
            gate.await();
            handled.add(text);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerApp {
        @org.springframework.context.annotation.Bean
        Listeners listeners() {
            return new Listeners();
        }
    }
}
