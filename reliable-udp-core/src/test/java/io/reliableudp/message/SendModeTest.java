package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When packets go out, in simulated time: IMMEDIATE sends a queued message at the next update however
 * far the next tick is, TICK waits for the tick; {@link MessageEndpoint#nextDeadline()} names resends
 * and the ack delay; a data packet is acked at the next update when it came alone or revealed a gap,
 * else (a stream) at most one ack delay after the last ack-only packet, by the reply when one goes
 * back first; a packet sent alone gets a resend interval without the peer's ack delay; a one-way stream driven only by the endpoints' deadlines (no
 * fast tick) costs at most one ack-only packet per data packet and still repairs its losses.
 */
class SendModeTest {

    private static final double DELAY = 0.001;

    private static MessageConfig config(MessageConfig.SendMode mode) {
        // a send tick of one second: whatever leaves sooner did not wait for it
        return EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder().sendRateHz(1).sendMode(mode)
                .ackDelaySeconds(DELAY).build();
    }

    /** An endpoint whose datagrams are kept in a list. */
    private static final class Side {
        final List<byte[]> out = new ArrayList<>();
        final List<byte[]> got = new ArrayList<>();
        final MessageEndpoint ep;

        Side(MessageConfig config, double time) {
            ep = new MessageEndpoint(config, time, (d, o, l) -> out.add(Arrays.copyOfRange(d, o, o + l)),
                    (c, id, d, o, l) -> got.add(Arrays.copyOfRange(d, o, o + l)));
        }

        /** Hands every datagram this side sent so far to {@code to} at {@code time}. */
        void deliverAll(Side to, double time) {
            List<byte[]> copy = new ArrayList<>(out);
            out.clear();
            for (byte[] d : copy) {
                to.ep.receive(d, 0, d.length, time);
            }
        }
    }

    @Test
    void aMessageOnAnIdleEndpointLeavesAtTheNextUpdateInImmediateModeAndWaitsForTheTickInTickMode() {
        Side immediate = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        Side tick = new Side(config(MessageConfig.SendMode.TICK), 0);
        for (Side s : List.of(immediate, tick)) {
            s.ep.update(0); // TICK: the first tick is due at once; the next one at 1 s (due from 0.5 s)
            s.ep.update(0.1);
            s.out.clear();
            s.ep.offer(0, new byte[] {1, 2, 3});
            s.ep.update(0.101);
        }
        assertThat(immediate.out).hasSize(1);
        assertThat(tick.out).isEmpty();
        assertThat(tick.ep.nextDeadline()).isEqualTo(0.5);
        tick.ep.update(0.4);
        assertThat(tick.out).isEmpty();
        tick.ep.update(0.5);
        assertThat(tick.out).hasSize(1);
    }

    @Test
    void theNextDeadlineIsNowAfterAnOfferThenTheResendAndNothingWhenIdle() {
        Side a = new Side(config(MessageConfig.SendMode.IMMEDIATE), 10);
        assertThat(a.ep.nextDeadline()).isEqualTo(Double.POSITIVE_INFINITY);
        a.ep.update(10);
        a.ep.offer(0, new byte[8]);
        assertThat(a.ep.nextDeadline()).isLessThanOrEqualTo(10);
        a.ep.update(10);
        assertThat(a.out).hasSize(1);
        // no RTT sample yet: the first resend after 1.1 x 100 ms
        double resend = a.ep.nextDeadline();
        assertThat(resend).isCloseTo(10.110, org.assertj.core.data.Offset.offset(1e-9));
        a.ep.update(resend - 0.001);
        assertThat(a.out).hasSize(1);
        a.ep.update(resend);
        assertThat(a.out).hasSize(2);
        assertThat(a.ep.stats().channel(0).messagesResent()).isEqualTo(1);
    }

    @Test
    void aLoneDataPacketIsAcknowledgedAtTheNextUpdateAndAStreamOncePerAckDelay() {
        Side a = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        Side b = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        a.ep.offer(0, new byte[] {7});
        a.ep.update(1.0);
        a.deliverAll(b, 1.0);
        assertThat(b.got).hasSize(1);
        // not inside receive: the driver's next update sends it (the transport's comes after the listener
        // calls of the turn, so that a reply carries the ack and the delivery does not wait behind it)
        assertThat(b.out).isEmpty();
        assertThat(b.ep.nextDeadline()).isEqualTo(1.0);
        b.ep.update(1.0);
        assertThat(b.out).hasSize(1);
        assertThat(b.ep.stats().ackOnlyPacketsSent()).isEqualTo(1);
        assertThat(b.ep.nextDeadline()).isEqualTo(Double.POSITIVE_INFINITY); // ack-only packets are never acked
        b.deliverAll(a, 1.0001);
        assertThat(a.ep.hasPendingReliable()).isFalse();
        // a stream: the packets that come within the ack delay of the last ack-only packet share the next one
        for (int i = 0; i < 3; i++) {
            a.ep.offer(0, new byte[] {(byte) i});
            a.ep.update(1.0002 + i * 0.0001);
            a.deliverAll(b, 1.0002 + i * 0.0001);
            assertThat(b.ep.nextDeadline()).isEqualTo(1.0 + DELAY);
        }
        b.ep.update(1.0 + DELAY / 2);
        assertThat(b.out).isEmpty();
        b.ep.update(1.0 + DELAY);
        assertThat(b.out).hasSize(1);
        assertThat(b.ep.stats().ackOnlyPacketsSent()).isEqualTo(2);
        b.deliverAll(a, 1.0 + DELAY + 0.0001);
        assertThat(a.ep.hasPendingReliable()).isFalse();
        // after a quiet ack delay, alone again: at once
        a.ep.offer(0, new byte[] {9});
        a.ep.update(1.0 + 2 * DELAY + 0.0001);
        a.deliverAll(b, 1.0 + 2 * DELAY + 0.0001);
        assertThat(b.ep.nextDeadline()).isEqualTo(1.0 + 2 * DELAY + 0.0001);
    }

    @Test
    void aPacketSentAloneHasAResendIntervalWithoutThePeersAckDelayAndOneInAStreamWithIt() {
        Side a = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        Side b = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        // RTT samples of 0.2 ms: prompt acks
        double t = 1.0;
        for (int i = 0; i < 40; i++, t += 0.01) {
            a.ep.offer(0, new byte[] {(byte) i});
            a.ep.update(t);
            a.deliverAll(b, t + 0.0001);
            b.ep.update(t + 0.0001);
            b.deliverAll(a, t + 0.0002);
        }
        ResendTimer c = a.ep.resendTimer();
        double alone = c.resendIntervalAloneSeconds();
        double stream = c.resendIntervalSeconds();
        assertThat(stream - alone).isGreaterThan(DELAY - 1e-9);
        // a packet alone: due after the shorter interval
        a.ep.offer(0, new byte[] {1});
        a.ep.update(t);
        a.out.clear();
        assertThat(a.ep.nextDeadline() - t).isCloseTo(alone, org.assertj.core.data.Offset.offset(1e-9));
        // a second one 0.1 ms later (the peer may coalesce its ack): due after the longer one
        a.ep.offer(0, new byte[] {2});
        a.ep.update(t + 0.0001);
        assertThat(a.out).hasSize(1);
        assertThat(a.ep.nextDeadline() - t).isCloseTo(alone, org.assertj.core.data.Offset.offset(1e-9));
        a.ep.update(t + alone + 1e-6); // (1 us: the rounding of lastSent + interval, as the schedule's own retry)
        assertThat(a.out).hasSize(2); // the first message resent
        assertThat(a.ep.stats().channel(0).messagesResent()).isEqualTo(1);
        // the second waits for the stream's interval after its send
        assertThat(a.ep.nextDeadline()).isGreaterThan(t + alone);
        a.ep.update(t + 0.0001 + stream - 1e-6);
        assertThat(a.ep.stats().channel(0).messagesResent()).isEqualTo(1);
    }

    @Test
    void aReplyWithinTheAckDelayCarriesTheAck() {
        Side a = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        Side b = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        a.ep.offer(0, new byte[] {7});
        a.ep.update(1.0);
        a.deliverAll(b, 1.0);
        b.ep.offer(0, new byte[] {8});
        b.ep.update(1.0 + DELAY / 2);
        assertThat(b.out).hasSize(1);
        assertThat(b.ep.stats().ackOnlyPacketsSent()).isZero();
        assertThat(b.ep.stats().packetsSent()).isEqualTo(1);
        b.ep.update(1.0 + DELAY);
        assertThat(b.out).hasSize(1); // nothing more: the reply was the ack
        b.deliverAll(a, 1.002);
        assertThat(a.ep.hasPendingReliable()).isFalse();
        assertThat(a.got).hasSize(1);
    }

    @Test
    void packetsCarryingAnEighthOfTheReceiveWindowAreAcknowledgedAtOnceEvenWithinTheAckDelay() {
        // a window of 64 messages: an ack is owed at once after 8 reliable frames, long before 16 packets
        MessageConfig config = config(MessageConfig.SendMode.IMMEDIATE).toBuilder().receiveWindow(64).build();
        Side a = new Side(config, 0);
        Side b = new Side(config, 0);
        double t = 1.0;
        a.ep.offer(0, new byte[] {0});
        a.ep.update(t);
        a.deliverAll(b, t);
        b.ep.update(t); // alone: acked at once
        assertThat(b.ep.stats().ackOnlyPacketsSent()).isEqualTo(1);
        // two packets of 5 small messages each, within the ack delay of that ack
        for (int p = 0; p < 2; p++) {
            t += 0.0001;
            for (int m = 0; m < 5; m++) {
                a.ep.offer(0, new byte[] {(byte) m});
            }
            a.ep.update(t);
            assertThat(a.out).hasSize(1); // the five share one packet
            a.deliverAll(b, t);
            if (p == 0) {
                assertThat(b.ep.nextDeadline()).isEqualTo(1.0 + DELAY); // 5 frames: the stream's ack delay
            }
        }
        // 10 frames >= 64 / 8: at once, from the receive itself (as after 16 packets: bulk, no reply to wait for)
        assertThat(b.ep.stats().ackOnlyPacketsSent() - b.ep.sequenceCatchUps()).isEqualTo(2);
        assertThat(b.ep.nextDeadline()).isEqualTo(Double.POSITIVE_INFINITY);
        b.deliverAll(a, t + 0.0001);
        assertThat(a.ep.hasPendingReliable()).isFalse();
        // the count starts again after that ack: 5 more frames wait for the ack delay
        t += 0.0002;
        for (int m = 0; m < 5; m++) {
            a.ep.offer(0, new byte[] {(byte) m});
        }
        a.ep.update(t);
        a.deliverAll(b, t);
        assertThat(b.ep.nextDeadline()).isGreaterThan(t);
        // an unreliable channel's messages do not count: the sender holds no window for them
        MessageConfig mixed = EndpointPair.config(DeliveryMode.UNRELIABLE).toBuilder().sendRateHz(1)
                .sendMode(MessageConfig.SendMode.IMMEDIATE).ackDelaySeconds(DELAY).receiveWindow(64).build();
        Side u = new Side(mixed, 0);
        Side v = new Side(mixed, 0);
        u.ep.offer(0, new byte[] {0});
        u.ep.update(2.0);
        u.deliverAll(v, 2.0);
        v.ep.update(2.0);
        for (int m = 0; m < 20; m++) {
            u.ep.offer(0, new byte[] {(byte) m});
        }
        u.ep.update(2.0001);
        u.deliverAll(v, 2.0001);
        assertThat(v.got).hasSize(21);
        assertThat(v.ep.nextDeadline()).isEqualTo(2.0 + DELAY);
    }

    @Test
    void aPacketThatRevealsAGapIsAcknowledgedAtOnceEvenWithinTheAckDelay() {
        Side a = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        Side b = new Side(config(MessageConfig.SendMode.IMMEDIATE), 0);
        for (int i = 0; i < 4; i++) {
            a.ep.offer(0, new byte[] {(byte) i});
            a.ep.update(1.0 + i * 0.0001); // one packet each
        }
        assertThat(a.out).hasSize(4);
        byte[] first = a.out.get(0);
        byte[] second = a.out.get(1);
        byte[] fourth = a.out.get(3);
        b.ep.receive(first, 0, first.length, 1.01);
        b.ep.update(1.01); // alone: acked at once
        assertThat(b.out).hasSize(1);
        b.ep.receive(second, 0, second.length, 1.0101);
        assertThat(b.ep.nextDeadline()).isEqualTo(1.01 + DELAY); // within the ack delay of that ack
        b.ep.receive(fourth, 0, fourth.length, 1.0102); // packet 2 was lost (or is late)
        assertThat(b.ep.nextDeadline()).isEqualTo(1.0102);
        b.ep.update(1.0102);
        assertThat(b.out).hasSize(2);
        assertThat(b.ep.stats().ackOnlyPacketsSent()).isEqualTo(2);
        // in TICK mode the same gap waits for the tick
        Side c = new Side(config(MessageConfig.SendMode.TICK), 0);
        c.ep.update(0.9);
        c.ep.receive(first, 0, first.length, 1.01);
        c.ep.receive(fourth, 0, fourth.length, 1.0101);
        assertThat(c.out).isEmpty();
    }

    @Test
    void thePacketLayerStampsSendsAndAcksWithTheirRealTimeBetweenHousekeepingCalls() {
        // the packet layer's clock moved only on its statistics update (at most sendRateHz times a
        // second): a packet sent and acked between two of them had an RTT sample of 0
        Side a = new Side(EndpointPair.config(DeliveryMode.RELIABLE_ORDERED), 0);
        Side b = new Side(EndpointPair.config(DeliveryMode.RELIABLE_ORDERED), 0);
        List<Float> samples = new ArrayList<>();
        a.ep.setRttListener(samples::add);
        a.ep.update(1.0); // housekeeping now, next not before 1.0167
        a.ep.offer(0, new byte[] {1});
        a.ep.flush(1.002);
        a.deliverAll(b, 1.007);
        b.ep.update(1.008); // the ack, after the ack delay
        b.deliverAll(a, 1.013);
        assertThat(samples).hasSize(1);
        assertThat((double) samples.get(0)).isCloseTo(11.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(a.ep.stats().rttMillis()).isCloseTo(11.0, org.assertj.core.data.Offset.offset(0.01));
    }

    /** What {@link #stream} measured. */
    record Stream(long dataPacketsReceived, long ackOnlySent, int delivered, double maxLatency, long updates,
            long catchUps, long peerPacketsSent) {
    }

    /**
     * A 60 Hz stream of 64-byte reliable events from A to B for 30 simulated seconds over a link with
     * {@code loss} each way and 10 ms latency, driven like the transport drives it: each endpoint is
     * updated only at its own {@link MessageEndpoint#nextDeadline()} and by a housekeeping call once a
     * second (so a missing deadline would show as a second of latency), datagrams handed over when due.
     */
    private static Stream stream(MessageConfig config, double loss) {
        LinkConditioner ab = new LinkConditioner(new LinkConditionerConfig(10, 0, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 3));
        LinkConditioner ba = new LinkConditioner(new LinkConditionerConfig(10, 0, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 4));
        double[] clock = {0};
        int events = 1800;
        double[] sentAt = new double[events];
        double[] maxLatency = {0};
        int[] delivered = {0};
        MessageEndpoint a = new MessageEndpoint(config, 0, (d, o, l) -> ab.submit(d, o, l, clock[0]), (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, 0, (d, o, l) -> ba.submit(d, o, l, clock[0]), (c, id, d, o, l) -> {
            int index = ByteBuffer.wrap(d, o, l).getInt();
            assertThat(index).isEqualTo(delivered[0]); // in order, exactly once
            delivered[0]++;
            maxLatency[0] = Math.max(maxLatency[0], clock[0] - sentAt[index]);
        });
        double nextEvent = 0;
        double nextHousekeeping = 1;
        int offered = 0;
        long updates = 0;
        int sameTime = 0;
        while (clock[0] < 60 && (offered < events || a.hasPendingReliable())) {
            double t = Math.min(Math.min(a.nextDeadline(), b.nextDeadline()), Math.min(ab.nextDueTime(), ba.nextDueTime()));
            t = Math.min(t, Math.min(offered < events ? nextEvent : Double.POSITIVE_INFINITY, nextHousekeeping));
            double now = Math.max(clock[0], t);
            sameTime = now == clock[0] ? sameTime + 1 : 0;
            assertThat(sameTime).as("the endpoints keep asking for a call at the same time: a deadline that never clears").isLessThan(100);
            clock[0] = now;
            ab.poll(now, (d, o, l) -> b.receive(d, o, l, clock[0]));
            ba.poll(now, (d, o, l) -> a.receive(d, o, l, clock[0]));
            if (offered < events && now >= nextEvent) {
                byte[] event = new byte[64];
                ByteBuffer.wrap(event).putInt(offered);
                sentAt[offered] = now;
                assertThat(a.offer(0, event)).isNotNegative();
                offered++;
                nextEvent += 1.0 / 60;
            }
            boolean housekeeping = now >= nextHousekeeping;
            if (housekeeping) {
                nextHousekeeping += 1;
            }
            if (housekeeping || a.nextDeadline() <= now) {
                a.update(now);
                updates++;
            }
            if (housekeeping || b.nextDeadline() <= now) {
                b.update(now);
                updates++;
            }
        }
        return new Stream(b.stats().packetsReceived(), b.stats().ackOnlyPacketsSent(), delivered[0], maxLatency[0], updates,
                b.sequenceCatchUps(), a.stats().packetsSent());
    }

    @Test
    void aOneWayStreamCostsAtMostOneAckOnlyPacketPerDataPacketAndItsDeadlinesRepairLosses() {
        MessageConfig immediate = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED);
        Stream clean = stream(immediate, 0);
        Stream lossy = stream(immediate, 0.10);
        // the tick model at 240 Hz, a hand-tuned setup: acks on every tick, repeated on idle ones
        Stream tick = stream(immediate.toBuilder().sendMode(MessageConfig.SendMode.TICK).sendRateHz(240).build(), 0);
        System.out.printf("one-way 60 Hz stream, 1800 events: immediate clean %s%n  immediate 10%% loss %s%n  tick 240 Hz clean %s%n",
                clean, lossy, tick);
        for (Stream s : List.of(clean, lossy, tick)) {
            assertThat(s.delivered()).isEqualTo(1800);
        }
        // one ack-only packet per data packet received at most, beside the few that keep B's sequence caught
        // up with A's after a lost packet while losses are rare (OwedAcks.catchUpDue): B never sends
        // more packets than A did
        for (Stream s : List.of(clean, lossy)) {
            assertThat(s.ackOnlySent() - s.catchUps()).isLessThanOrEqualTo(s.dataPacketsReceived());
            assertThat(s.ackOnlySent()).isLessThanOrEqualTo(s.peerPacketsSent());
        }
        assertThat(clean.catchUps()).isZero();
        assertThat(lossy.catchUps()).isLessThanOrEqualTo(lossy.peerPacketsSent() - lossy.dataPacketsReceived());
        // on a clean link every event is one packet and its ack, 1 ms later: one-way delay + nothing
        assertThat(clean.dataPacketsReceived()).isEqualTo(1800);
        assertThat(clean.maxLatency()).isLessThan(0.0105);
        // the resend deadlines woke the sender: a lost event waited about one resend interval, not the
        // housekeeping second (10 % loss each way: a few losses in a row happen, each one RTO)
        assertThat(lossy.maxLatency()).isLessThan(0.5);
        // what the rule replaces: a 240 Hz receiver sends several ack-only packets per data packet
        assertThat(tick.ackOnlySent()).isGreaterThan(2 * tick.dataPacketsReceived());
    }
}
