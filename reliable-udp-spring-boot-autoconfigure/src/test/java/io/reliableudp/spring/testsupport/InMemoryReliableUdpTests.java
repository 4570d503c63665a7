package io.reliableudp.spring.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpOperations;
import io.reliableudp.spring.test.InMemoryReliableUdp;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.spring.test.ReliableUdpTestUtils;
import io.reliableudp.transport.Peer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The test artifact used from another module, as an application's test would: {@code @SpringBootTest}
 * with {@link InMemoryReliableUdp} runs the station on the shared in-memory network, a rover context
 * started in the test joins the same network, and 200 ordered messages cross a lossy link (real
 * resends, not a fake that bypasses the protocol).
 */
@SpringBootTest(classes = InMemoryReliableUdpTests.Station.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = { "reliable-udp.port=0", "spring.main.banner-mode=off" })
@InMemoryReliableUdp
@Timeout(60)
class InMemoryReliableUdpTests {

    @Autowired
    ManagedReliableUdpNode node;

    @Autowired
    ReliableUdpTestNetwork network;

    @Autowired
    Station station;

    @Test
    void theNodeRunsOnTheInMemoryNetworkAndAnotherContextReachesIt() throws Exception {
        assertThat(network).isSameAs(ReliableUdpTestNetwork.shared());
        int port = ReliableUdpTestUtils.boundPort(node);
        // the node's port is one of the network's, not a socket of the host
        assertThat(network.network().addresses()).contains(node.localAddress());
        try (ConfigurableApplicationContext rover = new SpringApplicationBuilder(Rover.class).web(WebApplicationType.NONE)
                .properties("reliable-udp.port=0", "spring.main.banner-mode=off",
                        "reliable-udp.peers.station.address=" + ReliableUdpTestUtils.dialAddress(node))
                .initializers(network.initializer())
                .run()) {
            ManagedReliableUdpNode roverNode = rover.getBean(ManagedReliableUdpNode.class);
            Peer toStation = ReliableUdpTestUtils.awaitConnected(roverNode, "station", Duration.ofSeconds(10));
            assertThat(toStation.address().getPort()).isEqualTo(port);
            ReliableUdpTestUtils.awaitConnectedPeers(node, 1, Duration.ofSeconds(10));
            // 20 % loss on the rover's datagrams to the station, seeded
            InetSocketAddress roverAddress = roverNode.localAddress();
            network.condition(roverAddress, node.localAddress(),
                    new LinkConditionerConfig(0, 0, 0.2, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7));
            try {
                ReliableUdpOperations udp = rover.getBean(ReliableUdpOperations.class);
                List<CompletableFuture<?>> sent = new java.util.ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    sent.add(udp.send("station", "reliable-ordered", "m" + i));
                }
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(10)).until(() -> station.received.size() == 200);
                assertThat(station.received).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 200).mapToObj(i -> "m" + i).toList());
                ChannelStats ordered = toStation.stats().channels().get(0);
                assertThat(ordered.messagesResent()).as("the lossy link made the real protocol resend").isPositive();
            } finally {
                network.condition(roverAddress, node.localAddress(), null);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Station {

        final List<String> received = new CopyOnWriteArrayList<>();

        @UdpMessageListener(channels = "reliable-ordered")
        void onMessage(String text) {
            received.add(text);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Rover {
    }
}
