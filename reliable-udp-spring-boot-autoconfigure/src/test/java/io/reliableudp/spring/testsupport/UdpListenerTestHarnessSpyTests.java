package io.reliableudp.spring.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.verify;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReplyingReliableUdpOperations;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.test.InMemoryReliableUdp;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.spring.test.ReliableUdpTestUtils;
import io.reliableudp.spring.test.UdpListenerTest;
import io.reliableudp.spring.test.UdpListenerTestHarness;
import io.reliableudp.spring.testsupport.UdpListenerTestHarnessTests.Fix;
import io.reliableudp.spring.testsupport.UdpListenerTestHarnessTests.FixListener;
import io.reliableudp.spring.testsupport.UdpListenerTestHarnessTests.Receipt;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * {@code @UdpListenerTest(spy = true)} on a configuration of the test: the container calls a Mockito spy
 * of the listener bean, which a test can verify and make fail, and the invocations are still captured.
 */
@SpringBootTest(classes = { UdpListenerTestHarnessTests.Station.class, UdpListenerTestHarnessSpyTests.HarnessConfig.class },
        webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = { "reliable-udp.port=0", "spring.main.banner-mode=off" })
@InMemoryReliableUdp
@Timeout(60)
class UdpListenerTestHarnessSpyTests {

    @Configuration(proxyBeanMethods = false)
    @UdpListenerTest(spy = true)
    static class HarnessConfig {
    }

    @Autowired
    ManagedReliableUdpNode node;

    @Autowired
    ReliableUdpTestNetwork network;

    @Autowired
    UdpListenerTestHarness harness;

    @Test
    void theContainerCallsTheSpyWhichATestCanVerifyAndMakeFail() throws Exception {
        FixListener spy = harness.getSpy("fixes");
        doThrow(new IllegalStateException("spied failure")).when(spy).onFix(eq(new Fix(9, 0)), anyString());

        try (ConfigurableApplicationContext rover = new SpringApplicationBuilder(UdpListenerTestHarnessTests.Rover.class)
                .web(WebApplicationType.NONE).properties("reliable-udp.port=0", "spring.main.banner-mode=off")
                .initializers(network.initializer())
                .run("--reliable-udp.peers.station.address=" + ReliableUdpTestUtils.dialAddress(node))) {
            ReplyingReliableUdpOperations udp = rover.getBean(ReplyingReliableUdpOperations.class);

            assertThatThrownBy(() -> udp.sendAndReceive("station", "reliable-ordered", new Fix(9, 0), Receipt.class).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(RemoteListenerException.class);
            Receipt ok = udp.sendAndReceive("station", "reliable-ordered", new Fix(10, 0), Receipt.class).get(10, TimeUnit.SECONDS);
            assertThat(ok.seq()).isEqualTo(10);
        }
        verify(spy).onFix(eq(new Fix(10, 0)), anyString());
        assertThat(harness.nextInvocation("fixes", Duration.ofSeconds(10)).exception()).hasMessage("spied failure");
        assertThat(harness.nextInvocation("fixes", Duration.ofSeconds(10)).result()).isInstanceOf(Receipt.class)
                .extracting(r -> ((Receipt) r).seq()).isEqualTo(10L);
    }
}
