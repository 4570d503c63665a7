package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import io.reliableudp.connection.Session;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.SendCompletion;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class NodeConditionsTest {

    @Test
    void reliableOrderedSurvivesALossyDuplicatingReorderingLink() throws Exception {
        LinkConditionerConfig lossy = new LinkConditionerConfig(10, 10, 0.2, 0, 1, 0, 0.05, 0.1, 15, 0, 1 << 20, 1234);
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().linkConditioner(lossy).build(), serverEvents);
             ReliableUdpNode client = ReliableUdpNode.start(loopback().linkConditioner(lossy).build(), new RecordingListener())) {
            Peer p = client.connect(target(server)).get(10, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            int n = 500;
            for (int i = 0; i < n; i++) {
                sends.add(p.send(0, ByteBuffer.allocate(4).putInt(i).array()));
                if (i % 10 == 9) {
                    Thread.sleep(5); // spread over many packets so that some are lost
                }
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> serverEvents.messages.size() == n);
            for (int i = 0; i < n; i++) {
                assertThat(ByteBuffer.wrap(serverEvents.messages.get(i).payload()).getInt()).isEqualTo(i);
            }
            PeerStats stats = p.stats();
            assertThat(stats.channels().get(0).messagesResent()).isPositive();
            assertThat(stats.rttMillis()).isGreaterThan(15f);
            client.setLinkConditioner(null);
            server.setLinkConditioner(null);
            p.send(0, new byte[] {1}).get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void sendQueueWaitLetsASenderRideOutAFullQueue() throws Exception {
        MessageConfig tiny = MessageConfig.builder().channels(List.of(new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, 4, 1 << 20))).build();
        LinkConditionerConfig slow = new LinkConditionerConfig(20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 5);
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().message(tiny).build(), serverEvents);
             ReliableUdpNode waiting = ReliableUdpNode.start(loopback().message(tiny).linkConditioner(slow)
                     .sendQueueWait(Duration.ofSeconds(5)).build(), new RecordingListener());
             ReliableUdpNode impatient = ReliableUdpNode.start(loopback().message(tiny).linkConditioner(slow).build(), new RecordingListener())) {
            Peer w = waiting.connect(target(server)).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                CompletableFuture<Delivery> f = w.send(0, new byte[] {(byte) i});
                assertThat(f).as("send %d waited for room instead of failing", i).isNotCompletedExceptionally();
                sends.add(f);
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            Peer i = impatient.connect(target(server)).get(5, TimeUnit.SECONDS);
            boolean refused = false;
            for (int k = 0; k < 40 && !refused; k++) {
                CompletableFuture<Delivery> f = i.send(0, new byte[] {(byte) k});
                refused = f.isCompletedExceptionally()
                        && f.exceptionNow() instanceof DeliveryException d && d.reason() == DeliveryFailure.QUEUE_FULL;
            }
            assertThat(refused).as("without sendQueueWait a full queue refuses at once").isTrue();
        }
    }

    /** A message layer that hears nothing: never acknowledges, so the other side's queues fill up. */
    static final class DeafSession implements Session {
        @Override
        public int offer(int channel, byte[] payload, SendCompletion completion) {
            if (completion != null) {
                completion.failed(new DeliveryException(DeliveryFailure.CLOSED, "deaf"));
            }
            return MessageEndpoint.OFFER_CLOSED;
        }

        @Override
        public void receive(byte[] data, int offset, int length) {
        }

        @Override
        public void update(double time) {
        }

        @Override
        public void flush(double time) {
        }

        @Override
        public boolean hasPendingReliable() {
            return false;
        }

        @Override
        public void close(DeliveryFailure reason) {
        }
    }

    @Test
    void aPeerThatLeavesTheQueueFullForATimeoutIsDisconnectedWithProtocolError() throws Exception {
        MessageConfig small = MessageConfig.builder().channels(List.of(new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, 8, 1 << 20))).build();
        NodeConfig.Builder cfg = loopback().message(small).keepAliveInterval(Duration.ofMillis(50)).timeout(Duration.ofMillis(600));
        RecordingListener clientEvents = new RecordingListener();
        try (DatagramNode server = DatagramNode.start(cfg.build(), new RecordingListener(), (c, t, o, i) -> new DeafSession());
             ReliableUdpNode client = ReliableUdpNode.start(cfg.build(), clientEvents)) {
            Peer p = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> first = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                first.add(p.send(0, new byte[] {(byte) i}));
            }
            long start = System.nanoTime();
            boolean refused = false;
            while (p.state() == PeerState.CONNECTED && System.nanoTime() - start < 5_000_000_000L) {
                CompletableFuture<Delivery> f = p.send(0, new byte[] {9});
                refused |= f.isCompletedExceptionally();
                Thread.sleep(20);
            }
            assertThat(refused).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.disconnected.size() == 1);
            assertThat(clientEvents.disconnected.get(0).reason()).isEqualTo(DisconnectReason.PROTOCOL_ERROR);
            for (CompletableFuture<Delivery> f : first) {
                assertThat(f).isCompletedExceptionally();
            }
        }
    }
}
