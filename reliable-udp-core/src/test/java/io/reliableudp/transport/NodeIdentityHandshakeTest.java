package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Static identities over real UDP on loopback: both ends prove their keys and check the other's
 * against their allow-lists, the application sees which entry matched, a key not on a list (or a
 * stolen pre-shared key without an allowed key) is denied with a reason that names the problem, and
 * keys rotate at run time without touching live connections.
 */
@Timeout(60)
class NodeIdentityHandshakeTest {

    private static final NodeIdentity SERVER = NodeIdentity.generate();
    private static final NodeIdentity CLIENT = NodeIdentity.generate();

    private static NodeConfig.Builder node(NodeIdentity me, PeerIdentity... allowed) throws Exception {
        return loopback().identity(me).allowedPeers(List.of(allowed));
    }

    private static long failures(ReliableUdpNode node, String reason) {
        return node.stats().handshakeFailures().getOrDefault(reason, 0L);
    }

    @Test
    void bothEndsProveTheirKeysAndSeeTheMatchingEntry() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        PeerIdentity orders = new PeerIdentity("orders", CLIENT.publicKey());
        PeerIdentity gateway = new PeerIdentity("gateway", SERVER.publicKey());
        try (ReliableUdpNode server = ReliableUdpNode.start(node(SERVER, orders).build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(node(CLIENT, gateway).acceptIncoming(false).build(),
                     new RecordingListener())) {
            Peer toServer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            assertThat(toServer.identity()).isEqualTo(gateway);
            toServer.send(0, "hello".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.messages.size() == 1);
            // the listener's peer is the authenticated client
            assertThat(serverEvents.messages.get(0).peer().identity()).isEqualTo(orders);
            assertThat(serverEvents.connected.get(0).identity()).isEqualTo(orders);
        }
    }

