package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every RTT sample of the packet layer reaches {@link NodeListener#onRttSample}, over real loopback. */
@Timeout(30)
class NodeRttSampleTest {

    record Sample(Peer peer, float rttMillis, String thread) {
    }

    static final class SampleListener implements NodeListener {
        final List<Sample> samples = new CopyOnWriteArrayList<>();
        final List<Peer> connected = new CopyOnWriteArrayList<>();

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
        }

        @Override
        public void onConnected(Peer peer) {
            connected.add(peer);
        }

        @Override
        public void onRttSample(Peer peer, float rttMillis) {
            samples.add(new Sample(peer, rttMillis, Thread.currentThread().getName()));
        }
    }

    @Test
    void bothSidesSeeOneSampleOfPlausibleValuePerAckedPacket() throws Exception {
        SampleListener serverEvents = new SampleListener();
        SampleListener clientEvents = new SampleListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(loopback().acceptIncoming(false).build(), clientEvents)) {
            Peer toServer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                futures.add(toServer.send(0, ("m" + i).getBytes(UTF_8)));
                toServer.flush();
                Thread.sleep(2);
            }
            for (CompletableFuture<Delivery> f : futures) {
                assertThat(f.get(5, TimeUnit.SECONDS).acknowledged()).isTrue();
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> !serverEvents.samples.isEmpty());

            // one snapshot: the smoothed RTT then is a moving average of exactly the first `acked` samples
            PeerStats stats = toServer.stats();
            int acked = Math.toIntExact(stats.packetCounters().get("num_packets_acked"));
            assertThat(acked).isPositive();
            // each acked packet gives one sample, dispatched right after the receive that took it
            await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.samples.size() >= acked);
            List<Sample> samples = List.copyOf(clientEvents.samples).subList(0, acked);
            assertThat(samples).allSatisfy(s -> {
                assertThat(s.peer()).isSameAs(toServer);
                assertThat(s.rttMillis()).isBetween(0.0f, 2000.0f);
                assertThat(s.thread()).startsWith("reliable-udp-io-");
            });
            float min = Float.MAX_VALUE;
            float max = 0;
            for (Sample s : samples) {
                min = Math.min(min, s.rttMillis());
                max = Math.max(max, s.rttMillis());
            }
            assertThat(stats.rttMillis()).isBetween(min, max);
            assertThat(serverEvents.samples).allSatisfy(s -> {
                assertThat(s.peer()).isSameAs(serverEvents.connected.get(0));
                assertThat(s.rttMillis()).isBetween(0.0f, 2000.0f);
            });
        }
    }
}
