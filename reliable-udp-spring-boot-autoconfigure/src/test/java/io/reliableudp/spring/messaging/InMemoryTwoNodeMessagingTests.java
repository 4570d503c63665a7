package io.reliableudp.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.messaging.Events.Position;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The two-application tests over the test artifact's in-memory network (the real protocol stack, no
 * sockets), plus shutdown cases that need held acks: the server's datagrams to the leaving client are
 * held by the link, so its reliable sends stay unacknowledged until the link is released.
 */
class InMemoryTwoNodeMessagingTests extends AbstractTwoNodeMessagingTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();

    @Override
    protected ReliableUdpNodeFactory nodeFactory() {
        return network.nodeFactory();
    }

    private InetSocketAddress serverAddress() {
        return new InetSocketAddress("127.0.0.1", serverPort());
    }

    @Override
    protected int unreliableMinimumOf(int sent) {
        return sent;
    }

    @Test
    void shutdownFailsWhatIsStillUnacknowledgedAfterTheDrainTimeoutWithCLOSED() throws Exception {
        ConfigurableApplicationContext leaving = startClient("reliable-udp.drain-timeout=300ms");
        extra.add(leaving);
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        t.send("server", "events", new Position("warmup", 0, 0, 0)).get(10, TimeUnit.SECONDS);
        InetSocketAddress from = serverAddress();
        InetSocketAddress to = leaving.getBean(ManagedReliableUdpNode.class).localAddress();
        network.hold(from, to);
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                futures.add(t.send("server", "events", new Position("stuck", 0, 0, i)));
            }
            long start = System.nanoTime();
            leaving.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        } finally {
            network.release(from, to);
        }
        assertThat(futures).allSatisfy(f -> assertThat(f).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(ReliableUdpSendException.class, e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.CLOSED)));
    }

    @Test
    void shutdownWaitsForAcksThatArriveWithinTheDrainTimeout() throws Exception {
        ConfigurableApplicationContext leaving = startClient("reliable-udp.drain-timeout=5s");
        extra.add(leaving);
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        t.send("server", "events", new Position("warmup", 0, 0, 0)).get(10, TimeUnit.SECONDS);
        InetSocketAddress from = serverAddress();
        InetSocketAddress to = leaving.getBean(ManagedReliableUdpNode.class).localAddress();
        network.hold(from, to);
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            futures.add(t.send("server", "events", new Position("late", 0, 0, i)));
        }
        Thread releaser = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            network.release(from, to);
        });
        leaving.close();
        releaser.join();
        assertThat(futures).allSatisfy(f -> assertThat(f).succeedsWithin(Duration.ofSeconds(1)));
    }

    @Test
    void aNamedPeerIsReconnectedAfterItCameBack() throws Exception {
        ConfigurableApplicationContext station = start(TestApps.ServerApp.class, "reliable-udp.port=0");
        int port = station.getBean(io.reliableudp.spring.core.ManagedReliableUdpNode.class).localAddress().getPort();
        ConfigurableApplicationContext rover = start(TestApps.ClientApp.class, "reliable-udp.peers.server.address=127.0.0.1:" + port,
                "reliable-udp.reconnect.initial-backoff=50ms", "reliable-udp.reconnect.max-backoff=200ms");
        extra.add(rover);
        try {
            ReliableUdpTemplate t = rover.getBean(ReliableUdpTemplate.class);
            assertThat(t.send("server", "events", new Position("before", 0, 0, 0)).get(5, TimeUnit.SECONDS).acknowledged()).isTrue();
            station.close();
            // while it is away, sends fail with a reason instead of hanging
            assertThat(t.send("server", "events", new Position("away", 0, 0, 1))).failsWithin(Duration.ofSeconds(5))
                    .withThrowableThat().havingCause().isInstanceOfSatisfying(ReliableUdpSendException.class,
                            e -> assertThat(e.reason()).isIn(DeliveryFailure.NOT_CONNECTED, DeliveryFailure.DISCONNECTED));
            station = start(TestApps.ServerApp.class, "reliable-udp.port=" + port);
            ConfigurableApplicationContext back = station;
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).untilAsserted(() ->
                    assertThat(t.send("server", "events", new Position("after", 0, 0, 2))).succeedsWithin(Duration.ofSeconds(2)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> back.getBean(TestApps.ServerListeners.class)
                    .positions.stream().anyMatch(r -> r.position().unit().equals("after")));
            // connect, disconnect and reconnect were published as application events, off the receive thread
            List<org.springframework.context.ApplicationEvent> events = rover.getBean(TestApps.ClientListeners.class).peerEvents;
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(events).filteredOn(io.reliableudp.spring.core.UdpPeerConnectedEvent.class::isInstance)
                            .extracting(e -> ((io.reliableudp.spring.core.UdpPeerConnectedEvent) e).getPeerName())
                            .containsOnly("server").hasSizeGreaterThanOrEqualTo(2));
            assertThat(events).filteredOn(io.reliableudp.spring.core.UdpPeerDisconnectedEvent.class::isInstance)
                    .extracting(e -> ((io.reliableudp.spring.core.UdpPeerDisconnectedEvent) e).getReason())
                    .contains(io.reliableudp.DisconnectReason.CLOSED_BY_PEER);
        } finally {
            station.close();
        }
    }

    @Test
    void aWrongKeyIsToldAsDeniedAlsoOnTheSendsRefusedDuringTheBackoff() throws Exception {
        // the server is plain, the client encrypts: the handshake is DENIED
        ConfigurableApplicationContext wrong = startClient("reliable-udp.security.pre-shared-key=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                "reliable-udp.reconnect.initial-backoff=10s", "reliable-udp.reconnect.max-backoff=10s");
        extra.add(wrong);
        ReliableUdpTemplate t = wrong.getBean(ReliableUdpTemplate.class);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).untilAsserted(() ->
                assertThat(t.send("server", "events", new Position("x", 0, 0, 0))).failsWithin(Duration.ofSeconds(5))
                        .withThrowableThat().havingCause().isInstanceOfSatisfying(ReliableUdpSendException.class, e -> {
                            assertThat(e.reason()).isEqualTo(DeliveryFailure.NOT_CONNECTED);
                            assertThat(e).hasStackTraceContaining("last attempt failed").hasStackTraceContaining("DENIED");
                            Throwable root = e;
                            while (root.getCause() != null && !(root instanceof io.reliableudp.transport.ConnectionFailedException)) {
                                root = root.getCause();
                            }
                            assertThat(root).isInstanceOfSatisfying(io.reliableudp.transport.ConnectionFailedException.class,
                                    c -> assertThat(c.reason()).isEqualTo(io.reliableudp.DisconnectReason.DENIED));
                        }));
    }

    @Test
    void programmingErrorsThrowAtOnce() {
        ReliableUdpTemplate t = template();
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> t.send("server", "nope", "x"))
                .withMessageContaining("unknown channel 'nope'").withMessageContaining("events=0");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> t.sendUnreliable("server", "events", "x"))
                .withMessageContaining("not an unreliable channel");
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> t.send("no-such-peer", "events", "x"))
                .withMessageContaining("neither a configured peer name nor host:port");
        ReliableUdpTemplate bare = new ReliableUdpTemplate(t.getNode());
        org.assertj.core.api.Assertions.assertThatIllegalStateException().isThrownBy(() -> bare.send("x"))
                .withMessageContaining("default peer");
    }

    @Test
    void sendsAfterShutdownFailAtOnce() {
        ConfigurableApplicationContext leaving = startClient();
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        leaving.close();
        assertThat(t.send("server", "events", new Position("late", 0, 0, 0))).failsWithin(Duration.ofSeconds(1))
                .withThrowableThat().havingCause().isInstanceOfSatisfying(ReliableUdpSendException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.CLOSED));
    }
}