    @Test
    void aClientKeyNotOnTheServersListIsDeniedWithAReasonThatNamesIt() throws Exception {
        NodeIdentity stranger = NodeIdentity.generate();
        try (ReliableUdpNode server = ReliableUdpNode.start(node(SERVER, new PeerIdentity("orders", CLIENT.publicKey())).build(),
                new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(node(stranger, new PeerIdentity("gateway", SERVER.publicKey()))
                     .acceptIncoming(false).build(), new RecordingListener())) {
            assertThatThrownBy(() -> client.connect(target(server)).get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ConnectionFailedException.class)
                    .hasMessageContaining("unknown_peer_key")
                    .satisfies(e -> assertThat(((ConnectionFailedException) e).reason()).isEqualTo(DisconnectReason.DENIED));
            assertThat(failures(server, "unknown_peer_key")).isEqualTo(1);
            assertThat(server.peers()).isEmpty();
            assertThat(server.stats().connectionsOpened()).isZero();
        }
    }

    @Test
    void aServerKeyNotOnTheClientsListIsRefusedByTheClient() throws Exception {
        NodeIdentity impostor = NodeIdentity.generate();
        try (ReliableUdpNode server = ReliableUdpNode.start(node(impostor, new PeerIdentity("orders", CLIENT.publicKey())).build(),
                new RecordingListener());
             ReliableUdpNode client = ReliableUdpNode.start(node(CLIENT, new PeerIdentity("gateway", SERVER.publicKey()))
                     .acceptIncoming(false).build(), new RecordingListener())) {
            assertThatThrownBy(() -> client.connect(target(server)).get(5, TimeUnit.SECONDS))
                    .cause().isInstanceOf(ConnectionFailedException.class)
                    .hasMessageContaining("unknown_peer_key").hasMessageContaining(impostor.publicKey().toBase64());
            assertThat(failures(client, "unknown_peer_key")).isEqualTo(1);
            assertThat(server.stats().connectionsOpened()).isZero();
        }
    }

    @Test
    void aStolenPreSharedKeyWithoutAnAllowedStaticKeyIsDenied() throws Exception {
        byte[] psk = new byte[32];
        new SecureRandom().nextBytes(psk);
        try (ReliableUdpNode server = ReliableUdpNode.start(node(SERVER, new PeerIdentity("orders", CLIENT.publicKey()))
                .preSharedKey(psk).build(), new RecordingListener());
             ReliableUdpNode withOwnKey = ReliableUdpNode.start(node(NodeIdentity.generate(),
                     new PeerIdentity("gateway", SERVER.publicKey())).preSharedKey(psk).acceptIncoming(false).build(),
                     new RecordingListener());
             ReliableUdpNode pskOnly = ReliableUdpNode.start(loopback().preSharedKey(psk).acceptIncoming(false).build(),
                     new RecordingListener());
             ReliableUdpNode allowed = ReliableUdpNode.start(node(CLIENT, new PeerIdentity("gateway", SERVER.publicKey()))
                     .preSharedKey(psk).acceptIncoming(false).build(), new RecordingListener())) {
            assertThatThrownBy(() -> withOwnKey.connect(target(server)).get(5, TimeUnit.SECONDS))
                    .cause().hasMessageContaining("unknown_peer_key");
            assertThatThrownBy(() -> pskOnly.connect(target(server)).get(5, TimeUnit.SECONDS))
                    .cause().hasMessageContaining("mode_mismatch");
            assertThat(failures(server, "unknown_peer_key")).isEqualTo(1);
            assertThat(failures(server, "mode_mismatch")).isEqualTo(1);
            // the pre-shared key and an allowed key together: admitted
            assertThat(allowed.connect(target(server)).get(5, TimeUnit.SECONDS).identity().name()).isEqualTo("gateway");
            assertThat(server.stats().connectionsOpened()).isEqualTo(1);
        }
    }

    @Test
    void keysRotateAtRunTimeWithoutTouchingLiveConnections() throws Exception {
        NodeIdentity oldKey = CLIENT;
        NodeIdentity newKey = NodeIdentity.generate();
        PeerIdentity gateway = new PeerIdentity("gateway", SERVER.publicKey());
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(node(SERVER, new PeerIdentity("orders", oldKey.publicKey()),
                new PeerIdentity("orders", newKey.publicKey())).build(), serverEvents);
             ReliableUdpNode oldClient = ReliableUdpNode.start(node(oldKey, gateway).acceptIncoming(false).build(),
                     new RecordingListener());
             ReliableUdpNode newClient = ReliableUdpNode.start(node(newKey, gateway).acceptIncoming(false).build(),
                     new RecordingListener());
             ReliableUdpNode lateOldClient = ReliableUdpNode.start(node(oldKey, gateway).acceptIncoming(false).build(),
                     new RecordingListener())) {
            // both keys accepted at once, under one name
            Peer live = oldClient.connect(target(server)).get(5, TimeUnit.SECONDS);
            newClient.connect(target(server)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 2);
            assertThat(serverEvents.connected).extracting(p -> p.identity().key())
                    .containsExactlyInAnyOrder(oldKey.publicKey(), newKey.publicKey());

            // the old key removed: new handshakes with it are denied, the live connection goes on
            server.allowedPeers(List.of(new PeerIdentity("orders", newKey.publicKey())));
            assertThatThrownBy(() -> lateOldClient.connect(target(server)).get(5, TimeUnit.SECONDS))
                    .cause().hasMessageContaining("unknown_peer_key");
            live.send(0, "still here".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).contains("still here"));
            assertThat(live.state()).isEqualTo(PeerState.CONNECTED);

            // the server's own key rotates: a client that allows the new key connects
            NodeIdentity serverNext = NodeIdentity.generate();
            server.identity(serverNext);
            try (ReliableUdpNode next = ReliableUdpNode.start(node(newKey, new PeerIdentity("gateway", serverNext.publicKey()))
                    .acceptIncoming(false).build(), new RecordingListener())) {
                assertThat(next.connect(target(server)).get(5, TimeUnit.SECONDS).identity().key()).isEqualTo(serverNext.publicKey());
            }
            assertThat(live.state()).isEqualTo(PeerState.CONNECTED);
        }
    }
}
