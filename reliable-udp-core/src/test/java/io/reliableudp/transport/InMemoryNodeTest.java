package io.reliableudp.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.DeliveryMode;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real nodes (handshake, framing, encryption, the message layer) over {@link InMemoryNetwork} ports:
 * no socket is opened, and the stack behaves as over UDP.
 */
@Timeout(60)
@ExtendWith(SendFuturesEndOnce.class)
class InMemoryNodeTest {

    private static NodeConfig.Builder config(byte[] key) {
        return NodeConfig.builder().preSharedKey(key);
    }

    private static byte[] randomKey() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return k;
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void connectsExchangesInEveryModeAndDisconnectsWithoutASocket(boolean encrypted) throws Exception {
        byte[] key = encrypted ? randomKey() : null;
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        RecordingListener clientEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(key).build(), serverEvents, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(config(key).acceptIncoming(false).build(), clientEvents, network.open())) {
            assertThat(network.addresses()).containsExactlyInAnyOrder(server.localAddress(), client.localAddress());
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 1);
            Peer toClient = serverEvents.connected.get(0);
            assertThat(toClient.address()).isEqualTo(client.localAddress());

            List<DeliveryMode> modes = server.config().message().channels().stream().map(c -> c.mode()).toList();
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            for (int channel = 0; channel < modes.size(); channel++) {
                for (int i = 0; i < 50; i++) {
                    futures.add(toServer.send(channel, ("c" + channel + "-" + i).getBytes(UTF_8)));
                }
            }
            toServer.flush();
            for (int k = 0; k < futures.size(); k++) {
                Delivery d = futures.get(k).get(5, TimeUnit.SECONDS);
                // each future names its own message: the channel it went on and its id there (0, 1, ... per channel)
                assertThat(d.channel()).isEqualTo(k / 50);
                assertThat(d.messageId()).isEqualTo(k % 50);
                assertThat(d.peer()).isEqualTo(server.localAddress());
                assertThat(d.acknowledged()).isEqualTo(modes.get(d.channel()).isReliable());
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).size() == 50
                    && serverEvents.texts(1).size() == 50 && serverEvents.texts(2).size() == 50);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                expected.add("c0-" + i);
            }
            assertThat(serverEvents.texts(0)).containsExactlyElementsOf(expected);
            assertThat(serverEvents.texts(1)).hasSize(50).doesNotHaveDuplicates();
            assertThat(serverEvents.texts(2)).doesNotHaveDuplicates();
            await().atMost(Duration.ofSeconds(2)).until(() -> !serverEvents.texts(3).isEmpty());
            // the listener runs on the receiving node's own loop
            assertThat(serverEvents.threads).allMatch(t -> t.equals("reliable-udp-io-" + server.localAddress().getPort()));

            toClient.send(0, "pong".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.texts(0).contains("pong"));
            assertThat(server.stats().datagramsReceived()).isPositive();
            assertThat(server.stats().bytesSent()).isPositive();

            toServer.disconnect();
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.disconnected.size() == 1);
            assertThat(serverEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.CLOSED_BY_PEER);
            assertThat(server.peers()).isEmpty();
        }
        assertThat(network.addresses()).as("closing a node closes its port").isEmpty();
    }

    @Test
    void aWrongKeyIsDeniedOverTheInMemoryLinkToo() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(randomKey()).build(), new RecordingListener(), network.open());
             ReliableUdpNode client = ReliableUdpNode.start(config(randomKey()).build(), new RecordingListener(), network.open())) {
            CompletableFuture<Peer> f = client.connect(server.localAddress());
            assertThatThrownBy(() -> f.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(ConnectionFailedException.class);
            assertThat(((ConnectionFailedException) f.exceptionNow()).reason()).isEqualTo(DisconnectReason.DENIED);
            assertThat(server.stats().handshakeFailures()).containsKey("wrong_key");
        }
    }

    @Test
    void reliableOrderedArrivesCompleteAndInOrderOverConditionedLinks() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        InetSocketAddress serverAddress = new InetSocketAddress("127.0.0.1", 41_000);
        InetSocketAddress clientAddress = new InetSocketAddress("127.0.0.1", 41_001);
        // 20% loss, duplicates, reordering and jitter, each direction with its own seed
        network.condition(clientAddress, serverAddress, new LinkConditionerConfig(5, 5, 0.2, 0, 1, 0, 0.05, 0.1, 10, 0, 1 << 20, 11));
        network.condition(serverAddress, clientAddress, new LinkConditionerConfig(5, 5, 0.2, 0, 1, 0, 0.05, 0.1, 10, 0, 1 << 20, 12));
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(NodeConfig.builder().build(), serverEvents, network.open(serverAddress));
             ReliableUdpNode client = ReliableUdpNode.start(NodeConfig.builder().build(), new RecordingListener(), network.open(clientAddress))) {
            assertThatThrownBy(() -> network.open(serverAddress)).isInstanceOf(BindException.class);
            Peer p = client.connect(serverAddress).get(10, TimeUnit.SECONDS);
            int n = 300;
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                sends.add(p.send(0, ByteBuffer.allocate(4).putInt(i).array()));
                if (i % 10 == 9) {
                    Thread.sleep(5); // spread over many packets so that some are lost
                }
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> serverEvents.messages.size() == n);
            for (int i = 0; i < n; i++) {
                assertThat(ByteBuffer.wrap(serverEvents.messages.get(i).payload()).getInt()).isEqualTo(i);
            }
            assertThat(p.stats().channels().get(0).messagesResent()).as("the conditioner lost some").isPositive();
            assertThat(p.stats().rttMillis()).as("and delayed them").isGreaterThan(5f);
        }
    }

    @Test
    void aDatagramToNobodyIsCountedLostAndAFullQueueDrops() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        try (DatagramPort a = network.open(); DatagramPort b = network.open()) {
            a.send(ByteBuffer.wrap(new byte[] {1}), new InetSocketAddress("127.0.0.1", 9));
            assertThat(network.undeliverable()).isEqualTo(1);
            for (int i = 0; i < InMemoryNetwork.QUEUE_LIMIT + 10; i++) {
                a.send(ByteBuffer.wrap(new byte[] {(byte) i, 2, 3}), b.localAddress());
            }
            assertThat(network.overflowed()).isEqualTo(10);
            ByteBuffer in = ByteBuffer.allocate(16);
            assertThat(b.receive(in)).isEqualTo(a.localAddress());
            assertThat(in.position()).isEqualTo(3);
            b.wakeup();
            b.awaitReadable(TimeUnit.SECONDS.toNanos(30)); // returns at once: data waits and a wake-up is pending
            assertThat(b.isOpen()).isTrue();
        }
    }
}
