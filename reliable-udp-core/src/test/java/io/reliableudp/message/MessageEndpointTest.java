package io.reliableudp.message;

import static io.reliableudp.message.DeliveryMode.RELIABLE_ORDERED;
import static io.reliableudp.message.DeliveryMode.RELIABLE_UNORDERED;
import static io.reliableudp.message.DeliveryMode.UNRELIABLE;
import static io.reliableudp.message.DeliveryMode.UNRELIABLE_SEQUENCED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.link.LinkConditionerConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class MessageEndpointTest {

    private static final double DT = 1.0 / 120;

    private static byte[] payload(int n, int size) {
        byte[] p = new byte[size];
        for (int i = 0; i < size; i++) {
            p[i] = (byte) (n * 31 + i * 7);
        }
        return p;
    }

    @Test
    void deliversSmallMessagesOnEveryModeAndCompletesFutures() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, RELIABLE_UNORDERED, UNRELIABLE, UNRELIABLE_SEQUENCED));
        List<SendHandle> handles = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            for (int n = 0; n < 10; n++) {
                handles.add(pair.a.send(c, payload(n, 20)));
            }
        }
        assertThat(pair.runUntil(() -> handles.stream().allMatch(h -> h.future().isDone()) && !pair.a.hasPendingReliable(), 2, DT)).isTrue();
        assertThat(pair.receivedByB).hasSize(40);
        for (int c = 0; c < 4; c++) {
            int channel = c;
            List<EndpointPair.Received> got = pair.receivedByB.stream().filter(r -> r.channel() == channel).toList();
            for (int n = 0; n < 10; n++) {
                assertThat(got.get(n).id()).isEqualTo(n);
                assertThat(got.get(n).data()).isEqualTo(payload(n, 20));
            }
        }
        assertThat(handles).allSatisfy(h -> assertThat(h.future()).isCompleted());
        assertThat(pair.a.stats().channel(0).messagesAcked()).isEqualTo(10);
        assertThat(pair.a.stats().channel(0).queuedMessages()).isZero();
        // all 40 small messages fit one packet: 4 MSG frames + 36 NEXT frames
        assertThat(pair.a.stats().packetsSent()).isEqualTo(1);
    }

    @Test
    void smallReliableMessageCostsThreeBytesAloneAndFourBeforeAnother() {
        assertThat(Frames.lastFrameSize(32) - 32).isEqualTo(3);
        assertThat(Frames.msgFrameSize(32) - 32).isEqualTo(4);
        assertThat(Frames.nextFrameSize(32) - 32).isEqualTo(1);
        assertThat(Frames.nextFrameSize(100) - 100).isEqualTo(2);
    }

    @Test
    void queueFullFailsAtOnceAndNeverDropsAcceptedMessages() {
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(new ChannelConfig(RELIABLE_ORDERED, 3, 1000))).build();
        EndpointPair pair = new EndpointPair(config);
        SendHandle h1 = pair.a.send(0, payload(1, 10));
        pair.a.send(0, payload(2, 10));
        pair.a.send(0, payload(3, 10));
        SendHandle full = pair.a.send(0, payload(4, 10));
        assertThat(full.accepted()).isFalse();
        assertThat(full.messageId()).isEqualTo(-1);
        assertThatThrownBy(() -> full.future().join()).isInstanceOf(CompletionException.class)
                .cause().isInstanceOfSatisfying(DeliveryException.class, e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.QUEUE_FULL));
        assertThat(pair.a.offer(0, payload(5, 10))).isEqualTo(MessageEndpoint.OFFER_QUEUE_FULL);
        // byte limit
        MessageConfig bytes = MessageConfig.builder()
                .channels(List.of(new ChannelConfig(RELIABLE_ORDERED, 100, 25))).build();
        EndpointPair pair2 = new EndpointPair(bytes);
        assertThat(pair2.a.send(0, payload(1, 20)).accepted()).isTrue();
        assertThat(pair2.a.offer(0, payload(2, 10))).isEqualTo(MessageEndpoint.OFFER_QUEUE_FULL);
        // once acknowledged, room again
        assertThat(pair.runUntil(() -> h1.future().isDone() && !pair.a.hasPendingReliable(), 2, DT)).isTrue();
        assertThat(pair.a.send(0, payload(6, 10)).accepted()).isTrue();
        assertThat(pair.receivedByB).hasSize(3);
    }

    @Test
    void tooLargeFailsAtOnce() {
        MessageConfig config = MessageConfig.builder().channels(List.of(ChannelConfig.of(RELIABLE_ORDERED), ChannelConfig.of(UNRELIABLE)))
                .maxMessageSize(100_000).build();
        EndpointPair pair = new EndpointPair(config);
        SendHandle h = pair.a.send(0, new byte[100_001]);
        assertThat(h.accepted()).isFalse();
        assertThat(h.future()).isCompletedExceptionally();
        assertThatThrownBy(() -> h.future().join()).cause().isInstanceOfSatisfying(DeliveryException.class,
                e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.TOO_LARGE));
        assertThat(pair.a.send(0, new byte[100_000]).accepted()).isTrue();
        // unreliable: above the fragmentation limit is refused
        int limit = pair.a.maxUnreliableMessageSize();
        assertThat(pair.a.offer(1, new byte[limit + 1])).isEqualTo(MessageEndpoint.OFFER_TOO_LARGE);
        assertThat(pair.a.offer(1, new byte[limit])).isGreaterThanOrEqualTo(0);
        assertThatThrownBy(() -> pair.a.send(2, new byte[1])).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("channel");
    }

    @Test
    void closeFailsPendingFuturesWithTheReason() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, UNRELIABLE));
        SendHandle reliable = pair.a.send(0, payload(1, 10));
        SendHandle unreliable = pair.a.send(1, payload(2, 10));
        pair.a.close(DeliveryFailure.TIMEOUT);
        assertThatThrownBy(() -> reliable.future().join()).cause().isInstanceOfSatisfying(DeliveryException.class,
                e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.TIMEOUT));
        assertThat(unreliable.future()).isCompletedExceptionally();
        SendHandle after = pair.a.send(0, payload(3, 1));
        assertThatThrownBy(() -> after.future().join()).cause().isInstanceOfSatisfying(DeliveryException.class,
                e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.TIMEOUT));
        assertThat(pair.a.hasPendingReliable()).isFalse();
        assertThat(pair.a.offer(0, payload(4, 1))).isEqualTo(MessageEndpoint.OFFER_CLOSED);
    }

    @Test
    void sentButUnackedMessageFailsOnClose() {
        LinkConditionerConfig blackHole = new LinkConditionerConfig(0, 0, 1.0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED), blackHole, LinkConditionerConfig.PERFECT);
        SendHandle h = pair.a.send(0, payload(1, 10));
        pair.run(1, DT);
        assertThat(h.future()).isNotDone();
        assertThat(pair.a.stats().channel(0).messagesResent()).isGreaterThan(0);
        pair.a.close(DeliveryFailure.DISCONNECTED);
        assertThatThrownBy(() -> h.future().join()).cause().isInstanceOfSatisfying(DeliveryException.class,
                e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.DISCONNECTED));
    }

    @Test
    void largeReliableMessagesAreSlicedAndReassembled() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, RELIABLE_UNORDERED));
        byte[] big1 = payload(1, 300_000);
        byte[] big2 = payload(2, 5000);
        byte[] small = payload(3, 10);
        SendHandle h1 = pair.a.send(0, big1);
        SendHandle h2 = pair.a.send(0, small);
        SendHandle h3 = pair.a.send(1, big2);
        assertThat(pair.runUntil(() -> h1.future().isDone() && h2.future().isDone() && h3.future().isDone(), 60, DT)).isTrue();
        List<EndpointPair.Received> ordered = pair.receivedByB.stream().filter(r -> r.channel() == 0).toList();
        assertThat(ordered).hasSize(2);
        assertThat(ordered.get(0).data()).isEqualTo(big1);
        assertThat(ordered.get(1).data()).isEqualTo(small);
        assertThat(pair.receivedByB.stream().filter(r -> r.channel() == 1).toList().get(0).data()).isEqualTo(big2);
    }

    @Test
    void largeUnreliableMessageTravelsAsOneFragmentedPacket() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(UNRELIABLE));
        byte[] big = payload(9, 5000);
        SendHandle h = pair.a.send(0, big);
        pair.a.send(0, payload(1, 10));
        pair.run(0.2, DT);
        assertThat(h.future()).isCompleted();
        assertThat(pair.receivedByB).hasSize(2);
        assertThat(pair.receivedByB.get(0).data()).isEqualTo(big);
    }

    @Test
    void unreliableSequencedDropsOlderMessages() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(UNRELIABLE_SEQUENCED));
        // feed B directly with frames in the wrong order through crafted packets
        byte[] p = new byte[64];
        int len = Frames.writeMsg(p, 0, 0, 5, payload(5, 3), 0, 3);
        len = Frames.writeMsg(p, len, 0, 3, payload(3, 3), 0, 3);
        len = Frames.writeMsg(p, len, 0, 5, payload(5, 3), 0, 3);
        len = Frames.writeMsg(p, len, 0, 6, payload(6, 3), 0, 3);
        byte[] d = new RawPeer().packet(p, len);
        pair.b.receive(d, 0, d.length);
        assertThat(pair.receivedByB).extracting(EndpointPair.Received::id).containsExactly(5, 6);
        assertThat(pair.b.stats().channel(0).messagesDropped()).isEqualTo(1);
        assertThat(pair.b.stats().channel(0).duplicatesDropped()).isEqualTo(1);
    }

    @Test
    void reliableIdsWrapAroundSixteenBits() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED));
        int total = 70_000;
        int next = 0;
        int[] received = {0};
        pair.recordB = false;
        pair.extraB = (c, id, d, o, l) -> {
            assertThat(id).isEqualTo(received[0] & 0xFFFF);
            assertThat(d[o]).isEqualTo((byte) received[0]);
            received[0]++;
        };
        while (received[0] < total) {
            while (next < total && pair.a.offer(0, new byte[] {(byte) next}) >= 0) {
                next++;
            }
            pair.step(DT);
        }
        assertThat(received[0]).isEqualTo(total);
    }

    @Test
    void ackListenerGivesReceiptsForUnreliableMessages() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, UNRELIABLE));
        List<String> acks = new ArrayList<>();
        pair.a.setAckListener((c, id) -> acks.add(c + ":" + id));
        pair.a.offer(0, payload(1, 5));
        pair.a.offer(1, payload(2, 5));
        pair.b.send(0, payload(3, 5)); // traffic back carries the acks
        pair.run(0.2, DT);
        assertThat(acks).containsExactlyInAnyOrder("0:0", "1:0");
        assertThat(pair.a.stats().channel(1).messagesAcked()).isEqualTo(1);
    }

    @Test
    void everyPacketPolicyResendsEachTick() {
        MessageConfig config = EndpointPair.config(RELIABLE_ORDERED).toBuilder()
                .resendPolicy(MessageConfig.ResendPolicy.EVERY_PACKET).congestionAvoidance(false).build();
        LinkConditionerConfig blackHole = new LinkConditionerConfig(0, 0, 1.0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
        EndpointPair pair = new EndpointPair(config, blackHole, LinkConditionerConfig.PERFECT);
        pair.a.send(0, payload(1, 10));
        pair.run(0.5, 1.0 / 60);
        // one send plus a resend on (almost) every tick at 60 Hz
        assertThat(pair.a.stats().channel(0).messagesResent()).isBetween(25L, 31L);
    }

    @Test
    void malformedPacketsAreRejectedAndCountedNeverThrown() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, UNRELIABLE));
        byte[][] bad = {
            {(byte) 0xC0},                        // LAST without its id
            {(byte) 0xC5, 0, 0, 1},               // LAST on unknown channel 5
            {0x05, 0, 0, 1, 1},                    // unknown channel 5
            {0x40},                                // NEXT without a message before
            {0x00, 0},                             // truncated id
            {0x00, 0, 0, (byte) 0x80},             // truncated varint
            {0x00, 0, 0, 10, 1, 2},                // length past the end
            {(byte) 0x81, 0, 0, 10, 4, 0, 1, 2, 3, 4}, // slice on unreliable channel
            {(byte) 0x80, 0, 0, 10, 4, 3, 1, 2},   // slice index 3 of 3 slices
            {(byte) 0x80, 0, 0, 0, 4, 0},          // total 0
        };
        RawPeer raw = new RawPeer();
        for (byte[] b : bad) {
            byte[] d = raw.packet(b, b.length);
            pair.b.receive(d, 0, d.length);
        }
        assertThat(pair.b.stats().malformedPackets()).isEqualTo(bad.length);
        assertThat(pair.receivedByB).isEmpty();
        // a message id far beyond the receive window: rejected (not acked), not malformed
        byte[] p = new byte[16];
        int len = Frames.writeMsg(p, 0, 0, 10_000, payload(1, 2), 0, 2);
        byte[] d = raw.packet(p, len);
        pair.b.receive(d, 0, d.length);
        assertThat(pair.b.stats().rejectedPackets()).isEqualTo(1);
        assertThat(pair.receivedByB).isEmpty();
        // the endpoint still works
        pair.a.send(0, payload(1, 3));
        pair.run(0.1, DT);
        assertThat(pair.receivedByB).hasSize(1);
    }

    @Test
    void packetsNeverExceedTheDatagramBudget() {
        // no peer, so no acks: without the bytes-in-flight cap, to see many packets
        MessageConfig config = EndpointPair.config(RELIABLE_ORDERED, RELIABLE_UNORDERED, UNRELIABLE).toBuilder()
                .lowerLayerOverhead(40).congestionControl(MessageConfig.CongestionControl.NONE).build();
        int[] largest = {0};
        int[] count = {0};
        MessageEndpoint probe = new MessageEndpoint(config, 0, (d, o, l) -> {
            largest[0] = Math.max(largest[0], l);
            count[0]++;
        }, (c, id, d, o, l) -> { });
        for (int i = 0; i < 500; i++) {
            probe.offer(i % 3, payload(i, i * 13 % 1500 + 1));
        }
        probe.offer(0, payload(7, 50_000));
        probe.offer(2, payload(8, probe.maxUnreliableMessageSize()));
        for (int i = 0; i < 200; i++) {
            probe.update(i / 60.0);
        }
        assertThat(count[0]).isGreaterThan(100);
        assertThat(largest[0]).isLessThanOrEqualTo(1200 - 40).isGreaterThan(1100);
        assertThat(probe.stats().packetsNotSent()).isZero();
    }

    @Test
    void aStalledOrderedChannelNeverHoldsBackOtherChannels() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED, RELIABLE_ORDERED, UNRELIABLE));
        byte[] p = new byte[64];
        int len = Frames.writeMsg(p, 0, 0, 1, payload(1, 3), 0, 3); // channel 0: id 0 is missing
        len = Frames.writeMsg(p, len, 1, 0, payload(2, 3), 0, 3);
        len = Frames.writeMsg(p, len, 2, 0, payload(3, 3), 0, 3);
        RawPeer raw = new RawPeer();
        byte[] d = raw.packet(p, len);
        pair.b.receive(d, 0, d.length);
        assertThat(pair.receivedByB).extracting(EndpointPair.Received::channel).containsExactly(1, 2);
        len = Frames.writeMsg(p, 0, 0, 0, payload(0, 3), 0, 3);
        d = raw.packet(p, len);
        pair.b.receive(d, 0, d.length);
        assertThat(pair.receivedByB).extracting(r -> r.channel() + ":" + r.id()).containsExactly("1:0", "2:0", "0:0", "0:1");
        assertThat(pair.receivedByB.get(3).data()).isEqualTo(payload(1, 3));
    }

    @Test
    void senderNeverHasMoreInFlightThanTheReceiveWindow() {
        MessageConfig config = EndpointPair.config(RELIABLE_ORDERED).toBuilder().receiveWindow(64).build();
        LinkConditionerConfig blackHole = new LinkConditionerConfig(0, 0, 1.0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
        EndpointPair pair = new EndpointPair(config, LinkConditionerConfig.PERFECT, blackHole);
        for (int i = 0; i < 200; i++) {
            pair.a.offer(0, payload(i, 8));
        }
        pair.run(3, DT);
        // no ack ever comes back: only the first 64 messages may be sent
        assertThat(pair.receivedByB).hasSize(64);
        assertThat(pair.b.stats().rejectedPackets()).isZero();
        assertThat(pair.a.stats().channel(0).queuedMessages()).isEqualTo(200);
        // acks flow again: everything arrives, in order
        pair.ba.reconfigure(LinkConditionerConfig.PERFECT);
        assertThat(pair.runUntil(() -> !pair.a.hasPendingReliable(), 10, DT)).isTrue();
        assertThat(pair.receivedByB).extracting(EndpointPair.Received::id).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 200).boxed().toList());
    }

    @Test
    void severalLargeMessagesInFlightWithinTheByteCap() {
        // the black hole never acks: without the bytes-in-flight cap of congestion control, to isolate maxBytesInFlight
        MessageConfig config = EndpointPair.config(RELIABLE_UNORDERED).toBuilder().maxBytesInFlight(100_000)
                .congestionControl(MessageConfig.CongestionControl.NONE).build();
        LinkConditionerConfig blackHole = new LinkConditionerConfig(0, 0, 1.0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);
        EndpointPair pair = new EndpointPair(config, blackHole, LinkConditionerConfig.PERFECT);
        List<SendHandle> handles = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            handles.add(pair.a.send(0, payload(i, 30_000)));
        }
        pair.run(2, DT);
        assertThat(pair.a.stats().largeBytesInFlight()).isEqualTo(90_000);
        pair.ab.reconfigure(LinkConditionerConfig.PERFECT);
        assertThat(pair.runUntil(() -> handles.stream().allMatch(h -> h.future().isDone()), 30, DT)).isTrue();
        assertThat(pair.a.stats().largeBytesInFlight()).isZero();
        assertThat(pair.b.stats().reassemblyBytes()).isZero();
        assertThat(pair.receivedByB).hasSize(5);
        for (EndpointPair.Received r : pair.receivedByB) {
            assertThat(r.data()).isEqualTo(payload(r.id(), 30_000));
        }
    }

    @Test
    void onlyMissingSlicesAreResent() {
        MessageConfig config = EndpointPair.config(RELIABLE_ORDERED).toBuilder().congestionAvoidance(false).build();
        // lose about one datagram in five on the way out
        LinkConditionerConfig lossy = new LinkConditionerConfig(5, 0, 0.2, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 11);
        EndpointPair pair = new EndpointPair(config, lossy, LinkConditionerConfig.PERFECT);
        byte[] big = payload(5, 200 * 1024);
        SendHandle h = pair.a.send(0, big);
        assertThat(pair.runUntil(() -> h.future().isDone(), 30, DT)).isTrue();
        assertThat(pair.receivedByB.get(0).data()).isEqualTo(big);
        long slices = 200;
        long resent = pair.a.stats().channel(0).messagesResent();
        // about a fifth of the slices needed a resend (and a fifth of those another): never the whole message
        assertThat(resent).isBetween(slices / 10, slices / 2);
    }

    @Test
    void listenerExceptionsAreCountedAndNeverEscape() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED));
        pair.extraB = (c, id, d, o, l) -> {
            throw new IllegalStateException("application bug");
        };
        SendHandle h = pair.a.send(0, payload(1, 5));
        pair.a.send(0, payload(2, 5));
        assertThat(pair.runUntil(() -> h.future().isDone(), 2, DT)).isTrue();
        assertThat(pair.b.stats().listenerErrors()).isEqualTo(2);
        assertThat(pair.b.stats().channel(0).messagesReceived()).isEqualTo(2);
    }

    @Test
    void flushAndSendFromInsideTheListenerAreSafe() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED));
        // B echoes every message and flushes at once, from inside its listener
        pair.extraB = (c, id, d, o, l) -> {
            pair.b.send(0, java.util.Arrays.copyOfRange(d, o, o + l));
            pair.b.flush(pair.time);
        };
        for (int i = 0; i < 50; i++) {
            pair.a.send(0, payload(i, 8));
        }
        pair.a.flush(pair.time);
        pair.step(0.0001); // deliver to B: its echo goes out when receive returns, without waiting for a tick
        assertThat(pair.b.stats().packetsSent()).isEqualTo(1);
        assertThat(pair.runUntil(() -> pair.receivedByA.size() == 50 && !pair.b.hasPendingReliable(), 2, DT)).isTrue();
        for (int i = 0; i < 50; i++) {
            assertThat(pair.receivedByA.get(i).data()).isEqualTo(payload(i, 8));
        }
    }

    @Test
    void closedEndpointDeliversAndSendsNothing() {
        EndpointPair pair = new EndpointPair(EndpointPair.config(RELIABLE_ORDERED));
        pair.a.send(0, payload(1, 5));
        pair.a.flush(pair.time);
        pair.b.close(DeliveryFailure.CLOSED);
        pair.run(0.5, DT);
        assertThat(pair.receivedByB).isEmpty();
        assertThat(pair.b.stats().datagramsSent()).isZero();
        assertThat(pair.b.isClosed()).isTrue();
    }

    @Test
    void configurationIsValidatedNamingTheField() {
        assertThatThrownBy(() -> MessageConfig.builder().receiveWindow(100).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("receiveWindow");
        assertThatThrownBy(() -> MessageConfig.builder().sendRateHz(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sendRateHz");
        assertThatThrownBy(() -> MessageConfig.builder().maxPacketsPerUpdate(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPacketsPerUpdate");
        assertThatThrownBy(() -> MessageConfig.builder().congestionRttThresholdMillis(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("congestionRttThresholdMillis");
        assertThatThrownBy(() -> MessageConfig.builder().congestionLossThresholdPercent(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("congestionLossThresholdPercent");
        assertThatThrownBy(() -> MessageConfig.builder().resendPolicy(null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resendPolicy");
        assertThatThrownBy(() -> new MessageEndpoint(MessageConfig.defaults(), Double.NaN, (d, o, l) -> { }, (c, i, d, o, l) -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("time");
        MessageConfig c = MessageConfig.builder().receiveWindow(1024).sendRateHz(30).build();
        assertThat(c.toBuilder().build().receiveWindow()).isEqualTo(1024);
        assertThat(c.toBuilder().build().sendRateHz()).isEqualTo(30);
    }

    @Test
    void slicesShrinkToFitASmallDatagramBudget() {
        MessageConfig config = EndpointPair.config(RELIABLE_ORDERED).toBuilder()
                .datagramBudget(600).lowerLayerOverhead(100).build();
        assertThat(config.effectiveSliceSize()).isEqualTo(600 - 100 - 9 - 13);
        EndpointPair pair = new EndpointPair(config);
        byte[] big = payload(3, 20_000);
        SendHandle h = pair.a.send(0, big);
        assertThat(pair.runUntil(() -> h.future().isDone(), 20, DT)).isTrue();
        assertThat(pair.receivedByB.get(0).data()).isEqualTo(big);
        assertThatThrownBy(() -> MessageConfig.builder().sliceSize(64).maxMessageSize(Integer.MAX_VALUE).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMessageSize");
    }
}
