package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The default controller lets a send run ahead of its pacing schedule by at least two full packets
 * ({@link DeliveryRateController#BURST_PACKETS}), not only by the 1 ms quantum: at the rate an
 * application-limited event stream measures (60 Hz of small packets: a few kB/s) the quantum is a few
 * bytes, less than one packet, so an extra packet (a resend, a catch-up) or a probe phase pacing below
 * 1x would hold the next event for milliseconds (the 0 % loss tail of the {@code loss} benchmark). At high rates the quantum
 * is the larger and nothing changes.
 */
class PacingBurstAllowanceTest {

    private static final int PACKET = 1200;
    private static final int EVENT = 105;

    private static DeliveryRateController measuring(double bytesPerSecond) {
        DeliveryRateController c = new DeliveryRateController(0, 60, new PacketLog(1024), 16L * PACKET, PACKET,
                0.001, 0.007);
        c.onAck(1, PACKET, 0.0002, bytesPerSecond, 0, 0, PACKET);
        return c;
    }

    @Test
    void anEventRightAfterAnExtraPacketGoesAtOnceOnASlowStream() {
        DeliveryRateController c = measuring(6_300);
        double rate = c.pacingRateBytesPerSecond();
        assertThat(rate).isLessThan(20_000); // a 60 Hz stream's few kB/s
        double t = 2;
        c.onPacketSent(t, EVENT);           // an event
        c.onPacketSent(t + 0.0005, EVENT);  // and a resend right behind it
        // the next event 1 ms later: the 1 ms quantum alone would hold it until the schedule caught up
        double behind = 2.0 * EVENT / rate - 0.0015;
        assertThat(behind).as("what the quantum alone would make it wait").isGreaterThan(0.005);
        assertThat(c.canSend(t + 0.0015, EVENT)).isTrue();
        assertThat(c.nextSendTime(t + 0.0015, EVENT)).isEqualTo(t + 0.0015);
    }

    @Test
    void theAllowanceIsTwoPacketsNotMore() {
        DeliveryRateController c = measuring(6_300);
        double rate = c.pacingRateBytesPerSecond();
        double t = 2;
        // two full packets' worth ahead of the schedule go; the next must wait
        int sent = 0;
        while (c.canSend(t, PACKET) && sent < 10) {
            c.onPacketSent(t, PACKET);
            sent++;
        }
        assertThat(sent).isEqualTo(DeliveryRateController.BURST_PACKETS + 1);
        assertThat(c.nextSendTime(t, PACKET) - t).isCloseTo(PACKET / rate, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void atHighRatesTheQuantumStillDecides() {
        DeliveryRateController c = measuring(10_000_000);
        double rate = c.pacingRateBytesPerSecond();
        assertThat(DeliveryRateController.BURST_PACKETS * PACKET / rate).isLessThan(0.001);
        double t = 2;
        int sent = 0;
        while (c.canSend(t, PACKET) && sent < 1000) {
            c.onPacketSent(t, PACKET);
            sent++;
        }
        // one quantum (1 ms) of the pacing rate, plus the packet that crossed it
        assertThat(sent).isEqualTo((int) Math.floor(0.001 * rate / PACKET) + 1);
    }
}
