package io.reliableudp.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.PeerIdentity;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The container factory's hooks, between a station and two rovers that know each other by their keys:
 * a {@link UdpMessageFilter} that lets only one rover command (an auth check on the peer identity), a
 * {@link UdpMessageInterceptor} that audits, adds the rover's tenant and vetoes, and a
 * {@link UdpContainerCustomizer}; how they meet the processed acknowledgement, request/reply, retries and
 * the queue bound.
 */
@Timeout(60)
class UdpListenerHooksTests {

    private final NodeIdentity station = NodeIdentity.generate();
    private final NodeIdentity rover1 = NodeIdentity.generate();
    private final NodeIdentity rover2 = NodeIdentity.generate();
    private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void close() {
        contexts.reversed().forEach(AnnotationConfigApplicationContext::close);
    }

    private ListenerTestApp app() {
        return new ListenerTestApp().channel("commands", DeliveryMode.RELIABLE_ORDERED, AckMode.PROCESSED)
                .channel("events", DeliveryMode.RELIABLE_ORDERED, AckMode.PROCESSED);
    }

    private AnnotationConfigApplicationContext startStation(Audit audit) {
        AnnotationConfigApplicationContext server = app()
                .identity(station, new PeerIdentity("rover-1", rover1.publicKey()), new PeerIdentity("rover-2", rover2.publicKey()))
                .factory(f -> {
                    f.setBackOff(new FixedBackOff(1, 2));
                    f.setMessageFilter(new CommandersOnly());
                    f.setMessageInterceptor(audit);
                    f.setContainerCustomizer(c -> {
                        if (c.getId().equals("events")) {
                            c.setMaxQueuedMessages(7);
                        }
                    });
                })
                .start(StationConfig.class);
        contexts.add(server);
        return server;
    }

    private ReliableUdpTemplate startRover(NodeIdentity own, AnnotationConfigApplicationContext server) {
        AnnotationConfigApplicationContext rover = app().identity(own, new PeerIdentity("station", station.publicKey()))
                .peer("station", server).start();
        contexts.add(rover);
        return rover.getBean(ReliableUdpTemplate.class);
    }

    private static UdpMessageListenerContainer container(AnnotationConfigApplicationContext context, String id) {
        return Objects.requireNonNull(context.getBean(UdpListenerEndpointRegistry.class).getListenerContainer(id));
    }

