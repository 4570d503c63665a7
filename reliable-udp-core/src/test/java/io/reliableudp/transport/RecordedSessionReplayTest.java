package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An attacker on the path records a whole encrypted connection (handshake and frames, client to
 * server), waits until it has ended, and sends the recording again from the client's address while
 * the recorded cookie is still within its lifetime. Nothing of it may count: no connection opens, no
 * message is delivered a second time, and the server's counters say why. In every mode, plain
 * included: the cookie makes one connection whatever the mode (plain frames themselves carry no key,
 * but without a connection they are frames from an unknown sender).
 */
@Timeout(60)
class RecordedSessionReplayTest {

    private static final int MESSAGES = 200;

    /** The node settings of each mode: a pre-shared key, identities, both, or none (plain frames are not protected, the handshake is). */
    private static NodeConfig.Builder mode(String mode, boolean server) throws Exception {
        NodeConfig.Builder b = loopback();
        if (mode.contains("psk")) {
            b.preSharedKey(PSK);
        }
        if (mode.contains("identity")) {
            b.identity(server ? SERVER : CLIENT)
                    .allowedPeers(List.of(new PeerIdentity(server ? "client" : "server", (server ? CLIENT : SERVER).publicKey())));
        }
        return b;
    }

    private static final byte[] PSK = new byte[32];
    private static final NodeIdentity SERVER = NodeIdentity.generate();
    private static final NodeIdentity CLIENT = NodeIdentity.generate();

    static {
        new SecureRandom().nextBytes(PSK);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"psk", "identity", "psk+identity", "plain"})
    void aRecordedSessionSentAgainOpensNothingAndDeliversNothingTwice(String mode) throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(mode(mode, true).build(), serverEvents);
             UdpProxy proxy = new UdpProxy(target(server))) {
            try (ReliableUdpNode client = ReliableUdpNode.start(mode(mode, false).acceptIncoming(false).build(),
                    new RecordingListener())) {
                Peer p = client.connect(proxy.address()).get(5, TimeUnit.SECONDS);
                List<CompletableFuture<Delivery>> sent = new ArrayList<>();
                for (int i = 0; i < MESSAGES; i++) {
                    sent.add(p.send(0, ("message " + i).getBytes(UTF_8)));
                }
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
                p.disconnect();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().isEmpty());
            assertThat(serverEvents.messages).hasSize(MESSAGES);
            List<byte[]> recording = List.copyOf(proxy.fromClient);
            long receivedBefore = server.stats().datagramsReceived();

            for (byte[] d : recording) {
                proxy.inject(d); // from the address the server knew the client by, well within the cookie's 10 s
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> server.stats().datagramsReceived() >= receivedBefore + recording.size());
            // let whatever the replay might have started settle (the server would confirm and send)
            Thread.sleep(300);

            NodeStats stats = server.stats();
            System.out.println(mode + ": replayed " + recording.size() + " datagrams: connectionsOpened=" + stats.connectionsOpened()
                    + " messages=" + serverEvents.messages.size() + " handshakeFailures=" + stats.handshakeFailures()
                    + " dropped=" + stats.datagramsDropped());
            assertThat(stats.connectionsOpened()).as("connections the server opened").isEqualTo(1);
            assertThat(serverEvents.connected).hasSize(1);
            assertThat(serverEvents.messages).as("messages delivered").hasSize(MESSAGES);
            assertThat(stats.handshakeFailures()).as("why the replayed response opened nothing").containsKey("replayed_response");
        }
    }
}
