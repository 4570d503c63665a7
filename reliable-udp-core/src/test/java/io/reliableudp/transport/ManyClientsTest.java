package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** 1000 client nodes (one socket and one virtual I/O thread each) connect to one server. */
@Timeout(120)
class ManyClientsTest {

    private static final int CLIENTS = Integer.getInteger("manyClients.count", 1000);

    @Test
    void thousandClientsConnectSendAndDisconnect() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        NodeConfig clientConfig = loopback().acceptIncoming(false).sendRateHz(10)
                .keepAliveInterval(Duration.ofMillis(500)).timeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(20))
                .socketReceiveBufferSize(0).socketSendBufferSize(0).build();
        List<ReliableUdpNode> clients = new ArrayList<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().maxConnections(CLIENTS).sendRateHz(30)
                .keepAliveInterval(Duration.ofMillis(500)).timeout(Duration.ofSeconds(10)).build(), serverEvents)) {
            List<CompletableFuture<Peer>> connects = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                ReliableUdpNode c = ReliableUdpNode.start(clientConfig, new RecordingListener());
                clients.add(c);
                connects.add(c.connect(target(server)));
            }
            CompletableFuture.allOf(connects.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> server.peers().size() == CLIENTS);
            assertThat(serverEvents.connected).hasSize(CLIENTS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                sends.add(connects.get(i).join().send(0, ByteBuffer.allocate(4).putInt(i).array()));
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> serverEvents.messages.size() == CLIENTS);
            assertThat(serverEvents.messages.stream().map(m -> ByteBuffer.wrap(m.payload()).getInt()).distinct().count())
                    .isEqualTo(CLIENTS);
            assertThat(server.stats().connectionsOpened()).isEqualTo(CLIENTS);
        } finally {
            for (ReliableUdpNode c : clients) {
                c.close();
            }
        }
    }
}