    @Test
    void theFilterKeepsOutAPeerByItsIdentityAndItsWaitingSenderCountsItAsProcessed() throws Exception {
        Audit audit = new Audit();
        AnnotationConfigApplicationContext server = startStation(audit);
        ReliableUdpTemplate allowed = startRover(rover1, server);
        ReliableUdpTemplate other = startRover(rover2, server);
        Listeners listeners = server.getBean(Listeners.class);

        assertThat(allowed.send("station", "commands", "turn left").get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
        // processed acknowledgement: the filtered message is settled as processed, the listener never saw it
        assertThat(other.send("station", "commands", "turn right").get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
        // a filtered request is answered as a listener that returned nothing: an empty reply
        assertThat(new ReplyingReliableUdpTemplate(other).sendAndReceive("station", "commands", "status?", String.class).get(10, TimeUnit.SECONDS)).isNull();
        assertThat(new ReplyingReliableUdpTemplate(allowed).sendAndReceive("station", "commands", "status?", String.class).get(10, TimeUnit.SECONDS))
                .isEqualTo("ok from rover-1");

        assertThat(listeners.commands).containsExactly("rover-1:turn left", "rover-1:status?");
        UdpMessageListenerContainer commands = container(server, "commands");
        assertThat(commands.getFilteredCount()).isEqualTo(2);
        assertThat(commands.getProcessedCount()).isEqualTo(2);
        assertThat(commands.getErrorCount()).isZero();
        // filtered before the interceptor: only admitted messages are audited
        assertThat(audit.before).containsExactly("rover-1 commands turn left", "rover-1 commands status?");
    }

    @Test
    void theInterceptorSeesTheIdentityAddsTheTenantAndMayVeto() throws Exception {
        Audit audit = new Audit();
        AnnotationConfigApplicationContext server = startStation(audit);
        ReliableUdpTemplate rover = startRover(rover1, server);
        ReliableUdpTemplate southern = startRover(rover2, server);
        Listeners listeners = server.getBean(Listeners.class);

        rover.send("station", "events", "hello").get(10, TimeUnit.SECONDS);
        southern.send("station", "events", "hi").get(10, TimeUnit.SECONDS);
        assertThat(listeners.events).containsExactly("north:hello", "south:hi");
        // vetoed: acknowledged as processed, counted, never handed to the listener, and afterRecord still runs
        assertThat(rover.send("station", "events", "forbidden").get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
        assertThat(listeners.events).hasSize(2);
        UdpMessageListenerContainer events = container(server, "events");
        assertThat(events.getVetoedCount()).isEqualTo(1);
        assertThat(events.getFilteredCount()).isZero();
        assertThat(audit.before).containsExactly("rover-1 events hello", "rover-2 events hi", "rover-1 events forbidden");
        assertThat(audit.success).containsExactly("hello", "hi");
        await().atMost(Duration.ofSeconds(10)).until(() -> audit.after.size() == 3);   // after the answer went
        assertThat(audit.after).containsExactly("hello", "hi", "forbidden");
        // the customizer changed this one container only
        assertThat(events.getMaxQueuedMessages()).isEqualTo(7);
        assertThat(container(server, "commands").getMaxQueuedMessages()).isEqualTo(UdpMessageListenerContainer.DEFAULT_MAX_QUEUED_MESSAGES);
    }

    @Test
    void retriesCallTheListenerAgainAndTheInterceptorOnce() throws Exception {
        Audit audit = new Audit();
        AnnotationConfigApplicationContext server = startStation(audit);
        ReliableUdpTemplate rover = startRover(rover1, server);
        Listeners listeners = server.getBean(Listeners.class);

        // fails twice, then works on the second retry
        assertThat(rover.send("station", "events", "flaky").get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
        assertThat(listeners.flakyAttempts.get()).isEqualTo(3);
        assertThat(audit.before).containsExactly("rover-1 events flaky");
        assertThat(audit.success).containsExactly("flaky");
        // fails every time: failure once, after the retries, and the waiting sender is told
        CompletableFuture<SendResult> broken = rover.send("station", "events", "broken");
        assertThat(broken).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class,
                        e -> assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED));
        assertThat(listeners.brokenAttempts.get()).isEqualTo(3);
        assertThat(audit.failure).containsExactly("broken: IllegalStateException");
        await().atMost(Duration.ofSeconds(10)).until(() -> audit.after.size() == 2);   // after the answer went
        assertThat(audit.after).containsExactly("flaky", "broken");
    }

    @Test
    void aFilterThatThrowsFailsItsMessageNotTheContainer() throws Exception {
        AnnotationConfigApplicationContext server = startStation(new Audit());
        ReliableUdpTemplate rover = startRover(rover1, server);
        Listeners listeners = server.getBean(Listeners.class);

        assertThat(rover.send("station", "commands", "boom")).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class,
                        e -> assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED));
        assertThat(rover.send("station", "commands", "after").get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
        assertThat(listeners.commands).containsExactly("rover-1:after");
        assertThat(container(server, "commands").getErrorCount()).isEqualTo(1);
    }

    @Test
    void filteredMessagesStayWithinTheQueueBound() throws Exception {
        CountDownLatch open = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger();
        AnnotationConfigApplicationContext server = new ListenerTestApp().channel("events", DeliveryMode.RELIABLE_ORDERED)
                .factory(f -> {
                    f.setMaxQueuedMessages(5);
                    f.setMessageFilter(m -> {
                        seen.incrementAndGet();
                        try {
                            open.await();   // a slow filter: what it has not looked at yet is in hand
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return false;
                    });
                })
                .start(EventsOnly.class);
        contexts.add(server);
        AnnotationConfigApplicationContext client = new ListenerTestApp().channel("events", DeliveryMode.RELIABLE_ORDERED)
                .peer("server", server).start();
        contexts.add(client);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        UdpMessageListenerContainer container = container(server, "events");

        List<CompletableFuture<SendResult>> sent = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            sent.add(template.send("server", "events", "m" + i));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> container.getBackPressurePauseCount() > 0);
        assertThat(container.getMaxQueuedCount()).isLessThanOrEqualTo(5 + 2);
        open.countDown();
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> container.getFilteredCount() == 30);
        assertThat(seen.get()).isEqualTo(30);
        assertThat(container.getQueuedCount()).isZero();
        assertThat(container.getMaxQueuedCount()).isLessThanOrEqualTo(5 + 2);
        assertThat(server.getBean(EventsOnly.class).handled).isEmpty();
    }

