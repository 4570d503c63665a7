package io.reliableudp.spring.requestreply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpOperations;
import io.reliableudp.spring.core.ReliableUdpReplyTimeoutException;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.core.ReplyingReliableUdpOperations;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.UdpTypeMapper;
import io.reliableudp.spring.testapp.AppPair;
import io.reliableudp.spring.testapp.TestNode;
import io.reliableudp.spring.untrusted.Triangle;
import io.reliableudp.transport.InMemoryNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.channel.QueueChannel;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Request/reply, listener error handling (retry, dead letter, error replies), concurrency and type ids
 * between two plain-Spring applications ({@link TestNode}) over the core's in-memory network (the real
 * protocol stack); the requests go through a {@link ReplyingReliableUdpTemplate} over the client's template.
 */
@Timeout(120)
class RequestReplyTests {

    record Quote(String item, int quantity) {
    }

    record Price(String item, double total) {
    }

    /** Payload types of the "shapes" channel, told apart by type id. */
    sealed interface Shape permits Circle, Square {
    }

    record Circle(double radius) implements Shape {
    }

    record Square(double side) implements Shape {
    }

    /** Channels both sides agree on, in index order. */
    static final List<Map.Entry<String, DeliveryMode>> CHANNELS = List.of(
            Map.entry("ordered", DeliveryMode.RELIABLE_ORDERED), Map.entry("unordered", DeliveryMode.RELIABLE_UNORDERED),
            Map.entry("telemetry", DeliveryMode.UNRELIABLE), Map.entry("nobody", DeliveryMode.RELIABLE_ORDERED),
            Map.entry("flaky", DeliveryMode.RELIABLE_ORDERED), Map.entry("broken", DeliveryMode.RELIABLE_ORDERED),
            Map.entry("parallel", DeliveryMode.RELIABLE_UNORDERED), Map.entry("serial", DeliveryMode.RELIABLE_ORDERED),
            Map.entry("shapes", DeliveryMode.RELIABLE_ORDERED));
    /** Type ids both sides map. */
    static final Map<String, Class<?>> TYPE_IDS = Map.of("circle", Circle.class, "square", Square.class);

    private final InMemoryNetwork network = new InMemoryNetwork();
    private AppPair<TestNode> apps;
    private ReliableUdpOperations udp;
    private ReplyingReliableUdpOperations requests;
    private ServerListeners listeners;

    private TestNode start(Class<?> app, UdpTypeMapper types, java.util.function.Consumer<TestNode.Builder> more) {
        TestNode.Builder builder = TestNode.builder(network).configuration(app)
                .template(t -> t.setMessageMapper(ReliableUdpMessageMapper.createDefault().withTypeMapper(types)));
        CHANNELS.forEach(c -> builder.channel(c.getKey(), c.getValue()));
        more.accept(builder);
        return builder.start();
    }

    /**
     * The server trusts class names of this test's package (Quote, Price), not of {@code ..spring.untrusted}; the
     * client names its types by class, waits 10 s for replies, and sends requests through a replying template.
     */
    private void startBoth(boolean errorReplyDetails) {
        apps = AppPair.start(
                () -> start(ServerApp.class, new UdpTypeMapper(TYPE_IDS, List.of(RequestReplyTests.class.getPackageName()), false),
                        b -> b.containerFactory(f -> f.setErrorReplyDetails(errorReplyDetails))),
                server -> start(ClientApp.class, new UdpTypeMapper(TYPE_IDS, List.of(), true),
                        b -> b.peer("server", server).template(t -> t.setReplyTimeout(Duration.ofSeconds(10)))));
        udp = apps.client().template();
        requests = new ReplyingReliableUdpTemplate(apps.client().template());
        listeners = apps.server().bean(ServerListeners.class);
    }

    @BeforeEach
    void startBoth() {
        startBoth(false);
    }

    @AfterEach
    void close() {
        if (apps != null) {
            apps.close();
        }
    }

    private UdpMessageListenerContainer container(String id) {
        return Objects.requireNonNull(apps.server().bean(UdpListenerEndpointRegistry.class).getListenerContainer(id));
    }

    private static Throwable root(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }

    @Test
    void repliesAreCorrelatedOnOrderedAndUnorderedChannels() throws Exception {
        for (String channel : List.of("ordered", "unordered")) {
            List<CompletableFuture<Price>> replies = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                replies.add(requests.sendAndReceive("server", channel, new Quote(channel + i, i), Price.class));
            }
            for (int i = 0; i < 50; i++) {
                // each reply answers its own request, whatever order the replies came back in
                assertThat(replies.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(new Price(channel + i, i * 2.5));
            }
        }
        // a listener that returns nothing answers with an empty reply: the future completes with null
        assertThat(requests.sendAndReceive("server", "serial", "void", Price.class).get(10, TimeUnit.SECONDS)).isNull();
        assertThat(apps.client().bean(ManagedReliableUdpNode.class).replyCorrelator().pendingCount()).isZero();
    }

