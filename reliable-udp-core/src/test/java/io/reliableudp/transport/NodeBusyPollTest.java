package io.reliableudp.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The receive busy-poll window over real sockets: datagrams read by the non-blocking polls and by the
 * blocking receive in turn, application-thread sends while the channel is non-blocking, and the node
 * still ticking and closing properly after its windows.
 */
@Timeout(30)
class NodeBusyPollTest {

    @ParameterizedTest
    @EnumSource(ReceiveThreadMode.class)
    void pingPongBurstAndDisconnectWithABusyPollWindow(ReceiveThreadMode mode) throws Exception {
        Duration window = Duration.ofMillis(1);
        int rounds = 300;
        CountDownLatch done = new CountDownLatch(1);
        AtomicInteger pongs = new AtomicInteger();
        List<String> received = java.util.Collections.synchronizedList(new ArrayList<>());
        NodeListener echo = (peer, channel, id, data) -> {
            if (channel == 0) {
                peer.send(0, data);
                peer.flush();
            } else {
                received.add(new String(data, UTF_8));
            }
        };
        List<DisconnectReason> disconnects = new java.util.concurrent.CopyOnWriteArrayList<>();
        NodeListener serverEvents = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                echo.onMessage(peer, channel, messageId, payload);
            }

            @Override
            public void onDisconnected(Peer peer, DisconnectReason reason) {
                disconnects.add(reason);
            }
        };
        NodeListener pinger = (peer, channel, id, data) -> {
            int n = pongs.incrementAndGet();
            assertThat(new String(data, UTF_8)).isEqualTo("ping-" + (n - 1));
            if (n == rounds) {
                done.countDown();
            } else {
                peer.send(0, ("ping-" + n).getBytes(UTF_8));
                peer.flush();
            }
        };
        NodeConfig.Builder config = NodeConnectTest.loopback().receiveThreadMode(mode).receiveBusyPoll(window);
        try (ReliableUdpNode server = ReliableUdpNode.start(config.build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(config.acceptIncoming(false).build(), pinger)) {
            assertThat(server.config().receiveBusyPoll()).isEqualTo(window);
            Peer toServer = client.connect(NodeConnectTest.target(server)).get(5, TimeUnit.SECONDS);
            toServer.send(0, "ping-0".getBytes(UTF_8));
            toServer.flush();
            // meanwhile an application thread streams on channel 1 while the server spins (non-blocking channel)
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                String text = "burst-" + i;
                expected.add(text);
                toServer.send(1, text.getBytes(UTF_8));
                if (i % 50 == 0) {
                    toServer.flush();
                }
            }
            toServer.flush();
            assertThat(done.await(20, TimeUnit.SECONDS)).as("all %d round trips", rounds).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == expected.size());
            assertThat(server.config().message().channels().get(1).mode().isReliable()).isTrue();
            assertThat(received).containsExactlyInAnyOrderElementsOf(expected);
            // idle now: windows closed, the loops are back in the blocking receive, keepalives keep the link up
            Thread.sleep(300);
            assertThat(toServer.state()).isEqualTo(PeerState.CONNECTED);
            toServer.disconnect();
            await().atMost(Duration.ofSeconds(5)).until(() -> disconnects.size() == 1);
            assertThat(disconnects.get(0)).isEqualTo(DisconnectReason.CLOSED_BY_PEER);
            assertThat(server.stats().listenerErrors()).isZero();
            assertThat(client.stats().listenerErrors()).isZero();
        }
    }
}
