package io.reliableudp.message;

/**
 * No congestion control ({@link MessageConfig.CongestionControl#NONE}, or
 * {@code congestionAvoidance(false)}): the configured tick rate and packets per tick, no pacing, no
 * cap on bytes in flight. For links the application sizes itself, and for tests that look at the
 * composer alone.
 */
final class NoCongestionController implements CongestionController {

    private final double sendRateHz;

    NoCongestionController(double sendRateHz) {
        this.sendRateHz = sendRateHz;
    }

    @Override
    public boolean canSend(double time, int bytes) {
        return true;
    }

    @Override
    public double nextSendTime(double time, int bytes) {
        return time;
    }

    @Override
    public void onPacketSent(double time, int bytes) {
    }

    @Override
    public void onAck(double time, int bytes, double rttSeconds, double deliveryRate, int tag, long deliveredAtSend,
            long delivered) {
    }

    @Override
    public void onLoss(double time, int bytes, int tag) {
    }

    @Override
    public void onUpdate(double time) {
    }

    @Override
    public int sendTag() {
        return 0;
    }

    @Override
    public double sendRateHz() {
        return sendRateHz;
    }

    @Override
    public int packetsPerRound(int maxPacketsPerUpdate) {
        return maxPacketsPerUpdate;
    }

    @Override
    public boolean congested() {
        return false;
    }

    @Override
    public double penaltySeconds() {
        return 0;
    }

    @Override
    public long episodes() {
        return 0;
    }

    @Override
    public long inflightLimitBytes() {
        return -1;
    }

    @Override
    public double pacingRateBytesPerSecond() {
        return Double.POSITIVE_INFINITY;
    }
}
