package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.connection.WireForTests;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-source handshake budget: one source address cannot spend the node's global handshake
 * budget, so a client at another address still connects while it floods; the table behind it stays
 * the same size whatever the number of sources.
 */
@Timeout(30)
class SourceBudgetTest {

    private static long dropped(ReliableUdpNode node, String reason) {
        return node.stats().datagramsDropped().getOrDefault(reason, 0L);
    }

    @Test
    void oneFloodingSourceCannotSpendTheGlobalBudgetAndAnotherClientConnects() throws Exception {
        try (DatagramNode server = DatagramNode.start(loopback().build(), new RecordingListener(), Sessions.DEFAULT);
             DatagramChannel attacker = DatagramChannel.open()) {
            // budgets that do not refill within the test: the global one holds 50, a source's 10
            server.handshakeBudget(0.001, 50);
            server.sourceHandshakeBudget(0.001, 10, true);
            InetAddress flooder = InetAddress.getByName("127.0.0.3");
            InetAddress client = InetAddress.getByName("127.0.0.2");
            for (int last = 4; server.sourceBudgetSlot(client) == server.sourceBudgetSlot(flooder); last++) {
                client = InetAddress.getByName("127.0.0." + last); // another bucket than the flooder's
            }
            attacker.bind(new InetSocketAddress(flooder, 0));
            byte[] request = WireForTests.request(server.config().protocolId());
            int flood = 200;
            for (int i = 0; i < flood; i++) {
                attacker.send(ByteBuffer.wrap(request), target(server));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.stats().datagramsReceived() == flood);
            assertThat(dropped(server, "source_rate_limited")).isEqualTo(flood - 10);
            assertThat(dropped(server, "rate_limited")).isZero();

            NodeConfig clientConfig = NodeConfig.builder().bindAddress(new InetSocketAddress(client, 0)).acceptIncoming(false).build();
            try (ReliableUdpNode c = ReliableUdpNode.start(clientConfig, new RecordingListener())) {
                c.connect(target(server)).get(5, TimeUnit.SECONDS).send(0, "ok".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            }
            assertThat(server.stats().connectionsOpened()).isEqualTo(1);
        }
    }

    @Test
    void loopbackSourcesAreNotLimitedPerSourceByDefault() {
        SourceBudget budget = new SourceBudget(new SplittableRandom(1));
        InetAddress loopback = InetAddress.getLoopbackAddress();
        for (int i = 0; i < 5 * SourceBudget.HANDSHAKE_BURST; i++) {
            assertThat(budget.take(loopback, 0.0)).isTrue();
        }
    }

    @Test
    void aSourceGetsItsBurstThenItsRateAndTheTableStaysBounded() throws Exception {
        SourceBudget budget = new SourceBudget(new SplittableRandom(2));
        budget.budget(100, 10, false);
        InetAddress source = InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 1});
        int taken = 0;
        for (int i = 0; i < 100; i++) {
            taken += budget.take(source, 1.0) ? 1 : 0;
        }
        assertThat(taken).as("the burst").isEqualTo(10);
        assertThat(budget.take(source, 1.0)).isFalse();
        assertThat(budget.take(source, 1.05)).as("0.05 s at 100/s refilled 5").isTrue();

        // 100,000 other sources: each of them gets its first handshake (their buckets are shared, but
        // not exhausted by one datagram each), and the table is the same two arrays of SLOTS
        int refused = 0;
        for (int i = 0; i < 100_000; i++) {
            InetAddress other = InetAddress.getByAddress(new byte[] {10, (byte) (i >>> 16), (byte) (i >>> 8), (byte) i});
            refused += budget.take(other, 2.0 + i * 0.01) ? 0 : 1;
        }
        assertThat(refused).isZero();
        java.lang.reflect.Field tokens = SourceBudget.class.getDeclaredField("tokens");
        tokens.setAccessible(true);
        assertThat((double[]) tokens.get(budget)).hasSize(SourceBudget.SLOTS);
    }
}
