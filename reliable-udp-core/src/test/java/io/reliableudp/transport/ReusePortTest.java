package io.reliableudp.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two nodes, each with its own loop, on two UDP ports bound to the same address and port with
 * SO_REUSEPORT (what a node with N I/O loops does): nothing shared stops them, and the
 * kernel's spreading of clients makes both accept connections.
 */
@Timeout(120)
class ReusePortTest {

    @Test
    void twoNodesOnOnePortBothAcceptConnections() throws Exception {
        try (DatagramChannel probe = DatagramChannel.open()) {
            Assumptions.assumeTrue(probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT),
                    "SO_REUSEPORT is not supported here");
        }
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        UdpDatagramPort first = UdpDatagramPort.open(any, 0, 0, true);
        InetSocketAddress shared = first.localAddress();
        UdpDatagramPort second = UdpDatagramPort.open(shared, 0, 0, true);
        assertThat(second.localAddress()).isEqualTo(shared);
        RecordingListener events1 = new RecordingListener();
        RecordingListener events2 = new RecordingListener();
        NodeConfig config = NodeConfig.builder().bindAddress(shared).build();
        try (ReliableUdpNode server1 = ReliableUdpNode.start(config, events1, first);
             ReliableUdpNode server2 = ReliableUdpNode.start(config, events2, second)) {
            // the kernel picks a socket by a hash of the client's address: open clients until both got some
            // (each client lands on either with probability 1/2, so 60 tries all on one side: 2^-59)
            int clients = 0;
            while ((events1.connected.isEmpty() || events2.connected.isEmpty()) && clients < 60) {
                clients++;
                try (ReliableUdpNode client = ReliableUdpNode.start(NodeConfig.builder()
                        .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).acceptIncoming(false).build(),
                        new RecordingListener())) {
                    Peer p = client.connect(shared).get(10, TimeUnit.SECONDS);
                    String text = "client-" + clients;
                    p.send(0, text.getBytes(UTF_8)).get(10, TimeUnit.SECONDS);
                    await().atMost(Duration.ofSeconds(10)).until(() -> events1.texts(0).contains(text) || events2.texts(0).contains(text));
                    // one connection, on exactly one of the two nodes
                    assertThat(events1.texts(0).contains(text)).isNotEqualTo(events2.texts(0).contains(text));
                }
            }
            assertThat(events1.connected).as("connections accepted by the first node").isNotEmpty();
            assertThat(events2.connected).as("connections accepted by the second node").isNotEmpty();
            assertThat(server1.stats().connectionsOpened() + server2.stats().connectionsOpened()).isEqualTo(clients);
            assertThat(server1.stats().handshakeFailures()).isEmpty();
            assertThat(server2.stats().handshakeFailures()).isEmpty();
        }
    }
}
