package io.reliableudp.message;

/**
 * The {@link SendSchedule} of {@link MessageConfig.SendMode#IMMEDIATE}: a send round runs as soon as
 * there is something to send (a message was queued, acks may have opened the window, a round was cut
 * by its packet limit, a resend fell due), within the congestion controller's pacing; received data is
 * acknowledged within the ack delay, at once when a packet revealed a gap, and {@link #nextDeadline}
 * tells the driver when the next update is wanted. A packet that goes at least two ack delays (+ 1 ms)
 * after the previous data packet goes alone: the peer acknowledges it at once, so its messages get the
 * shorter resend interval ({@link ResendTimer#resendIntervalAloneSeconds}).
 *
 * <p>The updates in between the send rate's run only this schedule: the housekeeping (statistics, loss
 * timeout, congestion update) runs at most at the configured send rate ({@link #housekeepingDue}).
 */
final class ImmediateSchedule implements SendSchedule {

    /**
     * After data packets carrying this fraction of the receive window in reliable frames without
     * sending one, an ack-only packet goes out at once too: the sender may have at most a receive
     * window of messages in flight, and small messages fill it within fewer than
     * {@link OwedAcks#ACK_EVERY_PACKETS} packets (32-byte messages at a grown budget: 105 a packet, so
     * 16 packets held 41 % of the default window, and the sender waited for acks to free its queue).
     */
    static final int ACK_WINDOW_FRACTION = 8;
    /** The earliest a resend deadline may be after a round that found it not yet due (1 us). */
    static final double RESEND_GRANULARITY_SECONDS = 1e-6;

    /**
     * Packets go as they are paced (a 1 ms burst quantum), and an ack comes back within the peer's ack
     * delay, plus a few ms for the threads on the way (the I/O loop's timer resolution is a millisecond).
     */
    static final SendSchedule.Kind KIND = new SendSchedule.Kind() {
        @Override
        public double pacingQuantumSeconds(MessageConfig config) {
            return 0.001;
        }

        @Override
        public double ackAllowanceSeconds(MessageConfig config) {
            return 0.005 + 2 * config.ackDelaySeconds();
        }

        @Override
        public double peerAckDelayBoundSeconds(MessageConfig config) {
            return config.ackDelaySeconds();
        }

        @Override
        public SendSchedule create(MessageConfig config, double time, SendRound round, OwedAcks owed,
                CongestionController congestion, SendQueue queue) {
            return new ImmediateSchedule(config, round, owed, congestion, queue);
        }
    };

    private final SendRound round;
    private final OwedAcks owed;
    private final CongestionController congestion;
    private final SendQueue queue;
    private final SendChannel[] channels;
    private final boolean everyPacket;
    private final double ackDelay;
    /**
     * How long after the previous data packet a packet must go for the peer to acknowledge it at once:
     * the peer's last ack-only packet then left at least its ack delay before this packet arrives (see
     * {@link #packetReceived}; the peer's ack delay is taken to be this end's, as everywhere).
     */
    private final double aloneGap;
    /** {@link OwedAcks#reliableFramesSinceSend} at which an ack is owed at once (receive window / {@link #ACK_WINDOW_FRACTION}). */
    private final int ackEveryFrames;
    private final double housekeepingInterval;
    private double nextHousekeeping = Double.NEGATIVE_INFINITY;

    /** A round may find something to send: a message was queued, acks came, or a round was cut short. */
    private boolean wantRound;
    /** When the last round ran, sending or not. */
    private double lastAttempt = Double.NEGATIVE_INFINITY;
    /** When the last round that sent data ran (the pacing base). */
    private double lastRoundTime = Double.NEGATIVE_INFINITY;
    /** When the last ack-only packet went (the rate limit of prompt acks). */
    private double lastAckOnlyTime = Double.NEGATIVE_INFINITY;
    private long immediateAcks;

    private ImmediateSchedule(MessageConfig config, SendRound round, OwedAcks owed, CongestionController congestion,
            SendQueue queue) {
        this.round = round;
        this.owed = owed;
        this.congestion = congestion;
        this.queue = queue;
        this.channels = queue.channels;
        this.everyPacket = config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET;
        this.ackDelay = config.ackDelaySeconds();
        this.aloneGap = 2 * ackDelay + ResendTimer.MIN_ACK_DELAY_BOUND_SECONDS;
        this.ackEveryFrames = Math.max(1, config.receiveWindow() / ACK_WINDOW_FRACTION);
        this.housekeepingInterval = 1.0 / config.sendRateHz();
    }

    /** {@link #service}. */
    @Override
    public void update(double now) {
        service(now);
    }

    /** At once unless the controller paces this connection; then at {@link #nextDeadline}. */
    @Override
    public void flush(double now) {
        wantRound = true;
        service(now);
    }

    /**
     * Runs a send round when one may find something to send and the window and pacing allow it (its
     * packets carry the acks), then an ack-only packet when received data waited out the ack delay (or
     * revealed a gap) and no packet went back.
     */
    private void service(double now) {
        if (round.composing()) {
            return;
        }
        afterReceive(now);
        if (now >= owed.deadline()) {
            sendAckOnly(now);
        }
    }

