package io.reliableudp.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.testapp.TestNode;
import io.reliableudp.transport.InMemoryNetwork;
import io.reliableudp.transport.PeerState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import java.util.function.Consumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Sends to a named peer issued while its connection is still being made keep their call order: one
 * thread's messages on a reliable-ordered channel arrive in the order it sent them, whether they were
 * issued before the handshake completed, while the waiting ones were being handed over, or after. The
 * server's handshake answers are held on the in-memory network, so every send of the first test is
 * issued while the client is connecting. Two plain-Spring applications ({@link TestNode}) on the core's
 * in-memory network.
 */
@Timeout(60)
class SendOrderWhileConnectingTests {

    /** The client's port, fixed so that the server's answers to it can be held before it starts. */
    private static final int CLIENT_PORT = 47_311;

    /** The latency of a held link: long enough that nothing arrives while a test holds it. */
    private static final LinkConditionerConfig HELD = new LinkConditionerConfig(3_600_000, 0, 0, 0, 1, 0, 0, 0, 0, 0, 64L << 20, 1);

    private final InMemoryNetwork network = new InMemoryNetwork();
    private final List<TestNode> contexts = new ArrayList<>();
    private TestNode server;
    private InetSocketAddress serverAddress;
    private final InetSocketAddress clientAddress = new InetSocketAddress("127.0.0.1", CLIENT_PORT);

