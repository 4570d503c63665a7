package io.reliableudp.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.DeliveryMode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class NodeConnectTest {

    static NodeConfig.Builder loopback() throws Exception {
        return NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    static InetSocketAddress target(ReliableUdpNode node) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), node.localAddress().getPort());
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void connectsExchangesInEveryModeAndDisconnects(boolean encrypted) throws Exception {
        byte[] key = encrypted ? new byte[32] : null;
        if (key != null) {
            new java.security.SecureRandom().nextBytes(key);
        }
        RecordingListener serverEvents = new RecordingListener();
        RecordingListener clientEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().preSharedKey(key).build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(loopback().preSharedKey(key).acceptIncoming(false).build(), clientEvents)) {
            Peer toServer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            assertThat(toServer.state()).isEqualTo(PeerState.CONNECTED);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 1);
            Peer toClient = serverEvents.connected.get(0);
            assertThat(toClient.address().getPort()).isEqualTo(client.localAddress().getPort());

            List<DeliveryMode> modes = server.config().message().channels().stream().map(c -> c.mode()).toList();
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            for (int channel = 0; channel < modes.size(); channel++) {
                for (int i = 0; i < 50; i++) {
                    futures.add(toServer.send(channel, ("c" + channel + "-" + i).getBytes(UTF_8)));
                }
            }
            toServer.flush();
            for (CompletableFuture<Delivery> f : futures) {
                Delivery d = f.get(5, TimeUnit.SECONDS);
                assertThat(d.acknowledged()).isEqualTo(modes.get(d.channel()).isReliable());
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).size() == 50 && serverEvents.texts(1).size() == 50);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                expected.add("c0-" + i);
            }
            assertThat(serverEvents.texts(0)).containsExactlyElementsOf(expected); // reliable ordered
            assertThat(serverEvents.texts(1)).hasSize(50).doesNotHaveDuplicates();
            // loopback without conditioner: unreliable ones arrive too (no duplicates)
            await().atMost(Duration.ofSeconds(2)).until(() -> serverEvents.texts(2).size() == 50);
            assertThat(serverEvents.texts(2)).doesNotHaveDuplicates();
            // unreliable sequenced: never an older one after a newer one
            await().atMost(Duration.ofSeconds(2)).until(() -> !serverEvents.texts(3).isEmpty());
            List<Integer> sequenced = serverEvents.texts(3).stream().map(t -> Integer.parseInt(t.substring(3))).toList();
            assertThat(sequenced).isSorted().doesNotHaveDuplicates();

            // and back
            toClient.send(0, "pong".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.texts(0).contains("pong"));
            assertThat(serverEvents.threads).allMatch(t -> t.startsWith("reliable-udp-io-"));

            toServer.disconnect();
            assertThat(toServer.state()).isEqualTo(PeerState.DISCONNECTED);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.disconnected.size() == 1);
            assertThat(serverEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.CLOSED_BY_PEER);
            await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.disconnected.size() == 1);
            assertThat(clientEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.CLOSED_LOCALLY);
            assertThat(server.peers()).isEmpty();
            assertThat(client.peers()).isEmpty();
            assertThat(server.stats().connectionsOpened()).isEqualTo(1);
        }
    }

    @Test
    void clientWithTheDefaultWildcardBindTalksToAnIpv4Server() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(NodeConfig.builder().build(), new RecordingListener())) {
            Peer p = client.connect(new InetSocketAddress("127.0.0.1", server.localAddress().getPort())).get(5, TimeUnit.SECONDS);
            p.send(0, "wild".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).contains("wild"));
        }
    }

    @Test
    void badChannelAndSendsBeforeConnectFailTheFuture() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            assertThat(p.send(99, new byte[1])).isCompletedExceptionally();
            assertThat(p.send(-1, new byte[1])).isCompletedExceptionally();
            assertThat(p.send(0, new byte[2 * 1024 * 1024])).isCompletedExceptionally(); // larger than maxMessageSize
        }
    }

    @Test
    void aThrowingListenerIsCountedAndTheLoopGoesOn() throws Exception {
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        NodeListener throwing = (peer, channel, id, payload) -> {
            calls.incrementAndGet();
            throw new IllegalStateException("listener bug");
        };
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), throwing);
             ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                p.send(0, new byte[] {(byte) i}).get(5, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> calls.get() == 3);
            assertThat(server.stats().listenerErrors()).isEqualTo(3);
            assertThat(p.state()).isEqualTo(PeerState.CONNECTED);
        }
    }

    @Test
    void offerQueuesWithoutAFuture() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            for (int i = 0; i < 100; i++) {
                assertThat(p.offer(0, ("o" + i).getBytes(UTF_8))).isTrue();
            }
            p.flush();
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).size() == 100);
            assertThat(serverEvents.texts(0).get(99)).isEqualTo("o99");
            await().atMost(Duration.ofSeconds(5)).until(() -> p.stats().channels().get(0).messagesAcked() == 100);
            assertThat(p.offer(7, new byte[1])).isFalse();
            assertThat(p.offer(0, new byte[2 * 1024 * 1024])).isFalse();
            p.disconnect();
            assertThat(p.offer(0, new byte[1])).isFalse();
        }
    }

    @Test
    void sendAfterDisconnectFailsWithoutThrowing() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            p.disconnect();
            assertThat(p.send(0, new byte[1])).isCompletedExceptionally();
        }
    }
}
