package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class Ipv6Test {

    static boolean ipv6Loopback() {
        try (DatagramChannel c = DatagramChannel.open(java.net.StandardProtocolFamily.INET6)) {
            c.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void connectsAndExchangesOverIpv6Loopback() throws Exception {
        Assumptions.assumeTrue(ipv6Loopback(), "skipped: this machine has no IPv6 loopback (::1)");
        InetAddress v6 = InetAddress.getByName("::1");
        byte[] key = new byte[32];
        key[0] = 1;
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(NodeConfig.builder().bindAddress(new InetSocketAddress(v6, 0))
                .preSharedKey(key).build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(NodeConfig.builder().bindAddress(new InetSocketAddress(v6, 0))
                     .preSharedKey(key).build(), new RecordingListener())) {
            Peer p = client.connect(new InetSocketAddress(v6, server.localAddress().getPort())).get(5, TimeUnit.SECONDS);
            assertThat(p.address().getAddress()).isInstanceOf(Inet6Address.class);
            p.send(0, "over v6".getBytes(StandardCharsets.UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).contains("over v6"));
            assertThat(serverEvents.connected.get(0).address().getAddress()).isInstanceOf(Inet6Address.class);
        }
    }

    @Test
    void wildcardBoundNodeServesIpv4AndIpv6() throws Exception {
        Assumptions.assumeTrue(ipv6Loopback(), "skipped: this machine has no IPv6 loopback (::1)");
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(NodeConfig.builder().build(), serverEvents);
             ReliableUdpNode v4 = ReliableUdpNode.start(NodeConfig.builder().bindAddress(new InetSocketAddress("127.0.0.1", 0)).build(), new RecordingListener());
             ReliableUdpNode v6 = ReliableUdpNode.start(NodeConfig.builder().bindAddress(new InetSocketAddress("::1", 0)).build(), new RecordingListener())) {
            int port = server.localAddress().getPort();
            v4.connect(new InetSocketAddress("127.0.0.1", port)).get(5, TimeUnit.SECONDS);
            v6.connect(new InetSocketAddress("::1", port)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 2);
        }
    }
}