    /** Both applications' channels: events, small (50 queued messages), work (ack mode processed). */
    private TestNode start(Class<?> app, Consumer<TestNode.Builder> more) {
        TestNode.Builder builder = TestNode.builder(network)
                .channel("events", DeliveryMode.RELIABLE_ORDERED)
                .channel("small", new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, 50, ChannelConfig.DEFAULT_MAX_QUEUED_BYTES))
                .channel("work", DeliveryMode.RELIABLE_ORDERED)
                .template(t -> t.setAckMode("work", AckMode.PROCESSED))
                .configuration(app);
        more.accept(builder);
        TestNode node = builder.start();
        contexts.add(node);
        return node;
    }

    @BeforeEach
    void startServer() {
        server = start(ServerApp.class, b -> { });
        serverAddress = server.address();
    }

    @AfterEach
    void close() {
        network.condition(serverAddress, clientAddress, null);
        for (int i = contexts.size() - 1; i >= 0; i--) {
            contexts.get(i).close();
        }
    }

    /** The client, its named peer {@code server} connecting (the server's answers held) when it returns. */
    private ReliableUdpTemplate connectingClient(Consumer<TestNode.Builder> more) {
        network.condition(serverAddress, clientAddress, HELD);
        TestNode client = start(ClientApp.class, b -> {
            b.nodeConfig(c -> c.bindAddress(clientAddress)).peer("server", serverAddress);
            more.accept(b);
        });
        return client.template();
    }

    private ReliableUdpTemplate connectingClient() {
        return connectingClient(b -> { });
    }

    private static List<String> numbered(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "m" + i).toList();
    }

    @Test
    void sendsIssuedWhileConnectingArriveInCallOrder() throws Exception {
        ReliableUdpTemplate template = connectingClient();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (String m : numbered(0, 200)) {
            futures.add(template.send("server", "events", m));
        }
        assertThat(futures).as("every send was issued while the handshake was held").allMatch(f -> !f.isDone());
        assertThat(contexts.get(1).node().peers()).as("the client is still connecting")
                .allMatch(p -> p.state() == PeerState.CONNECTING);
        network.condition(serverAddress, clientAddress, null);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertReceived(numbered(0, 200));
    }

    @Test
    void sendsOfAckModeProcessedIssuedWhileConnectingArriveInCallOrder() throws Exception {
        ReliableUdpTemplate template = connectingClient();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (String m : numbered(0, 100)) {
            futures.add(template.send("server", "work", m));
        }
        assertThat(futures).allMatch(f -> !f.isDone());
        network.condition(serverAddress, clientAddress, null);
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertReceived(numbered(0, 100));
    }

    @Test
    void sendsIssuedAsTheConnectionCompletesDoNotOvertakeTheWaitingOnes() throws Exception {
        ReliableUdpTemplate template = connectingClient();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (String m : numbered(0, 500)) {
            futures.add(template.send("server", "events", m));
        }
        // the handshake completes on the client's I/O thread while this thread goes on sending
        network.condition(serverAddress, clientAddress, null);
        for (String m : numbered(500, 3000)) {
            futures.add(template.send("server", "events", m));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertReceived(numbered(0, 3000));
    }

    /**
     * The deterministic form of the race: the connect completes on another thread, which blocks while
     * handing over the waiting sends (at the 51st); meanwhile the sending thread sends 100 more. They
     * must queue behind the waiting ones rather than go straight to the now connected peer.
     */
    @Test
    void sendsIssuedWhileTheWaitingOnesAreHandedOverQueueBehindThem() throws Exception {
        GatedConnects[] gate = new GatedConnects[1];
        TestNode client = start(ClientApp.class, b -> b.peer("server", serverAddress)
                .nodeFactory(real -> gate[0] = new GatedConnects(real, 50)));
        GatedConnects gated = gate[0];
        ReliableUdpTemplate template = client.template();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (String m : numbered(0, 100)) {
            futures.add(template.send("server", "events", m));
        }
        assertThat(futures).allMatch(f -> !f.isDone());
        gated.open();
        assertThat(gated.handingOver.await(20, TimeUnit.SECONDS)).as("the waiting sends are being handed over").isTrue();
        for (String m : numbered(100, 200)) {
            futures.add(template.send("server", "events", m));
        }
        gated.resume.countDown();
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertReceived(numbered(0, 200));
    }

    @Test
    void sendsWaitingForAFailedConnectFailInCallOrder() throws Exception {
        ReliableUdpTemplate template = connectingClient(b -> b.nodeConfig(c -> c.connectTimeout(Duration.ofMillis(300))));
        List<Integer> failed = new CopyOnWriteArrayList<>();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            futures.add(template.send("server", "events", "m" + i).whenComplete((r, e) -> failed.add(n)));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).exceptionally(e -> null).get(30, TimeUnit.SECONDS);
        assertThat(futures).allSatisfy(f -> assertThat(f).isCompletedExceptionally());
        ReliableUdpSendException first = (ReliableUdpSendException) catchCause(futures.get(0));
        assertThat(first.reason()).isEqualTo(DeliveryFailure.NOT_CONNECTED);
        assertThat(failed).containsExactlyElementsOf(IntStream.range(0, 100).boxed().toList());
    }

    @Test
    void sendsWaitingForTheConnectionCountAgainstTheChannelQueue() throws Exception {
        ReliableUdpTemplate template = connectingClient();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (String m : numbered(0, 60)) {
            futures.add(template.send("server", "small", m));
        }
        // the channel holds 50 messages per connection: the 10 past them are refused at once, as on a connection
        assertThat(futures.subList(50, 60)).allSatisfy(f -> {
            assertThat(f).isCompletedExceptionally();
            assertThat(((ReliableUdpSendException) catchCause(f)).reason()).isEqualTo(DeliveryFailure.QUEUE_FULL);
        });
        assertThat(futures.subList(0, 50)).allMatch(f -> !f.isDone());
        network.condition(serverAddress, clientAddress, null);
        CompletableFuture.allOf(futures.subList(0, 50).toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertReceived(numbered(0, 50));
        ManagedReliableUdpNode client = contexts.get(1).node();
        assertThat(client.peers()).allMatch(p -> p.state() == PeerState.CONNECTED);
    }

    /** Waits until the server's listener took as many messages as expected (acks come before it runs), then checks their order. */
    private void assertReceived(List<String> expected) {
        List<String> messages = server.bean(Received.class).messages;
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> messages.size() >= expected.size());
        assertThat(messages).containsExactlyElementsOf(expected);
    }

    private static Throwable catchCause(CompletableFuture<?> f) {
        try {
            f.join();
            throw new AssertionError("the future completed normally");
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    /**
     * Nodes whose connects complete only when the test says so, on a thread of their own, and whose
     * peers block that thread at its n-th send until {@link #resume}. Until then the peer is not
     * visible ({@code peer(address)} is null), as while a handshake runs.
     */
    static final class GatedConnects implements ReliableUdpNodeFactory {
        final CountDownLatch handingOver = new CountDownLatch(1);
        final CountDownLatch resume = new CountDownLatch(1);
        private final ReliableUdpNodeFactory real;
        private final int blockAt;
        private final CompletableFuture<Peer> gate = new CompletableFuture<>();
        private volatile @Nullable CompletableFuture<Peer> connected;
        private volatile boolean open;

        GatedConnects(ReliableUdpNodeFactory real, int blockAt) {
            this.real = real;
            this.blockAt = blockAt;
        }

        void open() throws Exception {
            Peer peer = Objects.requireNonNull(connected, "no connect yet").get(20, TimeUnit.SECONDS);
            Thread opener = new Thread(() -> {
                open = true;
                gate.complete(new BlockingPeer(peer, Thread.currentThread()));
            }, "connect-completer");
            opener.start();
        }

        @Override
        public ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
            ReliableUdpNode node = real.start(config, listener);
            return new ReliableUdpNode() {
                @Override public InetSocketAddress localAddress() { return node.localAddress(); }
                @Override public NodeConfig config() { return node.config(); }
                @Override public CompletableFuture<Peer> connect(InetSocketAddress remote) {
                    connected = node.connect(remote);
                    return gate;
                }
                @Override public @Nullable Peer peer(InetSocketAddress address) { return open ? node.peer(address) : null; }
                @Override public Collection<Peer> peers() { return node.peers(); }
                @Override public NodeStats stats() { return node.stats(); }
                @Override public boolean isOpen() { return node.isOpen(); }
                @Override public void pauseReceiving(int channel) { node.pauseReceiving(channel); }
                @Override public void resumeReceiving(int channel) { node.resumeReceiving(channel); }
                @Override public void setLinkConditioner(@Nullable LinkConditionerConfig c) { node.setLinkConditioner(c); }
                @Override public CompletableFuture<Void> shutdown(Duration drainTimeout) { return node.shutdown(drainTimeout); }
                @Override public void close() { node.close(); }
            };
        }

        /** The connected peer, as the completing thread sees it: its n-th send waits for {@link #resume}. */
        private final class BlockingPeer implements Peer {
            private final Peer peer;
            private final Thread completer;
            private int sends;

            BlockingPeer(Peer peer, Thread completer) {
                this.peer = peer;
                this.completer = completer;
            }

            @Override public InetSocketAddress address() { return peer.address(); }
            @Override public PeerState state() { return peer.state(); }
            @Override public @Nullable DisconnectReason disconnectReason() { return peer.disconnectReason(); }
            @Override public void flush() { peer.flush(); }
            @Override public void disconnect() { peer.disconnect(); }
            @Override public PeerStats stats() { return peer.stats(); }

            @Override
            public CompletableFuture<Delivery> send(int channel, byte[] payload) {
                if (Thread.currentThread() == completer && sends++ == blockAt) {
                    handingOver.countDown();
                    try {
                        resume.await(20, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return peer.send(channel, payload);
            }
        }
    }

    static class Received {
        final List<String> messages = new CopyOnWriteArrayList<>();

        @UdpMessageListener(channels = { "events", "small", "work" })
        void on(String text) {
            messages.add(text);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ServerApp {
        @Bean
        Received received() {
            return new Received();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ClientApp {
    }
}