    /** The payload as text: hooks see the envelope body (bytes) unless the sender named a type id. */
    static String text(Message<?> message) {
        return message.getPayload() instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(message.getPayload());
    }

    /** Only rover-1 may command; a payload "boom" breaks the filter. */
    static final class CommandersOnly implements UdpMessageFilter {
        @Override
        public boolean accept(Message<?> message) {
            if (!"commands".equals(message.getHeaders().get(ReliableUdpHeaders.CHANNEL_NAME))) {
                return true;
            }
            if ("boom".equals(text(message))) {
                throw new IllegalStateException("the filter broke");
            }
            return "rover-1".equals(message.getHeaders().get(ReliableUdpHeaders.PEER_IDENTITY));
        }
    }

    /** Audits every message and its outcome, adds the tenant of the sending rover, vetoes "forbidden". */
    static final class Audit implements UdpMessageInterceptor {
        static final Map<String, String> TENANTS = Map.of("rover-1", "north", "rover-2", "south");
        final List<String> before = new CopyOnWriteArrayList<>();
        final List<String> success = new CopyOnWriteArrayList<>();
        final List<String> failure = new CopyOnWriteArrayList<>();
        final List<String> after = new CopyOnWriteArrayList<>();

        @Override
        public @Nullable Message<?> intercept(Message<?> message) {
            String identity = (String) message.getHeaders().get(ReliableUdpHeaders.PEER_IDENTITY);
            before.add(identity + " " + message.getHeaders().get(ReliableUdpHeaders.CHANNEL_NAME) + " " + text(message));
            if ("forbidden".equals(text(message))) {
                return null;
            }
            return MessageBuilder.fromMessage(message).setHeader("tenant", TENANTS.get(identity)).build();
        }

        @Override
        public void success(Message<?> message, @Nullable Object result) {
            if (!"status?".equals(text(message))) {
                success.add(text(message));
            }
        }

        @Override
        public void failure(Message<?> message, Exception exception) {
            Throwable cause = exception.getCause() != null ? exception.getCause() : exception;
            failure.add(text(message) + ": " + cause.getClass().getSimpleName());
        }

        @Override
        public void afterRecord(Message<?> message) {
            if (!"status?".equals(text(message))) {
                after.add(text(message));
            }
        }
    }

    static class Listeners {
        final List<String> commands = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final AtomicInteger flakyAttempts = new AtomicInteger();
        final AtomicInteger brokenAttempts = new AtomicInteger();

        @UdpMessageListener(id = "commands", channels = "commands")
        @Nullable String onCommand(Message<String> message) {
            commands.add(message.getHeaders().get(ReliableUdpHeaders.PEER_IDENTITY) + ":" + message.getPayload());
            return message.getPayload().equals("status?") ? "ok from " + message.getHeaders().get(ReliableUdpHeaders.PEER_IDENTITY) : null;
        }

        @UdpMessageListener(id = "events", channels = "events")
        void onEvent(Message<String> message) {
            String text = message.getPayload();
            if (text.equals("flaky") && flakyAttempts.incrementAndGet() < 3) {
                throw new IllegalStateException("not yet");
            }
            if (text.equals("broken")) {
                brokenAttempts.incrementAndGet();
                throw new IllegalStateException("never");
            }
            if (!text.equals("flaky")) {
                events.add(message.getHeaders().get("tenant") + ":" + text);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class StationConfig {
        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class EventsOnly {
        final List<String> handled = new CopyOnWriteArrayList<>();

        @UdpMessageListener(id = "events", channels = "events")
        void onEvent(String text) {
            handled.add(text);
        }
    }
}
