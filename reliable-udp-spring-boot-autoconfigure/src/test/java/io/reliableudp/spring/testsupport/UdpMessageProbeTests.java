package io.reliableudp.spring.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpOperations;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.test.InMemoryReliableUdp;
import io.reliableudp.spring.test.ReceivedUdpMessage;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.spring.test.ReliableUdpTestUtils;
import io.reliableudp.spring.test.UdpMessageProbe;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The probe of the test artifact on a station's node, with a rover context sending to it: typed payloads
 * with their headers and peer, in order, beside the application's listeners; a clear failure saying what
 * did arrive; a bound on what it keeps.
 */
@SpringBootTest(classes = UdpMessageProbeTests.Station.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = { "reliable-udp.port=0", "spring.main.banner-mode=off", "reliable-udp.headers.inbound=app_*" })
@InMemoryReliableUdp
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class UdpMessageProbeTests {

    record Fix(long seq, double x) {
    }

    @Autowired
    ManagedReliableUdpNode node;

    @Autowired
    ReliableUdpTestNetwork network;

    @Autowired
    ReliableUdpMessageMapper mapper;

    ConfigurableApplicationContext rover;
    ReliableUdpOperations udp;

    @BeforeAll
    void startRover() throws Exception {
        rover = new SpringApplicationBuilder(Rover.class).web(WebApplicationType.NONE)
                .properties("reliable-udp.port=0", "spring.main.banner-mode=off")
                .initializers(network.initializer())
                .run("--reliable-udp.peers.station.address=" + ReliableUdpTestUtils.dialAddress(node));
        ReliableUdpTestUtils.awaitConnected(rover.getBean(ManagedReliableUdpNode.class), "station", Duration.ofSeconds(10));
        udp = rover.getBean(ReliableUdpOperations.class);
    }

    @AfterAll
    void stopRover() {
        rover.close();
    }

    @Test
    void takesTheNextMessagesTypedWithHeadersAndPeer() throws Exception {
        try (UdpMessageProbe<Fix> fixes = UdpMessageProbe.subscribe(node, "reliable-ordered", Fix.class, mapper, 100)) {
            for (int i = 1; i <= 3; i++) {
                udp.send("station", "reliable-ordered", new Fix(i, i * 0.5), Map.of("app_tenant", "blue")).get(10, TimeUnit.SECONDS);
            }
            List<ReceivedUdpMessage<Fix>> got = fixes.next(3, Duration.ofSeconds(10));

            assertThat(got).extracting(ReceivedUdpMessage::payload).containsExactly(new Fix(1, 0.5), new Fix(2, 1.0), new Fix(3, 1.5));
            ReceivedUdpMessage<Fix> first = got.getFirst();
            assertThat(first.peerAddress()).isEqualTo(rover.getBean(ManagedReliableUdpNode.class).localAddress());
            assertThat(first.peerName()).isEqualTo(ReliableUdpTestUtils.dialAddress(rover.getBean(ManagedReliableUdpNode.class)));
            assertThat(first.channel().name()).isEqualTo("reliable-ordered");
            assertThat(first.header(ReliableUdpHeaders.CHANNEL_NAME)).isEqualTo("reliable-ordered");
            assertThat(first.header("app_tenant")).as("a carried header the application lets through").isEqualTo("blue");
        }
    }

    @Test
    void aWaitThatRunsOutSaysWhatDidArrive() throws Exception {
        try (UdpMessageProbe<String> texts = UdpMessageProbe.subscribe(node, "reliable-ordered", String.class)) {
            udp.send("station", "reliable-ordered", "only one").get(10, TimeUnit.SECONDS);

            assertThatThrownBy(() -> texts.next(2, Duration.ofMillis(500)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("expected 2 message(s) on channel 'reliable-ordered'")
                    .hasMessageContaining("got 1: [from 127.0.0.1:")
                    .hasMessageContaining(": only one]");
        }
    }

    @Test
    void aPayloadOfAnotherTypeFailsNamingIt() throws Exception {
        try (UdpMessageProbe<Fix> fixes = UdpMessageProbe.subscribe(node, "reliable-ordered", Fix.class)) {
            udp.send("station", "reliable-ordered", new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS);

            assertThatThrownBy(() -> fixes.next(Duration.ofSeconds(10)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("on channel 'reliable-ordered'")
                    .hasMessageContaining("is no " + Fix.class.getName());
        }
    }

    @Test
    void keepsAtMostItsCapacityAndCountsTheRest() throws Exception {
        try (UdpMessageProbe<String> texts = UdpMessageProbe.subscribe(node, "reliable-ordered", String.class, mapper, 2)) {
            List<CompletableFuture<?>> sent = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                sent.add(udp.send("station", "reliable-ordered", "m" + i));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> texts.droppedCount() == 3);

            assertThat(texts.next(2, Duration.ofSeconds(10))).extracting(ReceivedUdpMessage::payload).containsExactly("m0", "m1");
            assertThatThrownBy(() -> texts.next(Duration.ofMillis(200))).hasMessageContaining("3 dropped because the probe was full (capacity 2)");
        }
    }

    @Test
    void aClosedProbeTakesNothingMore() throws Exception {
        UdpMessageProbe<String> texts = UdpMessageProbe.subscribe(node, "reliable-ordered", String.class);
        texts.close();
        udp.send("station", "reliable-ordered", "after close").get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> texts.next(Duration.ofMillis(200))).hasMessageContaining("got 0");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Station {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Rover {
    }
}
