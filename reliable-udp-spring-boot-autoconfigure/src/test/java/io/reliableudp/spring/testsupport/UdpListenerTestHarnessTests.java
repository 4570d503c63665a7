package io.reliableudp.spring.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReplyingReliableUdpOperations;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.test.InMemoryReliableUdp;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.spring.test.ReliableUdpTestUtils;
import io.reliableudp.spring.test.UdpListenerTest;
import io.reliableudp.spring.test.UdpListenerTestHarness;
import io.reliableudp.spring.test.UdpListenerTestHarness.InvocationData;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
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
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.Header;

/**
 * The listener test harness of the test artifact: {@code @UdpListenerTest} on the test class captures each
 * invocation of an identified listener (arguments, result, exception) while the listener answers as
 * usual; the spying variant is {@link UdpListenerTestHarnessSpyTests}.
 */
@SpringBootTest(classes = UdpListenerTestHarnessTests.Station.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = { "reliable-udp.port=0", "spring.main.banner-mode=off" })
@InMemoryReliableUdp
@UdpListenerTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class UdpListenerTestHarnessTests {

    record Fix(long seq, double x) {
    }

    record Receipt(long seq, String from) {
    }

    @Autowired
    ManagedReliableUdpNode node;

    @Autowired
    ReliableUdpTestNetwork network;

    @Autowired
    UdpListenerTestHarness harness;

    ConfigurableApplicationContext rover;
    ReplyingReliableUdpOperations udp;

    @BeforeAll
    void startRover() throws Exception {
        rover = new SpringApplicationBuilder(Rover.class).web(WebApplicationType.NONE)
                .properties("reliable-udp.port=0", "spring.main.banner-mode=off")
                .initializers(network.initializer())
                .run("--reliable-udp.peers.station.address=" + ReliableUdpTestUtils.dialAddress(node));
        ReliableUdpTestUtils.awaitConnected(rover.getBean(ManagedReliableUdpNode.class), "station", Duration.ofSeconds(10));
        udp = rover.getBean(ReplyingReliableUdpOperations.class);
    }

    @AfterAll
    void stopRover() {
        rover.close();
    }

    @Test
    void capturesArgumentsAndResultByListenerId() throws Exception {
        Receipt receipt = udp.sendAndReceive("station", "reliable-ordered", new Fix(7, 1.5), Receipt.class).get(10, TimeUnit.SECONDS);

        InvocationData call = harness.nextInvocation("fixes", Duration.ofSeconds(10));
        assertThat(call.listenerId()).isEqualTo("fixes");
        assertThat(call.arguments()).containsExactly(new Fix(7, 1.5), receipt.from());
        assertThat(call.result()).isEqualTo(receipt);
        assertThat(call.exception()).isNull();
    }

    @Test
    void capturesWhatAListenerThrew() throws Exception {
        assertThatThrownBy(() -> udp.sendAndReceive("station", "reliable-ordered", new Fix(-1, 0), Receipt.class).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(RemoteListenerException.class);

        InvocationData call = harness.nextInvocation("fixes", Duration.ofSeconds(10));
        assertThat(call.arguments().getFirst()).isEqualTo(new Fix(-1, 0));
        assertThat(call.exception()).isInstanceOf(IllegalArgumentException.class).hasMessage("negative sequence");
    }

    @Test
    void anUnknownIdOrAListenerNotCalledFailsClearly() {
        assertThatThrownBy(() -> harness.nextInvocation("nope", Duration.ofSeconds(1)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("no @UdpMessageListener with id 'nope'")
                .hasMessageContaining("fixes");
        assertThatThrownBy(() -> harness.nextInvocation("fixes", Duration.ofMillis(200)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("listener 'fixes' was not invoked within PT0.2S");
        assertThatThrownBy(() -> harness.getSpy("fixes")).hasMessageContaining("spying is off");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(FixListener.class)
    static class Station {
    }

    static class FixListener {
        @UdpMessageListener(id = "fixes", channels = "reliable-ordered")
        Receipt onFix(Fix fix, @Header(ReliableUdpHeaders.PEER_NAME) String from) {
            if (fix.seq() < 0) {
                throw new IllegalArgumentException("negative sequence");
            }
            return new Receipt(fix.seq(), from);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class Rover {
    }
}
