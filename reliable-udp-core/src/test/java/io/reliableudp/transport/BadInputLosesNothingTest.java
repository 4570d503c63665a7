package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.connection.WireForTests;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad input never costs a reliable message, checked to the end: two nodes with a pre-shared key over
 * the {@link InMemoryNetwork}, and on the client's way out every datagram of the connection is followed by
 * hostile ones: a copy with a flipped bit, a replay of an earlier datagram, a truncated copy, and random
 * bytes. Every one of them is dropped and counted (the frame's tag or the replay window), every future
 * completes exactly once, and each channel delivers exactly what was sent: reliable-ordered exactly
 * messages 0..n-1 in order, reliable-unordered each once.
 */
@Timeout(60)
@ExtendWith(SendFuturesEndOnce.class)
class BadInputLosesNothingTest {

    /** Sends each datagram, then the hostile ones after it. */
    private static final class HostilePort extends ForwardingPort {
        private final Random random = new Random(7);
        private final List<byte[]> earlier = new ArrayList<>();
        volatile boolean hostile;
        long injected;

        HostilePort(DatagramPort port) {
            super(port);
        }

        @Override
        public synchronized boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
            byte[] d = new byte[datagram.remaining()];
            datagram.duplicate().get(d);
            boolean sent = port.send(datagram, to);
            if (hostile && d.length > 0 && d[0] == WireForTests.PAYLOAD) {
                byte[] flipped = d.clone();
                flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
                inject(flipped, to);
                if (!earlier.isEmpty()) {
                    inject(earlier.get(random.nextInt(earlier.size())), to); // a replay
                }
                inject(java.util.Arrays.copyOf(d, random.nextInt(d.length)), to);
                byte[] junk = new byte[1 + random.nextInt(200)];
                random.nextBytes(junk);
                inject(junk, to);
                if (earlier.size() < 64) {
                    earlier.add(d);
                } else {
                    earlier.set(random.nextInt(64), d);
                }
            }
            return sent;
        }

        private void inject(byte[] d, InetSocketAddress to) throws IOException {
            injected++;
            port.send(ByteBuffer.wrap(d), to);
        }






    }

    @Test
    void withAKeyNoForgedReplayedOrGarbageDatagramCostsAMessage() throws Exception {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        HostilePort clientPort = new HostilePort(network.open());
        try (ReliableUdpNode server = ReliableUdpNode.start(NodeConfig.builder().preSharedKey(key).build(), serverEvents, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(NodeConfig.builder().preSharedKey(key).acceptIncoming(false).build(),
                     new RecordingListener(), clientPort)) {
            Peer p = client.connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            clientPort.hostile = true;
            int n = 300;
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                futures.add(p.send(0, ByteBuffer.allocate(4).putInt(i).array()));
                futures.add(p.send(1, ByteBuffer.allocate(4).putInt(i).array()));
                if (i % 10 == 9) {
                    // each round of 20 leaves in datagrams of its own, whatever the datagram budget has grown to,
                    // so that 30 rounds give the hostile port at least 30 datagrams to answer with 3 or 4 bad ones
                    p.flush();
                    CompletableFuture.allOf(futures.subList(futures.size() - 20, futures.size())
                            .toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
                }
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> serverEvents.messages.size() >= 2 * n);
            List<Integer> expected = IntStream.range(0, n).boxed().toList();
            assertThat(numbers(serverEvents, 0)).as("reliable-ordered: exactly 0..%d, in order", n - 1).containsExactlyElementsOf(expected);
            assertThat(numbers(serverEvents, 1)).as("reliable-unordered: each once").containsExactlyInAnyOrderElementsOf(expected);
            var dropped = server.stats().datagramsDropped();
            long droppedTotal = dropped.values().stream().mapToLong(Long::longValue).sum();
            assertThat(clientPort.injected).as("bad datagrams injected").isGreaterThan(100);
            assertThat(droppedTotal + network.overflowed()).as("every injected datagram dropped and counted (%s)", dropped)
                    .isGreaterThanOrEqualTo(clientPort.injected);
            assertThat(p.state()).isEqualTo(PeerState.CONNECTED);
        }
    }

    private static List<Integer> numbers(RecordingListener events, int channel) {
        return events.messages.stream().filter(m -> m.channel() == channel)
                .map(m -> ByteBuffer.wrap(m.payload()).getInt()).toList();
    }
}
