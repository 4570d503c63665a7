package io.reliableudp.message;

/**
 * The {@link SendSchedule} of {@link MessageConfig.SendMode#TICK}: a send round runs when a tick is
 * due at the congestion controller's send rate (or at a {@link #flush}); received data is acknowledged
 * by the packets of the next tick, or by an ack-only packet on a tick with nothing to send, repeated
 * on {@value #REDUNDANT_ACKS} idle ticks after the last data packet arrived. Only when
 * {@link OwedAcks#ACK_EVERY_PACKETS} data packets arrived without a packet going back does an ack-only
 * packet go at once. No packet goes alone: the peer acknowledges on its own tick.
 */
final class TickSchedule implements SendSchedule {

    /** Idle send ticks that still repeat an ack-only packet after the last data packet arrived. */
    static final int REDUNDANT_ACKS = 2;

    /**
     * The round sends a tick's worth at once, and the acks come back on the ticks of both sides; the
     * receiver acknowledges within one send interval (or its ack delay, if longer).
     */
    static final SendSchedule.Kind KIND = new SendSchedule.Kind() {
        @Override
        public double pacingQuantumSeconds(MessageConfig config) {
            return 1.0 / config.sendRateHz();
        }

        @Override
        public double ackAllowanceSeconds(MessageConfig config) {
            return 2 * (1.0 / config.sendRateHz());
        }

        @Override
        public double peerAckDelayBoundSeconds(MessageConfig config) {
            return Math.max(config.ackDelaySeconds(), 1.0 / config.sendRateHz());
        }

        @Override
        public SendSchedule create(MessageConfig config, double time, SendRound round, OwedAcks owed,
                CongestionController congestion, SendQueue queue) {
            return new TickSchedule(time, round, owed, congestion);
        }
    };

    private final SendRound round;
    private final OwedAcks owed;
    private final CongestionController congestion;
    private double nextSendTime;
    private int redundantAcksLeft;

    private TickSchedule(double time, SendRound round, OwedAcks owed, CongestionController congestion) {
        this.round = round;
        this.owed = owed;
        this.congestion = congestion;
        this.nextSendTime = time;
    }

    /**
     * Runs a send round when a tick is due at the current send rate (or an ack-only packet when there
     * is nothing to send but received data to acknowledge).
     */
    @Override
    public void update(double now) {
        // A tick is due within half an interval of its time, so a caller ticking at the send rate
        // itself, with some scheduling jitter, sends on every call; the schedule keeps the average rate.
        double interval = 1.0 / congestion.sendRateHz();
        if (now >= nextSendTime - 0.5 * interval) {
            nextSendTime = Math.max(nextSendTime + interval, now + 0.5 * interval);
            sendRound(now);
        }
    }

    /** Sends what is queued now, outside the tick schedule. */
    @Override
    public void flush(double now) {
        sendRound(now);
    }

    private void sendRound(double now) {
        if (!round.enter()) {
            return;
        }
        try {
            int sent = round.fill(now, SendRound.NEVER_ALONE);
            if (sent == 0 && (owed.dataPacketsSinceSend() > 0 || redundantAcksLeft > 0)) {
                if (owed.dataPacketsSinceSend() == 0) {
                    redundantAcksLeft--;
                }
                round.sendAckOnly(now);
            }
        } finally {
            round.exit();
        }
    }

    /** An ack-only packet at once when so many data packets arrived without a packet going back. */
    @Override
    public void afterReceive(double now) {
        if (owed.dataPacketsSinceSend() >= OwedAcks.ACK_EVERY_PACKETS) {
            round.sendAckOnly(now);
        }
    }

    /** The time the next send tick is due. */
    @Override
    public double nextDeadline(double now) {
        return nextSendTime - 0.5 / congestion.sendRateHz();
    }

    /** Never: the rounds follow the tick. */
    @Override
    public boolean writtenOut() {
        return false;
    }

    /** The next tick sends it. */
    @Override
    public void offered() {
    }

    /** The next tick uses the room. */
    @Override
    public void acked() {
    }

    /** A data packet is acknowledged on the next tick, and on {@value #REDUNDANT_ACKS} idle ticks after. */
    @Override
    public boolean packetReceived(int sequence, boolean data, int reliableFrames, double now) {
        boolean inOrder = owed.received(sequence, data, reliableFrames);
        if (data) {
            redundantAcksLeft = REDUNDANT_ACKS;
        }
        return inOrder;
    }

    /** Every update: updates come at the send rate. */
    @Override
    public boolean housekeepingDue(double now) {
        return true;
    }
}