    @Test
    void anUnreliableChannelIsRefusedAndASilentPeerTimesOut() {
        assertThatIllegalArgumentException().isThrownBy(() -> requests.sendAndReceive("server", "telemetry", new Quote("x", 1), Price.class))
                .withMessageContaining("channel 'telemetry' is UNRELIABLE").withMessageContaining("request/reply needs a reliable channel");
        // no listener takes channel "nobody": the request is acknowledged but never answered
        CompletableFuture<Price> silent = requests.sendAndReceive("server", "nobody", new Quote("x", 1), Price.class, Duration.ofMillis(300));
        assertThat(silent).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(ReliableUdpReplyTimeoutException.class, e -> {
                    assertThat(e.peer()).isEqualTo("server");
                    assertThat(e.channel()).isEqualTo("nobody");
                    assertThat(e.timeout()).isEqualTo(Duration.ofMillis(300));
                });
        assertThat(apps.client().bean(ManagedReliableUdpNode.class).replyCorrelator().pendingCount()).isZero();
    }

    @Test
    void aListenerExceptionFailsTheRequestersFutureWithACategoryNotTheExceptionsMessage() {
        CompletableFuture<Price> failed = requests.sendAndReceive("server", "ordered", new Quote("boom", -1), Price.class);
        assertThat(failed).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class, e -> {
                    assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED);
                    assertThat(e.remoteClassName()).isEmpty();
                    assertThat(e.remoteMessage()).isEmpty();
                    assertThat(e.getMessage()).doesNotContain("negative").doesNotContain(IllegalStateException.class.getName());
                    assertThat(e.peer()).isEqualTo("server");
                });
        assertThat(container("pricing").getErrorCount()).isEqualTo(1);
    }

    @Test
    void withErrorReplyDetailsTheRequesterLearnsTheExceptionsClassNameAndMessage() {
        close();
        startBoth(true);
        CompletableFuture<Price> failed = requests.sendAndReceive("server", "ordered", new Quote("boom", -1), Price.class);
        assertThat(failed).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class, e -> {
                    assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED);
                    assertThat(e.remoteClassName()).isEqualTo(IllegalStateException.class.getName());
                    assertThat(e.remoteMessage()).isEqualTo("no price for a negative quantity");
                });
    }

    @Test
    void aFailingListenerIsRetriedWithItsBackOffThenSucceeds() throws Exception {
        assertThat(requests.sendAndReceive("server", "flaky", "twice", String.class).get(10, TimeUnit.SECONDS)).isEqualTo("ok after 3");
        assertThat(listeners.flakyAttempts.get()).isEqualTo(3);
        assertThat(container("flaky").getRetryCount()).isEqualTo(2);
        assertThat(container("flaky").getErrorCount()).isZero();
    }

    @Test
    void retriesSpentTheMessageGoesToTheDeadLetterChannelAndARequestGetsTheError() throws Exception {
        udp.send("server", "broken", "one-way").get(10, TimeUnit.SECONDS);
        QueueChannel dlq = apps.server().context().getBean("deadLetters", QueueChannel.class);
        Message<?> dead = dlq.receive(10_000);
        assertThat(dead).isNotNull();
        assertThat(new String((byte[]) dead.getPayload(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("one-way");
        assertThat(dead.getHeaders()).containsEntry(ReliableUdpHeaders.DLT_LISTENER_ID, "broken")
                .containsEntry(ReliableUdpHeaders.DLT_EXCEPTION_CLASS, UnsupportedOperationException.class.getName())
                .containsEntry(ReliableUdpHeaders.DLT_EXCEPTION_MESSAGE, "always broken")
                .containsEntry(ReliableUdpHeaders.PEER_NAME, apps.server().bean(ManagedReliableUdpNode.class).peerDirectory()
                        .label(apps.client().bean(ManagedReliableUdpNode.class).localAddress()));
        assertThat(listeners.brokenAttempts.get()).isEqualTo(3);   // the first call and two retries
        assertThat(container("broken").getRetryCount()).isEqualTo(2);

        // the dead-letter recoverer returns nothing: a request still learns that the listener failed
        CompletableFuture<String> request = requests.sendAndReceive("server", "broken", "request", String.class);
        assertThat(request).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class,
                        e -> assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED));
        assertThat(dlq.receive(10_000)).isNotNull();
    }

    @Test
    void unorderedChannelsRunConcurrentlyOrderedOnesStaySerialPerPeer() throws Exception {
        // four messages meet at a barrier of four: only possible when they run at once
        for (int i = 0; i < 8; i++) {
            udp.send("server", "parallel", "p" + i);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> listeners.parallelDone.get() == 8);
        assertThat(listeners.barrierBroken).isEmpty();
        assertThat(listeners.parallelMax.get()).isEqualTo(4);

        // the same concurrency on an ordered channel: one at a time, in order
        for (int i = 0; i < 20; i++) {
            udp.send("server", "serial", "s" + i);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> listeners.serial.size() == 20);
        assertThat(listeners.serialMax.get()).isEqualTo(1);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add("s" + i);
        }
        assertThat(listeners.serial).containsExactlyElementsOf(expected);
    }

    @Test
    void severalTypesOnOneChannelByTypeIdAndAnUntrustedClassNameIsRefused() throws Exception {
        udp.send("server", "shapes", new Circle(1)).get(10, TimeUnit.SECONDS);
        udp.send("server", "shapes", new Square(2)).get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.shapes.size() == 2);
        assertThat(listeners.shapes).containsExactly(new Circle(1), new Square(2));
        assertThat(listeners.shapeTypeIds).containsExactly("circle", "square");

        // Triangle is not mapped: the client names it by class, the server does not trust its package
        // (Quote and Price are named by class too, and their package is trusted: the other tests use them)
        CompletableFuture<String> refused = requests.sendAndReceive("server", "shapes", new Triangle(3), String.class);
        assertThat(refused).failsWithin(Duration.ofSeconds(10)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(RemoteListenerException.class, e -> {
                    assertThat(e.category()).isEqualTo(RemoteListenerException.Category.NOT_ACCEPTED);
                    assertThat(e.getMessage()).doesNotContain(Triangle.class.getName());
                });
        assertThat(container("shapes").getRejectedTypeCount()).isEqualTo(1);
        assertThat(listeners.shapes).hasSize(2);
        // a reply is typed the same way: the server's reply of a mapped type arrives as that type
        assertThat(requests.sendAndReceive("server", "ordered", new Quote("circle", 0), Shape.class).get(10, TimeUnit.SECONDS))
                .isEqualTo(new Circle(7));
        assertThat(root(new RuntimeException(new IllegalStateException("x")))).isInstanceOf(IllegalStateException.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerApp {

        @Bean
        ServerListeners serverListeners() {
            return new ServerListeners();
        }

        @Bean
        QueueChannel deadLetters() {
            return new QueueChannel();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClientApp {
    }

    static class ServerListeners {
        final AtomicInteger flakyAttempts = new AtomicInteger();
        final AtomicInteger brokenAttempts = new AtomicInteger();
        final CyclicBarrier barrier = new CyclicBarrier(4);
        final List<Throwable> barrierBroken = new CopyOnWriteArrayList<>();
        final AtomicInteger parallelNow = new AtomicInteger();
        final AtomicInteger parallelMax = new AtomicInteger();
        final AtomicInteger parallelDone = new AtomicInteger();
        final AtomicInteger serialNow = new AtomicInteger();
        final AtomicInteger serialMax = new AtomicInteger();
        final List<String> serial = new CopyOnWriteArrayList<>();
        final List<Shape> shapes = new CopyOnWriteArrayList<>();
        final List<String> shapeTypeIds = new CopyOnWriteArrayList<>();

        @UdpMessageListener(id = "pricing", channels = { "ordered", "unordered" })
        Object price(Quote q) {
            if (q.quantity() < 0) {
                throw new IllegalStateException("no price for a negative quantity");
            }
            if (q.item().equals("circle")) {
                return new Circle(7);
            }
            return new Price(q.item(), q.quantity() * 2.5);
        }

        @UdpMessageListener(id = "flaky", channels = "flaky", retries = "3", retryDelay = "10ms")
        String flaky(String body) {
            int n = flakyAttempts.incrementAndGet();
            if (n < 3) {
                throw new IllegalStateException("attempt " + n);
            }
            return "ok after " + n;
        }

        @UdpMessageListener(id = "broken", channels = "broken", retries = "2", retryDelay = "5ms", deadLetterChannel = "deadLetters")
        String broken(String body) {
            brokenAttempts.incrementAndGet();
            throw new UnsupportedOperationException("always broken");
        }

        @UdpMessageListener(id = "parallel", channels = "parallel", concurrency = "4")
        void parallel(String body) throws Exception {
            int now = parallelNow.incrementAndGet();
            parallelMax.accumulateAndGet(now, Math::max);
            try {
                barrier.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                barrierBroken.add(e);
            } finally {
                parallelNow.decrementAndGet();
                parallelDone.incrementAndGet();
            }
        }

        @UdpMessageListener(id = "serial", channels = "serial", concurrency = "4")
        void serial(String body) throws Exception {
            int now = serialNow.incrementAndGet();
            serialMax.accumulateAndGet(now, Math::max);
            Thread.sleep(2);
            if (!body.equals("void")) {
                serial.add(body);
            }
            serialNow.decrementAndGet();
        }

        @UdpMessageListener(id = "shapes", channels = "shapes")
        String shape(Shape shape, @Header(ReliableUdpHeaders.TYPE_ID) String typeId) {
            shapes.add(shape);
            shapeTypeIds.add(typeId);
            return "seen";
        }
    }
}
