package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link MessageEndpoint#settled()}: what a thread that just flushed an IMMEDIATE endpoint asks before it
 * leaves the endpoint's timers to its driver's next service instead of waking the driver (the
 * transport's writes by the sending thread). Settled means every queued message went out and no
 * acknowledgement is owed; so a message in flight does not unsettle it, and a loss leaves it
 * unsettled only while its resend waits to be written. Simulated clock ({@link LossSim}).
 */
class SettledTest {

    private static final double EVENT = 1.0 / 60;

    private static MessageConfig immediate() {
        return LossSim.config(0, false).toBuilder().sendMode(MessageConfig.SendMode.IMMEDIATE).build();
    }

    /** A prompt sim over a clean 20 ms link, 30 events at 60 Hz behind it. */
    private static LossSim clean() {
        return LossSim.warm(immediate(), 30, 4096);
    }

    /** Clean events at 60 Hz until {@code until} on the sim's clock. */
    private static void streamUntil(LossSim sim, double until) {
        while (sim.time < until) {
            sim.offer(64);
            sim.run(EVENT);
        }
    }

    @Test
    void aWrittenMessageLeavesOnlyItsTimerSoTheEndpointIsSettled() {
        LossSim sim = clean();
        assertThat(sim.a.settled()).as("nothing queued, nothing owed").isTrue();
        sim.offer(64); // flushed at once
        assertThat(sim.a.hasPendingReliable()).as("in flight").isTrue();
        assertThat(sim.a.settled()).as("written, waiting for its ack").isTrue();
        sim.run(0.2);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        assertThat(sim.a.settled()).isTrue();
    }

    @Test
    void aReceiverThatOwesAnAckIsNotSettledUntilItSendsOne() {
        MessageConfig config = immediate();
        List<byte[]> toB = new ArrayList<>();
        List<byte[]> toA = new ArrayList<>();
        MessageEndpoint a = new MessageEndpoint(config, 100.0, (d, o, l) -> toB.add(Arrays.copyOfRange(d, o, o + l)), (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, 100.0, (d, o, l) -> toA.add(Arrays.copyOfRange(d, o, o + l)), (c, id, d, o, l) -> { });
        assertThat(a.offer(0, new byte[10])).isNotNegative();
        a.flush(100.0);
        assertThat(toB).hasSize(1);
        b.receive(toB.get(0), 0, toB.get(0).length, 100.001);
        assertThat(b.settled()).as("owes an ack within its ack delay").isFalse();
        b.update(100.001 + config.ackDelaySeconds() + 1e-6);
        assertThat(toA).as("the ack-only packet").hasSize(1);
        assertThat(b.settled()).isTrue();
    }

    @Test
    void anEndpointWithMessagesItCouldNotWriteYetIsNotSettled() {
        LossSim sim = clean();
        // more than one round may send (its packet limit): the rest waits for the next round
        for (int i = 0; i < 500; i++) {
            assertThat(sim.a.offer(0, LossSim.payload(1000 + i, 1000))).isNotNegative();
        }
        sim.a.flush(sim.time);
        assertThat(sim.a.settled()).as("messages not written yet").isFalse();
        sim.run(3);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        assertThat(sim.a.settled()).isTrue();
    }

    @Test
    void aLostPacketOnceResentAndAcknowledgedLeavesTheEndpointSettled() {
        LossSim sim = clean();
        int lost = sim.offered;
        sim.dropAB = d -> LossSim.carries(d, lost) && sim.dropped == 0;
        sim.offer(64);
        assertThat(sim.a.settled()).as("written: the loss is not known yet").isTrue();
        assertThat(sim.runUntilDelivered(lost, 2)).isTrue();
        sim.run(0.2);
        assertThat(sim.a.stats().packetsDeclaredLost()).as("the acks of the resend condemn the lost packet").isEqualTo(1);
        assertThat(sim.a.hasPendingReliable()).isFalse();
        // the resend's timer served the loss: the link's history does not change what a write leaves
        assertThat(sim.a.settled()).as("nothing pending 0.2 s after a loss").isTrue();
        streamUntil(sim, sim.time + 1);
        assertThat(sim.a.settled()).as("a clean stream after it").isTrue();
    }

    @Test
    void aLostAckResendsButLeavesTheEndpointSettled() {
        LossSim sim = clean();
        int index = sim.offered;
        // B's acknowledgements of the next event are lost (B sends nothing else): A's timer resends a
        // message that arrived, and the acks of the resend acknowledge the first packet too
        sim.dropBA = d -> sim.droppedBA < 1;
        sim.offer(64);
        assertThat(sim.runUntilDelivered(index, 1)).isTrue();
        sim.run(0.3);
        assertThat(sim.droppedBA).isEqualTo(1);
        assertThat(sim.a.stats().timerResends()).as("resent by its timer").isEqualTo(1);
        assertThat(sim.a.stats().packetsDeclaredLost()).as("nothing of A's was lost").isZero();
        assertThat(sim.a.hasPendingReliable()).isFalse();
        assertThat(sim.a.settled()).isTrue();
    }

    @Test
    void aTickModeEndpointIsNeverSettled() {
        LossSim sim = new LossSim(LossSim.config(0, false), LossSim.link(20, 0, 0, 1), LossSim.link(20, 0, 0, 2), true, 64);
        sim.run(0.2);
        assertThat(sim.a.settled()).isFalse();
    }
}
