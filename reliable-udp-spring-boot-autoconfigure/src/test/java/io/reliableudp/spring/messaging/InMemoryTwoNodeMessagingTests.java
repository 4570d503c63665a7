package io.reliableudp.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.SendResult;
import io.reliableudp.spring.messaging.Events.Position;
import io.reliableudp.spring.test.InMemoryNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** The two-application tests over the in-memory node, plus shutdown cases that need held acks. */
class InMemoryTwoNodeMessagingTests extends AbstractTwoNodeMessagingTests {

    private final InMemoryNetwork network = new InMemoryNetwork();

    @Override
    protected ReliableUdpNodeFactory nodeFactory() {
        return network.factory();
    }

    @Override
    protected int unreliableMinimumOf(int sent) {
        return sent;
    }

    @Test
    void shutdownFailsWhatIsStillUnacknowledgedAfterTheDrainTimeoutWithCLOSED() throws Exception {
        ConfigurableApplicationContext leaving = startClient("reliable-udp.drain-timeout=300ms");
        extra.add(leaving);
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        t.send("server", "events", new Position("warmup", 0, 0, 0)).get(10, TimeUnit.SECONDS);
        network.hold();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                futures.add(t.send("server", "events", new Position("stuck", 0, 0, i)));
            }
            long start = System.nanoTime();
            leaving.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
        } finally {
            network.release();
        }
        assertThat(futures).allSatisfy(f -> assertThat(f).failsWithin(Duration.ofSeconds(5)).withThrowableThat().havingCause()
                .isInstanceOfSatisfying(ReliableUdpSendException.class, e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.CLOSED)));
    }

    @Test
    void shutdownWaitsForAcksThatArriveWithinTheDrainTimeout() throws Exception {
        ConfigurableApplicationContext leaving = startClient("reliable-udp.drain-timeout=5s");
        extra.add(leaving);
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        t.send("server", "events", new Position("warmup", 0, 0, 0)).get(10, TimeUnit.SECONDS);
        network.hold();
        List<CompletableFuture<SendResult>> futures = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            futures.add(t.send("server", "events", new Position("late", 0, 0, i)));
        }
        Thread releaser = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            network.release();
        });
        leaving.close();
        releaser.join();
        assertThat(futures).allSatisfy(f -> assertThat(f).succeedsWithin(Duration.ofSeconds(1)));
    }

    @Test
    void sendsAfterShutdownFailAtOnce() {
        ConfigurableApplicationContext leaving = startClient();
        ReliableUdpTemplate t = leaving.getBean(ReliableUdpTemplate.class);
        leaving.close();
        assertThat(t.send("server", "events", new Position("late", 0, 0, 0))).failsWithin(Duration.ofSeconds(1))
                .withThrowableThat().havingCause().isInstanceOfSatisfying(ReliableUdpSendException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.CLOSED));
    }
}
