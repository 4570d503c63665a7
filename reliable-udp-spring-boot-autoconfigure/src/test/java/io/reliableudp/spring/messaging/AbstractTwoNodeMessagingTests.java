package io.reliableudp.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.messaging.Events.Ack;
import io.reliableudp.spring.messaging.Events.Position;
import io.reliableudp.spring.messaging.Events.Telemetry;
import io.reliableudp.spring.messaging.TestApps.ClientListeners;
import io.reliableudp.spring.messaging.TestApps.Received;
import io.reliableudp.spring.messaging.TestApps.ServerListeners;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two Spring applications (a server with listeners, a client with a template) exchanging typed events
 * through the node. Subclasses choose the node: in memory, or the real UDP transport on loopback.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(120)
abstract class AbstractTwoNodeMessagingTests {

    protected ConfigurableApplicationContext server;
    protected ConfigurableApplicationContext client;
    protected final List<ConfigurableApplicationContext> extra = new ArrayList<>();

    /** The node factory to register, or null for the auto-configured one (the real transport). */
    protected abstract @Nullable ReliableUdpNodeFactory nodeFactory();

    /** How many of the unreliable messages must arrive. */
    protected abstract int unreliableMinimumOf(int sent);

    protected ConfigurableApplicationContext start(Class<?> app, String... properties) {
        List<String> all = new ArrayList<>(List.of(TestApps.CHANNELS));
        all.add("reliable-udp.bind-address=127.0.0.1");
        all.add("reliable-udp.drain-timeout=2s");
        all.add("reliable-udp.connect-timeout=2s");
        all.add("spring.main.banner-mode=off");
        all.add("reliable-udp.headers.inbound=trace-id");   // the carried header the listeners read
        all.addAll(List.of(properties));
        SpringApplicationBuilder builder = new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new));
        ReliableUdpNodeFactory factory = nodeFactory();
        if (factory != null) {
            builder.initializers(ctx -> ctx.getBeanFactory().registerSingleton("reliableUdpNodeFactory", factory));
        }
        return builder.run();
    }

    protected ConfigurableApplicationContext startClient(String... properties) {
        List<String> all = new ArrayList<>(List.of("reliable-udp.peers.server.address=127.0.0.1:" + serverPort(),
                "reliable-udp.template.default-peer=server", "reliable-udp.template.default-channel=events"));
        all.addAll(List.of(properties));
        return start(TestApps.ClientApp.class, all.toArray(String[]::new));
    }

    protected int serverPort() {
        return server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
    }

    @BeforeAll
    void startBoth() {
        server = start(TestApps.ServerApp.class, "reliable-udp.port=0");
        client = startClient();
        ManagedReliableUdpNode node = client.getBean(ManagedReliableUdpNode.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> node.peers().stream().anyMatch(p -> "server".equals(node.peerDirectory().nameOf(p.address()))));
    }

    @AfterAll
    void stopAll() {
        extra.forEach(ConfigurableApplicationContext::close);
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void clear() {
        ServerListeners s = server.getBean(ServerListeners.class);
        s.positions.clear();
        s.telemetry.clear();
        s.telemetrySenders.clear();
        s.commands.clear();
        s.commandHeaders.clear();
        s.handledErrors.clear();
        s.validated.clear();
        ClientListeners c = client.getBean(ClientListeners.class);
        c.acks.clear();
        c.ackPeers.clear();
        c.replies.clear();
    }

    protected ReliableUdpTemplate template() {
        return client.getBean(ReliableUdpTemplate.class);
    }

    @Test
    void reliableTypedEventsArriveInOrderAndAreAnswered() throws Exception {
        int n = 300;
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            futures.add(template().send("server", "events", new Position("u1", i * 0.5, -i, i)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        for (CompletableFuture<SendResult> f : futures) {
            SendResult r = f.join();
            assertThat(r.acknowledged()).isTrue();
            assertThat(r.peerName()).isEqualTo("server");
            assertThat(r.channel().name()).isEqualTo("events");
        }
        ServerListeners s = server.getBean(ServerListeners.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> s.positions.size() == n);
        // records -> JSON -> records, in the order sent (reliable-ordered channel, one peer)
        assertThat(s.positions).extracting(Received::position).containsExactlyElementsOf(
                LongStream.range(0, n).mapToObj(i -> new Position("u1", i * 0.5, -i, i)).toList());
        assertThat(s.positions).extracting(Received::channel).containsOnly("events");
        assertThat(s.positions).extracting(Received::from).containsOnly(client.getBean(ManagedReliableUdpNode.class).localAddress());
        // an unnamed sender is named by its host:port, so @Header(PEER_NAME) String works as documented
        assertThat(s.positionPeerNames).containsOnly("127.0.0.1:" + client.getBean(ManagedReliableUdpNode.class).localAddress().getPort());
        assertThat(s.positions).extracting(Received::messageId).doesNotHaveDuplicates();
        // each listener return value went back to the sender on the @SendTo channel
        ClientListeners c = client.getBean(ClientListeners.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> c.acks.size() == n);
        assertThat(c.acks).extracting(Ack::seq).containsExactlyInAnyOrderElementsOf(LongStream.range(0, n).boxed().toList());
        assertThat(c.acks).extracting(Ack::by).containsOnly("server");
        assertThat(c.ackPeers).containsOnly("server");
    }

    @Test
    void defaultsAndMessageSendCarryHeaders() throws Exception {
        template().send(new Position("dflt", 1, 2, 1)).get(10, TimeUnit.SECONDS);
        template().send(org.springframework.messaging.support.MessageBuilder.withPayload(new Position("msg", 3, 4, 2))
                .setHeader("trace-id", "t-42").build()).get(10, TimeUnit.SECONDS);
        template().send("server", "events", new Position("hdr", 5, 6, 3), Map.of("trace-id", "t-43")).get(10, TimeUnit.SECONDS);
        ServerListeners s = server.getBean(ServerListeners.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> s.positions.size() == 3);
        assertThat(s.positions).extracting(r -> r.position().unit() + "/" + r.traceId())
                .containsExactly("dflt/null", "msg/t-42", "hdr/t-43");
    }

    @Test
    void unreliableTypedEventsCompleteWithoutAnAck() throws Exception {
        int n = 50;
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            futures.add(template().sendUnreliable("server", new Telemetry("u1", i)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(futures).allSatisfy(f -> {
            assertThat(f.join().acknowledged()).isFalse();
            assertThat(f.join().channel().name()).isEqualTo("telemetry");
        });
        ServerListeners s = server.getBean(ServerListeners.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> s.telemetry.size() >= unreliableMinimumOf(n));
        assertThat(s.telemetry).allSatisfy(t -> assertThat(t.unit()).isEqualTo("u1"));
        assertThat(s.telemetry).extracting(Telemetry::value).doesNotHaveDuplicates().allMatch(v -> v >= 0 && v < n);
        assertThat(s.telemetrySenders).containsOnly(client.getBean(ManagedReliableUdpNode.class).localAddress());
    }

    @Test
    void listenerExceptionsGoToTheErrorHandlerAndTheListenerGoesOn() throws Exception {
        for (String command : List.of("one", "fail-two", "three")) {
            template().send("server", "commands", command).get(10, TimeUnit.SECONDS);
        }
        ClientListeners c = client.getBean(ClientListeners.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> c.replies.size() == 3);
        // replies come back in order on the ordered channel: the error handler's reply stands in for the failed one
        assertThat(c.replies).containsExactly("done:one", "error:refused fail-two", "done:three");
        ServerListeners s = server.getBean(ServerListeners.class);
        assertThat(s.commands).containsExactly("one", "three");
        assertThat(s.handledErrors).hasSize(1);
        var container = server.getBean(UdpListenerEndpointRegistry.class).getListenerContainer("commands");
        assertThat(container).isNotNull();
        assertThat(container.getErrorCount()).isGreaterThanOrEqualTo(1);
        assertThat(s.commandHeaders).allSatisfy(h -> assertThat(h).containsKeys("rudp_peerAddress", "rudp_channel", "rudp_messageId", "contentType"));
    }

    @Test
    void invalidPayloadsAreRejectedByTheValidator() throws Exception {
        var container = server.getBean(UdpListenerEndpointRegistry.class).getListenerContainer("validated");
        long errorsBefore = container.getErrorCount();
        template().send("server", "validated", new Position("bad", 0, 0, -1)).get(10, TimeUnit.SECONDS);
        template().send("server", "validated", new Position("good", 0, 0, 1)).get(10, TimeUnit.SECONDS);
        ServerListeners s = server.getBean(ServerListeners.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> s.validated.size() == 1);
        assertThat(s.validated).extracting(Position::unit).containsExactly("good");
        assertThat(container.getErrorCount()).isEqualTo(errorsBefore + 1);
    }

    @Test
    void sendingToAPeerThatDoesNotAnswerFailsWithAReason() {
        CompletableFuture<SendResult> f = template().send("127.0.0.1:9", "events", new Position("x", 0, 0, 0));
        assertThat(f).failsWithin(Duration.ofSeconds(15)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(ReliableUdpSendException.class, e -> assertThat(e.reason()).isIn(DeliveryFailure.NOT_CONNECTED, DeliveryFailure.TIMEOUT));
    }

    @Test
    void shutdownWithPendingMessagesDeliversOrFailsEveryOne() throws Exception {
        ConfigurableApplicationContext leaving = startClient("reliable-udp.drain-timeout=3s");
        extra.add(leaving);
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        t.send("server", "events", new Position("warmup", 0, 0, 0)).get(10, TimeUnit.SECONDS);
        int n = 200;
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            futures.add(t.send("server", "events", new Position("leaving", 0, 0, i)));
        }
        leaving.close();
        List<Long> acked = new ArrayList<>();
        for (CompletableFuture<SendResult> f : futures) {
            try {
                f.get(10, TimeUnit.SECONDS);
                acked.add(0L);
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOfSatisfying(ReliableUdpSendException.class,
                        ex -> assertThat(ex.reason()).isIn(DeliveryFailure.CLOSED, DeliveryFailure.DISCONNECTED));
            }
        }
        ServerListeners s = server.getBean(ServerListeners.class);
        // everything acknowledged really arrived: graceful shutdown drains the queue
        await().atMost(Duration.ofSeconds(5)).until(() -> s.positions.stream().filter(r -> r.position().unit().equals("leaving")).count() >= acked.size());
        assertThat(acked.size()).as("drained within the timeout").isEqualTo(n);
    }

    static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