    /**
     * The send round, when one may find something to send (the acks may have opened the window or shown
     * a loss); its packets carry the acks. An acknowledgement owed now does not go here:
     * {@link #nextDeadline} asks for it at once, and the driver's next {@code update} sends it unless a
     * packet carried it first. The transport makes that update after the listener calls of the
     * datagram's turn, so a listener's reply carries the ack and the delivery does not wait behind an
     * ack-only packet. Only when {@link OwedAcks#ACK_EVERY_PACKETS} data packets wait, or packets with an
     * {@link #ACK_WINDOW_FRACTION eighth} of the receive window in reliable frames, does it go here: a
     * driver that feeds many datagrams before its next update must not let the older ones fall out of
     * the ack header's 32-packet window.
     */
    @Override
    public void afterReceive(double now) {
        if (round.composing()) {
            return;
        }
        if (now >= pacingTime(now) && (wantRound || resendDeadline() <= now)) {
            sendRound(now);
        }
        if ((owed.dataPacketsSinceSend() >= OwedAcks.ACK_EVERY_PACKETS
                || owed.reliableFramesSinceSend() >= ackEveryFrames) && now >= owed.deadline()) {
            sendAckOnly(now);
        }
    }

    private void sendRound(double now) {
        if (!round.enter()) {
            return;
        }
        try {
            int sent = round.fill(now, aloneGap);
            lastAttempt = now;
            // more may wait when the round was cut by its limit or by the window (acks or the loss
            // timeout open it); otherwise a new message, an ack or a resend deadline asks again
            wantRound = round.reachedLimit() || congestion.nextSendTime(now, round.packetBudget()) > now;
            if (sent > 0) {
                lastRoundTime = now;
            }
        } finally {
            round.exit();
        }
    }

    private void sendAckOnly(double now) {
        if (round.sendAckOnly(now)) {
            lastAckOnlyTime = now;
        }
    }

    /**
     * The earliest of the ack deadline and, unless the window is full (then only acks or the loss
     * timeout open it), the send round's time: at once when a round is wanted, else the earliest
     * resend, never before the pacing time.
     */
    @Override
    public double nextDeadline(double now) {
        double d = owed.deadline();
        double pacing = pacingTime(now);
        if (pacing != Double.POSITIVE_INFINITY) {
            double next;
            if (wantRound) {
                next = now;
            } else {
                // a round at lastAttempt already sent whatever was due by then; a resend deadline that still
                // looks due is the rounding of lastSent + interval against time - lastSent >= interval
                next = Math.max(resendDeadline(), lastAttempt + RESEND_GRANULARITY_SECONDS);
            }
            d = Math.min(d, Math.max(next, pacing));
        }
        return d;
    }

    /**
     * The earliest time the next send round may run: the congestion controller's "earliest time the
     * next packet may go" (its pacing; +inf when only an acknowledgement or a loss can open the
     * window), and in Gaffer's bad mode also one round per {@code 1 / sendRateHz}, as on the tick.
     */
    private double pacingTime(double now) {
        double t = congestion.nextSendTime(now, round.packetBudget());
        if (congestion instanceof GafferController && congestion.congested()) {
            t = Math.max(t, lastRoundTime + 1.0 / congestion.sendRateHz());
        }
        return t;
    }

    /** The earliest time a reliable message already sent falls due for resend (+inf: none in flight). */
    private double resendDeadline() {
        double d = Double.POSITIVE_INFINITY;
        for (SendChannel ch : channels) {
            // a large message at nextUnsent whose slices are partly sent counts too: they wait for resend
            if (ch.reliable && SendQueue.hasSentUnacked(ch)) {
                // EVERY_PACKET resends in every round: without new traffic, rounds at the send rate
                d = Math.min(d, everyPacket ? lastRoundTime + 1.0 / congestion.sendRateHz() : SendQueue.resendDue(ch));
            } else if (ch.skipState != SendChannel.SKIP_NONE) {
                d = Math.min(d, SendQueue.resendDue(ch)); // a SKIP frame owed or waiting for its ack
            }
        }
        return d;
    }

    @Override
    public boolean writtenOut() {
        return !wantRound && owed.deadline() == Double.POSITIVE_INFINITY && queue.allWritten();
    }

    /** The next update sends it. */
    @Override
    public void offered() {
        wantRound = true;
    }

    @Override
    public void acked() {
        wantRound = true;
    }

    /**
     * An acknowledgement is owed at once when the packet is newer than the next expected sequence (a
     * gap: a packet was lost or is late, so the sender should learn it now), when
     * {@link OwedAcks#ACK_EVERY_PACKETS} data packets wait, or when the waiting ones carried an
     * {@link #ACK_WINDOW_FRACTION eighth} of the receive window; else at once too when no ack-only packet
     * went within the last ack delay (a packet alone: its sender's resend timer need not allow for an
     * ack delay), and otherwise one ack delay after the last ack-only packet (a stream: at most one
     * ack-only packet per ack delay, each for every packet that arrived meanwhile). "At once" is the
     * driver's next update ({@link #afterReceive}).
     */
    @Override
    public boolean packetReceived(int sequence, boolean data, int reliableFrames, double now) {
        boolean inOrder = owed.received(sequence, data, reliableFrames);
        if (!data) {
            return inOrder;
        }
        if (owed.gap() || owed.dataPacketsSinceSend() >= OwedAcks.ACK_EVERY_PACKETS
                || owed.reliableFramesSinceSend() >= ackEveryFrames) {
            if (owed.deadline() > now) {
                immediateAcks++;
            }
            owed.dueAt(now);
        } else if (owed.deadline() == Double.POSITIVE_INFINITY) {
            owed.dueAt(Math.max(now, lastAckOnlyTime + ackDelay));
        }
        return inOrder;
    }

    /**
     * The update is also called at every deadline (ack delays, resends), so the packet layer's
     * statistics and the loss and congestion estimates run at most at the send rate, as often as on the
     * tick schedule, and the calls in between only send.
     */
    @Override
    public boolean housekeepingDue(double now) {
        if (now < nextHousekeeping) {
            return false;
        }
        nextHousekeeping = now + housekeepingInterval;
        return true;
    }

    /** Acks sent at once rather than after the ack delay (a gap, or many packets waiting). */
    long immediateAcks() {
        return immediateAcks;
    }
}
