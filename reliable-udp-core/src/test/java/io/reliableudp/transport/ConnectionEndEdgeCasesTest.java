package io.reliableudp.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import io.reliableudp.connection.WireForTests;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Edge cases of connection ends and counters, on real nodes over the in-memory network (a repeated
 * response, sends after the end) and over loopback (the conditioner's drops and duplicates).
 */
@Timeout(60)
@ExtendWith(SendFuturesEndOnce.class)
class ConnectionEndEdgeCasesTest {

    private static LinkConditionerConfig delay(double millis) {
        return new LinkConditionerConfig(millis, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
    }

    private static LinkConditionerConfig loss(double loss) {
        return new LinkConditionerConfig(0, 0, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
    }

    /**
     * A client whose confirmations are late keeps repeating its RESPONSE. The server answers each
     * repeat with a keepalive; a repeated response is a verified datagram of the connection (cookie and,
     * with a key, proof checked), so it must count as hearing from the client. Otherwise the
     * server would time the connection out while the client was still repeating, and the next repeat would
     * make a new connection: several connections (and TIMEOUT disconnects) for one client.
     */
    @Test
    void aClientRepeatingItsResponseKeepsOneServerConnection() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        RecordingListener clientEvents = new RecordingListener();
        NodeConfig serverConfig = NodeConfig.builder().keepAliveInterval(Duration.ofMillis(100))
                .timeout(Duration.ofMillis(500)).build();
        NodeConfig clientConfig = NodeConfig.builder().acceptIncoming(false).keepAliveInterval(Duration.ofMillis(100))
                .timeout(Duration.ofSeconds(5)).connectTimeout(Duration.ofSeconds(6)).build();
        try (ReliableUdpNode server = ReliableUdpNode.start(serverConfig, serverEvents, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(clientConfig, clientEvents, network.open())) {
            // every datagram server -> client (challenge, confirmations) takes 1.5 s: three server timeouts
            network.condition(server.localAddress(), client.localAddress(), delay(1500));
            Peer toServer = client.connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            network.condition(server.localAddress(), client.localAddress(), null);
            toServer.send(0, "after".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);

            assertThat(serverEvents.disconnected).as("server-side disconnects while the client repeated its response").isEmpty();
            assertThat(server.stats().connectionsOpened()).as("connections the server opened for one client").isEqualTo(1);
            assertThat(serverEvents.connected).hasSize(1);
            assertThat(serverEvents.texts(0)).containsExactly("after");
        }
    }

    /**
     * A send to a peer that has gone (here: timed out) must not fail with the reason of the
     * disconnect (TIMEOUT), as if it had been queued and gone unanswered. It never left: it is
     * refused with NOT_CONNECTED. Messages pending when the timeout struck still fail with TIMEOUT.
     * The pending message is queued while the client is still heard (its keepalives reach the
     * server, nothing reaches it back, so nothing is acknowledged); only then does the client vanish.
     */
    @Test
    void aSendAfterATimeoutIsRefusedAsNotConnected() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        // the client's own timeout is long: it must not time out (and say goodbye) while its link is cut
        NodeConfig serverConfig = NodeConfig.builder().keepAliveInterval(Duration.ofMillis(50)).timeout(Duration.ofMillis(800)).build();
        NodeConfig clientConfig = NodeConfig.builder().acceptIncoming(false).keepAliveInterval(Duration.ofMillis(50))
                .timeout(Duration.ofSeconds(30)).build();
        try (ReliableUdpNode server = ReliableUdpNode.start(serverConfig, serverEvents, network.open())) {
            DatagramNode client = DatagramNode.start(clientConfig, new RecordingListener(), Sessions.DEFAULT, network.open());
            client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 1);
            Peer toClient = serverEvents.connected.get(0);
            network.condition(server.localAddress(), client.localAddress(), loss(1));
            CompletableFuture<Delivery> pending = toClient.send(0, "pending".getBytes(UTF_8));
            client.abort();
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.disconnected.size() == 1);
            assertThat(serverEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.TIMEOUT);

            CompletableFuture<Delivery> late = toClient.send(0, "late".getBytes(UTF_8));
            assertThat(failure(pending)).isEqualTo(DeliveryFailure.TIMEOUT);
            assertThat(failure(late)).isEqualTo(DeliveryFailure.NOT_CONNECTED);
        }
    }

    /**
     * A peer that cannot keep up (its send queue stays full for a whole timeout) is
     * disconnected with PROTOCOL_ERROR; what was pending fails with DISCONNECTED (documented in
     * connection.md), later sends are refused with NOT_CONNECTED, and the peer is told: its node
     * reports CLOSED_BY_PEER. The client's messages never reach the server (its PAYLOAD frames are
     * dropped on the way out, so nothing is acknowledged), while its keepalives and DISCONNECT frames
     * pass, and the server's keepalives keep the client from timing out.
     */
    @Test
    void aPeerThatCannotKeepUpEndsWithProtocolErrorAndPendingSendsFailDisconnected() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        MessageConfig small = MessageConfig.defaults().toBuilder()
                .channels(List.of(new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, 64, 1 << 20))).build();
        RecordingListener clientEvents = new RecordingListener();
        RecordingListener serverEvents = new RecordingListener();
        // keepalives every 100 ms (not the 500 ms default): the client's 600 ms timeout must only end it through its full queue
        NodeConfig serverConfig = NodeConfig.builder().message(small).keepAliveInterval(Duration.ofMillis(100))
                .timeout(Duration.ofSeconds(20)).build();
        NodeConfig clientConfig = NodeConfig.builder().message(small).acceptIncoming(false)
                .keepAliveInterval(Duration.ofMillis(100)).timeout(Duration.ofMillis(600)).build();
        AtomicBoolean dropMessages = new AtomicBoolean();
        DroppingPort clientPort = new DroppingPort(network.open(),
                d -> dropMessages.get() && DroppingPort.type(d) == WireForTests.PAYLOAD);
        try (ReliableUdpNode server = ReliableUdpNode.start(serverConfig, serverEvents, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(clientConfig, clientEvents, clientPort)) {
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 1);
            dropMessages.set(true);
            List<CompletableFuture<Delivery>> pending = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                pending.add(toServer.send(0, ("m" + i).getBytes(UTF_8)));
            }
            assertThat(failure(toServer.send(0, "refused".getBytes(UTF_8)))).isEqualTo(DeliveryFailure.QUEUE_FULL);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50)).until(() -> {
                toServer.send(0, "more".getBytes(UTF_8));
                return toServer.state() == PeerState.DISCONNECTED;
            });
            assertThat(toServer.disconnectReason()).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
            // the listener hears of it on its own thread, after the peer's state changed: wait for the event
            await().atMost(Duration.ofSeconds(5)).until(() -> !clientEvents.disconnected.isEmpty());
            assertThat(clientEvents.disconnected).extracting(RecordingListener.Disconnected::reason)
                    .containsExactly(DisconnectReason.PROTOCOL_ERROR);
            for (CompletableFuture<Delivery> f : pending) {
                assertThat(failure(f)).isEqualTo(DeliveryFailure.DISCONNECTED);
            }
            assertThat(failure(toServer.send(0, "after".getBytes(UTF_8)))).isEqualTo(DeliveryFailure.NOT_CONNECTED);
            // the peer is told, well before its own 20 s timeout
            await().atMost(Duration.ofSeconds(5)).until(() -> !serverEvents.disconnected.isEmpty());
            assertThat(serverEvents.disconnected).extracting(RecordingListener.Disconnected::reason)
                    .containsExactly(DisconnectReason.CLOSED_BY_PEER);
            assertThat(serverEvents.messages).as("none of the client's messages reached the server").isEmpty();
            assertThat(clientPort.dropped.get()).isPositive();
        }
    }

    /**
     * Datagrams the node's link conditioner drops stand for datagrams the network lost: the node
     * sent them, so they count in {@code datagramsSent}/{@code bytesSent}, and a conditioner's
     * duplicate is not a second datagram sent. The node's counters equal what its only connection
     * sent, whatever the conditioner did.
     */
    @Test
    void datagramsTheConditionerDropsOrDuplicatesAreCountedOnceAsSent() throws Exception {
        LinkConditionerConfig lossy = new LinkConditionerConfig(0, 0, 0.3, 0, 1, 0, 0.2, 0, 0, 0, 1 << 20, 11);
        try (ReliableUdpNode server = ReliableUdpNode.start(NodeConnectTest.loopback().build(), new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(NodeConnectTest.loopback().acceptIncoming(false)
                     .linkConditioner(lossy).build(), new RecordingListener())) {
            Peer toServer = client.connect(NodeConnectTest.target(server)).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sent = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                sent.add(toServer.send(0, new byte[100]));
                if (i % 10 == 9) {
                    toServer.flush();
                }
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            toServer.disconnect(); // nothing goes out to this peer after that
            PeerStats peer = toServer.stats();
            NodeStats node = client.stats();
            assertThat(node.bytesSent()).as("node bytes sent vs the connection's own count").isEqualTo(peer.bytesSent());
            assertThat(peer.bytesSent()).isPositive();
        }
    }

    private static DeliveryFailure failure(CompletableFuture<Delivery> f) throws Exception {
        try {
            f.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(DeliveryException.class);
            return ((DeliveryException) e.getCause()).reason();
        }
        throw new AssertionError("the send succeeded");
    }
}
