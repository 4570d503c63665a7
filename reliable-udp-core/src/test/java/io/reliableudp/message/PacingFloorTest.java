package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The default controller's pacing floor: a path model collapsed by a stalled or hostile path (RTT samples
 * of tens of seconds, delivery rates of tens of bytes a second) must not hold the next packet for tens of
 * seconds. {@code DeliveryFuzzTest} found a reliable message queued for 100 s that way, on a path that
 * delivered everything again, because with nothing in flight no ack came to raise the rate.
 */
class PacingFloorTest {

    private static final int PACKET = 1200;
    private static final double PROBE = DeliveryRateController.MAX_PROBE_INTERVAL_SECONDS;

    /** A controller whose model is a 30 B/s path with a 22 s RTT, as the fuzz input left it. */
    private static DeliveryRateController collapsed(double time) {
        DeliveryRateController c = new DeliveryRateController(0, 60, new PacketLog(1024), 16L * PACKET, PACKET,
                0.001, 0.007);
        c.onAck(time, PACKET, 22.4, 30, 0, 0, PACKET);
        assertThat(c.bandwidth()).isEqualTo(30);
        return c;
    }

    @Test
    void aCollapsedModelStillLetsOnePacketGoPerProbeInterval() {
        double t = 100;
        DeliveryRateController c = collapsed(t);
        for (int i = 0; i < 5; i++) {
            assertThat(c.canSend(t, PACKET)).as("packet %d at %.3f s", i, t).isTrue();
            c.onPacketSent(t, PACKET);
            double next = c.nextSendTime(t, PACKET);
            // without the floor: 1,200 B at 2.885 x 30 B/s, 14 s after each packet
            assertThat(next - t).as("wait after packet %d", i).isLessThanOrEqualTo(PROBE + 1e-9);
            t = next;
        }
        assertThat(c.pacingRateBytesPerSecond()).isEqualTo(PACKET / PROBE);
    }

    @Test
    void theFloorDoesNotRaiseAModelAboveIt() {
        DeliveryRateController c = new DeliveryRateController(0, 60, new PacketLog(1024), 16L * PACKET, PACKET,
                0.001, 0.007);
        c.onAck(1, PACKET, 0.010, 200_000, 0, 0, PACKET);
        // STARTUP: gain 2.885 over the 200 kB/s sample, far above the 6 kB/s floor
        assertThat(c.pacingRateBytesPerSecond()).isEqualTo(DeliveryRateController.STARTUP_GAIN * 200_000);
        assertThat(c.minPacingRate()).isEqualTo(PACKET / PROBE);
    }
}
