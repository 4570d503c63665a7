package io.reliableudp.transport;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Pausing a channel's delivery ({@link ReliableUdpNode#pauseReceiving}, {@link Peer#pauseReceiving}):
 * its messages are held, not handed to the listener, and handed over in order on resume; once the
 * receive memory limit is reached the node stops acknowledging them, so the sender's queue fills and
 * its sends are refused; after resume every message the sender was told was delivered arrives, once.
 */
@Timeout(60)
class ReceivePauseTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private static NodeConfig.Builder config(MessageConfig message) {
        return NodeConfig.builder().message(message);
    }

    private static MessageConfig messages(long receiveMemoryLimit, int maxQueued) {
        List<ChannelConfig> channels = new ArrayList<>();
        for (DeliveryMode mode : DeliveryMode.values()) {
            channels.add(new ChannelConfig(mode, maxQueued, ChannelConfig.DEFAULT_MAX_QUEUED_BYTES));
        }
        return MessageConfig.builder().channels(channels).maxMessageSize(16 * 1024)
                .receiveMemoryLimit(receiveMemoryLimit).build();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = DeliveryMode.class, names = {"RELIABLE_ORDERED", "RELIABLE_UNORDERED"})
    void aPausedChannelHoldsItsMessagesAndHandsThemOverInOrderOnResume(DeliveryMode mode) throws Exception {
        int channel = mode.ordinal();
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(messages(1 << 20, 4096)).build(), serverEvents, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(config(messages(1 << 20, 4096)).acceptIncoming(false).build(),
                     new RecordingListener(), network.open())) {
            server.pauseReceiving(channel);
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                futures.add(toServer.send(channel, ("m" + i).getBytes(UTF_8)));
            }
            // another channel goes on meanwhile
            int other = channel == 0 ? 1 : 0;
            toServer.send(other, "other".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            // every message was acknowledged (held within the limit), none handed over
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> serverEvents.texts(other).size() == 1);
            assertThat(serverEvents.texts(channel)).isEmpty();

            server.resumeReceiving(channel);
            await().atMost(WAIT).until(() -> serverEvents.texts(channel).size() >= 200);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                expected.add("m" + i);
            }
            if (mode == DeliveryMode.RELIABLE_ORDERED) {
                assertThat(serverEvents.texts(channel)).containsExactlyElementsOf(expected);
            } else {
                assertThat(serverEvents.texts(channel)).containsExactlyInAnyOrderElementsOf(expected);
            }
        }
    }

    @Test
    void aPeerPausedWhileItsMessagesWaitForTheListenerHoldsThemToo() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        List<String> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        Peer[] self = new Peer[1];
        NodeListener pausesAfterTen = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                got.add(new String(payload, UTF_8));
                if (got.size() == 10) {
                    self[0] = peer;
                    peer.pauseReceiving(0); // the rest of this turn's messages must wait
                }
            }
        };
        try (ReliableUdpNode server = ReliableUdpNode.start(config(messages(1 << 20, 4096)).build(), pausesAfterTen, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(config(messages(1 << 20, 4096)).acceptIncoming(false).build(),
                     new RecordingListener(), network.open())) {
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                futures.add(toServer.send(0, ("m" + i).getBytes(UTF_8)));
                expected.add("m" + i);
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            assertThat(got).hasSize(10);
            self[0].resumeReceiving(0);
            await().atMost(WAIT).until(() -> got.size() >= 300);
            assertThat(got).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void aChannelPausedPastTheLimitFillsTheSendersQueueAndLosesNothingOnResume() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        // 64 KiB per connection, 1 KiB messages, one to a packet (no larger datagrams): the server holds
        // exactly 48 of them (the last 16 KiB are kept for the next message of a running channel), then
        // refuses every packet; the sender queues at most 256
        MessageConfig oneMessagePerPacket = messages(64 * 1024, 256).toBuilder()
                .datagramBudget(1200).maxDatagramBudget(1200).build();
        long heldAtLimit = 48 * 1024;
        try (ReliableUdpNode server = ReliableUdpNode.start(config(oneMessagePerPacket).build(), serverEvents, network.open());
             ReliableUdpNode client = ReliableUdpNode.start(config(oneMessagePerPacket).acceptIncoming(false).build(),
                     new RecordingListener(), network.open())) {
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> server.peers().size() == 1);
            Peer toClient = server.peers().iterator().next();
            toClient.pauseReceiving(0);

            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            CompletableFuture<Delivery> refused = null;
            for (int i = 0; i < 5_000 && refused == null; i++) {
                byte[] payload = new byte[1024];
                java.nio.ByteBuffer.wrap(payload).putInt(futures.size());
                CompletableFuture<Delivery> f = toServer.send(0, payload);
                if (!f.isCompletedExceptionally()) {
                    futures.add(f);
                    continue;
                }
                // the queue is full for good only once the server holds all it may and the sender has had
                // every ack of it; a sender that ran ahead of the acks gets room back and fills on (only
                // this thread adds to the queue, so a queue still full after the wait is full for good)
                await().atMost(WAIT).until(() -> sent(toServer).queuedMessages() < 256
                        || heldForGood(toClient, toServer, heldAtLimit));
                if (sent(toServer).queuedMessages() >= 256) {
                    refused = f;
                }
            }
            assertThat(refused).as("the sender's queue filled").isNotNull();
            CompletableFuture<Delivery> queueFull = refused;
            assertThatThrownBy(() -> queueFull.get()).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(DeliveryException.class)
                    .extracting(e -> ((DeliveryException) e).reason()).isEqualTo(DeliveryFailure.QUEUE_FULL);
            assertThat(toServer.offer(0, new byte[1024])).as("offer refused as well").isFalse();
            assertThat(serverEvents.texts(0)).isEmpty();
            assertThat(toClient.stats().receiveMemoryBytes()).isLessThanOrEqualTo(64 * 1024);
            // the sender resends what the server did not take; each resend is refused
            await().atMost(WAIT).until(() -> toClient.stats().memoryRefusals() > 0);

            toClient.resumeReceiving(0);
            for (CompletableFuture<Delivery> f : futures) {
                f.get(10, TimeUnit.SECONDS); // every accepted send is delivered in the end
            }
            await().atMost(WAIT).until(() -> serverEvents.messages.size() >= futures.size());
            List<Integer> order = serverEvents.messages.stream()
                    .map(m -> java.nio.ByteBuffer.wrap(m.payload()).getInt()).toList();
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                expected.add(i);
            }
            assertThat(order).containsExactlyElementsOf(expected);
            assertThat(toClient.stats().receiveMemoryBytes()).isZero();
        }
    }

    /** The channel-0 counters of the sender's side of the connection. */
    private static ChannelStats sent(Peer sender) {
        return sender.stats().channels().get(0);
    }

    /**
     * Whether the paused server holds all it may of channel 0 (no further 1 KiB message fits) and the
     * sender has had every ack of it: from then on nothing leaves the sender's queue until resume.
     */
    private static boolean heldForGood(Peer receiver, Peer sender, long heldAtLimit) {
        return receiver.stats().receiveMemoryBytes() == heldAtLimit && sent(sender).messagesAcked() == heldAtLimit / 1024;
    }

    @Test
    void anotherPeerGoesOnWhileOnePeerIsHeldAtItsLimit() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(messages(64 * 1024, 256)).build(), serverEvents, network.open());
             ReliableUdpNode held = ReliableUdpNode.start(config(messages(64 * 1024, 256)).acceptIncoming(false).build(),
                     new RecordingListener(), network.open());
             ReliableUdpNode other = ReliableUdpNode.start(config(messages(64 * 1024, 4096)).acceptIncoming(false).build(),
                     new RecordingListener(), network.open())) {
            Peer heldToServer = held.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> server.peers().size() == 1);
            Peer serverToHeld = server.peers().iterator().next();
            serverToHeld.pauseReceiving(0);
            int accepted = 0;
            while (accepted < 5_000 && heldToServer.offer(0, new byte[1024])) {
                accepted++;
                if (accepted % 64 == 0) {
                    Thread.sleep(5);
                }
            }
            assertThat(accepted).as("the held peer's queue filled").isLessThan(5_000);
            await().atMost(WAIT).until(() -> serverToHeld.stats().memoryRefusals() > 0);

            Peer otherToServer = other.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                futures.add(otherToServer.send(0, ("o" + i).getBytes(UTF_8)));
                expected.add("o" + i);
            }
            CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
            await().atMost(WAIT).until(() -> serverEvents.texts(0).size() >= 300);
            assertThat(serverEvents.texts(0)).containsExactlyElementsOf(expected);
            assertThat(serverToHeld.stats().receiveMemoryBytes()).isLessThanOrEqualTo(64 * 1024);
            assertThat(server.stats().memoryRefusals()).isPositive();
        }
    }

    @Test
    void aBadChannelIsRefused() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(messages(1 << 20, 4096)).build(), new RecordingListener(),
                network.open())) {
            assertThatThrownBy(() -> server.pauseReceiving(4)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> server.resumeReceiving(-1)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
