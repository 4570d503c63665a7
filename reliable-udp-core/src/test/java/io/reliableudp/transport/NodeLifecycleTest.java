package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@Timeout(60)
@ExtendWith(SendFuturesEndOnce.class)
class NodeLifecycleTest {

    static NodeConfig.Builder fast() throws Exception {
        return loopback().keepAliveInterval(Duration.ofMillis(50)).timeout(Duration.ofMillis(800))
                .connectTimeout(Duration.ofMillis(800));
    }

    private static byte[] key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return k;
    }

    private static DisconnectReason failureOf(CompletableFuture<?> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ConnectionFailedException.class);
            return ((ConnectionFailedException) e.getCause()).reason();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("connect succeeded");
    }

    @Test
    void silentPeerTimesOutAndPendingReliableSendsFailWithTimeout() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(fast().build(), serverEvents)) {
            DatagramNode client = DatagramNode.start(fast().build(), new RecordingListener(), Sessions.DEFAULT);
            client.connect(target(server)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 1);
            Peer toClient = serverEvents.connected.get(0);
            client.abort(); // like kill -9: no disconnect packets
            CompletableFuture<Delivery> pending = toClient.send(0, "lost".getBytes(StandardCharsets.UTF_8));
            long start = System.nanoTime();
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.disconnected.size() == 1);
            double took = (System.nanoTime() - start) / 1e9;
            assertThat(serverEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.TIMEOUT);
            assertThat(toClient.disconnectReason()).isEqualTo(DisconnectReason.TIMEOUT);
            // not before the 0.8 s timeout (less the keepalive interval it is counted from): a lower bound only,
            // which a loaded machine cannot break; how late it may come is the await's bound above, not a figure
            assertThat(took).as("seconds from the abort to the timeout").isGreaterThanOrEqualTo(0.5);
            assertThatThrownBy(() -> pending.get(1, TimeUnit.SECONDS)).cause()
                    .isInstanceOfSatisfying(DeliveryException.class, e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.TIMEOUT));
            assertThat(server.peers()).isEmpty();
        }
    }

    @Test
    void clientRestartedOnTheSameAddressReconnects() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().preSharedKey(key()).build(), serverEvents)) {
            byte[] clientKey = server.config().preSharedKey();
            DatagramNode first = DatagramNode.start(loopback().preSharedKey(clientKey).build(), new RecordingListener(), Sessions.DEFAULT);
            int port = first.localAddress().getPort();
            first.connect(target(server)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 1);
            first.abort();

            RecordingListener secondEvents = new RecordingListener();
            NodeConfig again = NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                    .preSharedKey(clientKey).build();
            try (ReliableUdpNode second = ReliableUdpNode.start(again, secondEvents)) {
                Peer p = second.connect(target(server)).get(5, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 2);
                // the old connection of that address ended, the new one carries messages
                await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.disconnected.size() == 1);
                assertThat(serverEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.CLOSED_BY_PEER);
                p.send(0, "again".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).contains("again"));
                assertThat(server.peers()).hasSize(1);
            }
        }
    }

    @Test
    void serverRestartedOnTheSameAddressAcceptsTheClientAgain() throws Exception {
        RecordingListener clientEvents = new RecordingListener();
        try (ReliableUdpNode client = ReliableUdpNode.start(fast().build(), clientEvents)) {
            DatagramNode server = DatagramNode.start(fast().build(), new RecordingListener(), Sessions.DEFAULT);
            int port = server.localAddress().getPort();
            client.connect(target(server)).get(5, TimeUnit.SECONDS);
            server.abort();
            await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.disconnected.size() == 1);
            assertThat(clientEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.TIMEOUT);
            RecordingListener restartedEvents = new RecordingListener();
            try (ReliableUdpNode restarted = ReliableUdpNode.start(
                    fast().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), port)).build(), restartedEvents)) {
                Peer p = client.connect(target(restarted)).get(5, TimeUnit.SECONDS);
                p.send(0, "hi".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(5)).until(() -> restartedEvents.texts(0).contains("hi"));
            }
        }
    }

    @Test
    void connectToNobodyTimesOut() throws Exception {
        try (ReliableUdpNode client = ReliableUdpNode.start(fast().build(), new RecordingListener());
             java.nio.channels.DatagramChannel silent = java.nio.channels.DatagramChannel.open()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            assertThat(failureOf(client.connect((InetSocketAddress) silent.getLocalAddress())))
                    .isEqualTo(DisconnectReason.CONNECT_TIMEOUT);
            assertThat(client.stats().handshakeFailures()).containsEntry("connect_timeout", 1L);
            assertThat(client.peers()).isEmpty();
        }
    }

    @Test
    void wrongKeyCannotConnect() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().preSharedKey(key()).build(), new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(loopback().preSharedKey(key()).build(), new RecordingListener())) {
            assertThat(failureOf(client.connect(target(server)))).isEqualTo(DisconnectReason.DENIED);
            assertThat(server.stats().handshakeFailures()).containsEntry("wrong_key", 1L);
            assertThat(server.peers()).isEmpty();
            assertThat(server.stats().connectionsOpened()).isZero();
        }
    }

    @Test
    void plainClientIsDeniedByEncryptedServer() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().preSharedKey(key()).build(), new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            assertThat(failureOf(client.connect(target(server)))).isEqualTo(DisconnectReason.DENIED);
            assertThat(server.stats().handshakeFailures()).containsEntry("mode_mismatch", 1L);
        }
    }

    @Test
    void otherProtocolIdIsDenied() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().protocolId(1).build(), new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(loopback().protocolId(2).build(), new RecordingListener())) {
            assertThat(failureOf(client.connect(target(server)))).isEqualTo(DisconnectReason.DENIED);
            assertThat(server.stats().handshakeFailures()).containsEntry("wrong_protocol", 1L);
        }
    }

    @Test
    void serverFullAndNotAccepting() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().maxConnections(1).build(), new RecordingListener());
             ReliableUdpNode closed = ReliableUdpNode.start(loopback().acceptIncoming(false).build(), new RecordingListener());
             ReliableUdpNode a = ReliableUdpNode.start(loopback().build(), new RecordingListener());
             ReliableUdpNode b = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            a.connect(target(server)).get(5, TimeUnit.SECONDS);
            assertThat(failureOf(b.connect(target(server)))).isEqualTo(DisconnectReason.SERVER_FULL);
            assertThat(failureOf(b.connect(target(closed)))).isEqualTo(DisconnectReason.DENIED);
            assertThat(server.stats().handshakeFailures()).containsEntry("server_full", 1L);
        }
    }

    @Test
    void shutdownDrainsThenDisconnects() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), serverEvents)) {
            ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener());
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            CompletableFuture<?>[] sent = new CompletableFuture<?>[100];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = p.send(0, ("m" + i).getBytes(StandardCharsets.UTF_8));
            }
            client.shutdown(Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            CompletableFuture.allOf(sent).get(1, TimeUnit.SECONDS); // all acknowledged before the close
            assertThat(client.isOpen()).isFalse();
            assertThat(p.send(0, new byte[1])).isCompletedExceptionally();
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.disconnected.size() == 1);
            assertThat(serverEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.CLOSED_BY_PEER);
            assertThat(serverEvents.texts(0)).hasSize(100);
        }
    }

    @Test
    void closeFailsPendingSendsWithClosed() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            DatagramNode client = DatagramNode.start(loopback().build(), new RecordingListener(), Sessions.DEFAULT);
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            server.close(); // nobody acks any more
            CompletableFuture<Delivery> f = p.send(0, new byte[10]);
            client.close();
            // CLOSED when queued before the close; DISCONNECTED when the server's disconnect packets came
            // between queueing and close; NOT_CONNECTED when they came before the send (refused, never sent)
            assertThatThrownBy(() -> f.get(1, TimeUnit.SECONDS)).cause()
                    .isInstanceOfSatisfying(DeliveryException.class, e -> assertThat(e.reason())
                            .isIn(DeliveryFailure.CLOSED, DeliveryFailure.DISCONNECTED, DeliveryFailure.NOT_CONNECTED));
        }
    }
}
