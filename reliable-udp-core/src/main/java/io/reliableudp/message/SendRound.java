package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * The mechanics of sending that both send schedules share: a send round (packets from the
 * {@link PacketComposer} while the round's packet limit, the {@link PacketLog}'s ring and the
 * {@link CongestionController} let them go) and ack-only packets (with the catch-up of this end's
 * sequence). Clears what the {@link OwedAcks} hold when a packet carried the acks. Decides neither when
 * a round runs nor what a packet carries: the {@link SendSchedule} calls it, the composer fills the packets.
 *
 * <p>A round runs between {@link #enter} and {@link #exit}, never nested: the listeners a round may
 * call (a completed unreliable message's) can ask for another, which is then not run. After the first
 * round in which a packet was full with more waiting, {@link #exit} tells the connection, once, that
 * larger packets are wanted (it may then probe a larger datagram budget).
 */
final class SendRound {

    /** An {@code aloneGap} that no time since the previous data packet reaches: no packet is marked alone. */
    static final double NEVER_ALONE = Double.NaN;

    private final PacketComposer composer;
    private final OwedAcks owed;
    private final PacketLog log;
    private final PacketLink link;
    private final CongestionController congestion;
    private final int maxPacketsPerUpdate;
    private boolean composing;
    /** Whether the last {@link #fill} was cut by its packet limit. */
    private boolean reachedLimit;
    /** Whether {@link #largerPacketsWanted} was told (once per endpoint). */
    private boolean largerPacketsAsked;
    /** Told once, after the first round in which a packet was full with more waiting (the connection may then probe a larger budget). */
    private @Nullable Runnable largerPacketsWanted;
    /** Told when large packets seem lost while smaller ones pass (null: nobody); it should lower the budget. */
    private @Nullable Runnable largePacketsLost;
    /** When the last data packet went. */
    private double lastDataSentTime = Double.NEGATIVE_INFINITY;
    private long sequenceCatchUps;

    SendRound(MessageConfig config, PacketComposer composer, OwedAcks owed, PacketLog log, PacketLink link,
            CongestionController congestion) {
        this.composer = composer;
        this.owed = owed;
        this.log = log;
        this.link = link;
        this.congestion = congestion;
        this.maxPacketsPerUpdate = config.maxPacketsPerUpdate();
    }

    /** Whom to tell, once, that a packet was full while more waited (null: nobody). */
    void onLargerPacketsWanted(@Nullable Runnable r) {
        this.largerPacketsWanted = r;
    }

    /**
     * Whom to tell, after a round that {@link PacketComposer#watchLarge} stopped, that large packets
     * seem lost while smaller ones pass (null: nobody). It should lower the datagram budget before the
     * next round; if it does not, the watch ends, so that the stopped round cannot stall the sender.
     */
    void onLargePacketsLost(@Nullable Runnable r) {
        this.largePacketsLost = r;
    }

    /**
     * Packets are composed in {@code frames} from now on, at most {@code packetBudget} frame bytes
     * each (the connection's datagram budget changed).
     *
     * @throws IllegalStateException when called while a round runs
     */
    void packetBudgetChanged(FrameWriter frames, int packetBudget) {
        if (composing) {
            throw new IllegalStateException("the datagram budget changed while a packet was composed");
        }
        composer.packetBudgetChanged(frames, packetBudget);
    }

    /** The largest packet payload now (what pacing counts per packet). */
    int packetBudget() {
        return composer.packetBudget();
    }

    /** Whether a round runs now (a listener it called is asking). */
    boolean composing() {
        return composing;
    }

    /** Starts a round; false, starting none, when one runs already. */
    boolean enter() {
        if (composing) {
            return false;
        }
        composing = true;
        return true;
    }

    /** Ends the round {@link #enter} started (in a {@code finally}). */
    void exit() {
        composing = false;
        if (composer.takeLargeLost()) {
            int before = composer.packetBudget();
            Runnable r = largePacketsLost;
            if (r != null) {
                r.run();
            }
            if (composer.packetBudget() >= before) {
                composer.watchLarge(Integer.MAX_VALUE); // nobody lowered it: never stop again
            }
        }
        if (composer.packetWasFull() && !largerPacketsAsked) {
            largerPacketsAsked = true;
            Runnable r = largerPacketsWanted;
            if (r != null) {
                r.run();
            }
        }
    }

    /**
     * Sends the round's packets at {@code now}: as many as the composer fills, within the congestion
     * controller's packets per round, its window and pacing, and the packet log's ring. A packet goes
     * alone when at least {@code aloneGap} seconds passed since the previous data packet
     * ({@link #NEVER_ALONE}: never). Returns the packets tried (sent or refused by the packet layer).
     */
    int fill(double now, double aloneGap) {
        composer.startRound(now);
        int limit = congestion.packetsPerRound(maxPacketsPerUpdate);
        int sent = 0;
        while (sent < limit && !log.slotBusy(link.nextPacketSequence())
                && congestion.canSend(now, composer.packetBudget())) {
            int result = composer.composeAndSend(now - lastDataSentTime >= aloneGap);
            if (result == PacketComposer.NOTHING) {
                break;
            }
            if (result == PacketComposer.SENT) {
                lastDataSentTime = now;
                owed.acksSent();
                owed.noDeadline(); // the packet carries the acks
            }
            sent++;
        }
        reachedLimit = sent == limit;
        return sent;
    }

    /** Whether the last {@link #fill} stopped at its packet limit (more may wait). */
    boolean reachedLimit() {
        return reachedLimit;
    }

    /**
     * Sends a header-only packet: it carries the packet layer's acks and nothing else. Then, when this
     * end's sequence has fallen behind the newest one received by one (the peer sent a packet this end
     * did not answer: a lost one, or two acknowledged at once) while the peer's packets are rarely lost,
     * sends one more to catch it up ({@link OwedAcks#catchUpDue}). The ack deadline is cleared even when
     * the packet layer refuses the packet (no retry loop). Returns whether the first packet went.
     */
    boolean sendAckOnly(double now) {
        owed.noDeadline();
        if (!composer.sendHeaderOnly(now)) {
            return false;
        }
        owed.acksSent();
        for (int n = owed.catchUpDue(link.nextPacketSequence()); n > 0 && composer.sendHeaderOnly(now); n--) {
            sequenceCatchUps++;
        }
        return true;
    }

    /** Ack-only packets sent only to catch this end's sequence up with the peer's ({@link OwedAcks#catchUpDue}). */
    long sequenceCatchUps() {
        return sequenceCatchUps;
    }
}
