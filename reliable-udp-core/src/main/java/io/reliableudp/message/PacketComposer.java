package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * The send side of one endpoint: decides when a send round runs, fills packets from the
 * {@link SendQueue} (resends due, then new messages, channels taken round-robin; reliable,
 * unreliable, sliced and fragmented-unreliable messages), records what each packet carried in the
 * {@link PacketLog}, and sends ack-only packets when received data waits for an acknowledgement.
 * Asks the {@link CongestionController} how many packets a round may carry, whether the next packet
 * may go and when the next one may (its pacing), and tells it each data packet sent.
 *
 * <p>When a round runs depends on the {@link MessageConfig.SendMode}. {@code IMMEDIATE}: as soon as
 * there is something to send (a message was queued, acks may have opened the window, a round was cut
 * by its packet limit, a resend fell due), within the congestion controller's pacing; received data
 * is acknowledged within the ack delay, at once when a packet revealed a gap, and
 * {@link #nextDeadline} tells the driver when the next call is wanted. {@code TICK}: rounds on the
 * tick schedule at the controller's rate, acks on the ticks (repeated on two idle ticks).
 *
 * <p>Resend selection: a reliable message (or slice) is resent when the {@link LossDetector} marked
 * it (its last packet was lost: a fast resend) or when its resend timer ran out (a timer resend; the
 * interval doubles with each timeout in a row of the same message while nothing is acknowledged, up
 * to the max). Small messages on
 * a channel with redundancy also ride, as copies, in the room left in the next packets.
 *
 * <p>Where the frames go is the {@link FrameWriter}'s business (the datagram buffer, behind room for
 * the lower layers' headers); a composed packet goes to the packet layer's in-place send, so its
 * frames are not copied again. Only an unreliable message larger than a packet is composed in a
 * separate heap buffer and sent through the packet layer's copying, fragmenting path.
 *
 * <p>Allocation-free in steady state: the datagram buffer is preallocated (plus one buffer that grows
 * to the largest fragmented unreliable message).
 */
final class PacketComposer {

    /** After this many received data packets without sending one, an ack-only packet goes out at once (both modes). */
    static final int ACK_EVERY_PACKETS = 16;
    /**
     * IMMEDIATE: after data packets carrying this fraction of the receive window in reliable frames
     * without sending one, an ack-only packet goes out at once too: the sender may have at most a
     * receive window of messages in flight, and small messages fill it within fewer than
     * {@link #ACK_EVERY_PACKETS} packets (32-byte messages at a grown budget: 105 a packet, so 16
     * packets held 41 % of the default window, and the sender waited for acks to free its queue).
     */
    static final int ACK_WINDOW_FRACTION = 8;
    /** TICK mode: idle send ticks that still repeat an ack-only packet after the last data packet arrived. */
    static final int REDUNDANT_ACKS = 2;
    /**
     * Most packets this end's sequence may be behind the newest one received for ack-only packets to
     * catch it up ({@link #sendAckOnly}): one. Further behind, the peer sends in bursts or loses several
     * in a row, and the catch-up (one ack-only packet per step) is likely to be undone before it pays.
     */
    static final int MAX_CATCH_UP = 1;
    /**
     * Highest estimated loss of the peer's packets at which an ack-only packet catches this end's sequence
     * up: a catch-up costs one ack-only packet (37 bytes on IPv4) and saves a byte in each packet of ours
     * until the sequence falls behind again, about {@code 1 / loss} packets later.
     */
    static final double CATCH_UP_MAX_LOSS = 0.02;
    /** Weight of one received packet in the estimate of the peer's packets missing per packet received. */
    static final double INCOMING_LOSS_WEIGHT = 1.0 / 128;
    /** Resend interval base before the first RTT sample. */
    static final double INITIAL_RTT_SECONDS = 0.1;
    /** IMMEDIATE: the earliest a resend deadline may be after a round that found it not yet due (1 us). */
    static final double RESEND_GRANULARITY_SECONDS = 1e-6;
    /** Mean deviations of the RTT added to the smoothed RTT for the resend interval (RFC 6298 K). */
    static final double RTT_VAR_FACTOR = 4.0;
    /** Smallest bound of the peer's ack delay in the resend interval (RFC 6298's G, clock granularity). */
    static final double MIN_ACK_DELAY_BOUND_SECONDS = 0.001;
    /**
     * The longest recent round trip ({@link PacketLog#maxRttSeconds}) takes the smoothed RTT's place in
     * the resend interval when longer, but lengthens it by at most the larger of itself and this (2 ms).
     */
    static final double LONGEST_RTT_STALL_SECONDS = 0.002;
    /** Largest backoff exponent: the interval stops doubling here, if the max did not stop it before. */
    static final int MAX_BACKOFF = 16;

    private static final byte[] EMPTY = new byte[0];

    private final MessageConfig config;
    private final PacketLink link;
    private final PacketLog log;
    private final CongestionController congestion;
    private final SendQueue queue;
    private final SendChannel[] channels;
    private final int channelCount;
    private final int window;
    private final int payloadBudget;
    private final boolean everyPacket;
    /** Set when a frame (not a redundant copy) did not fit the room its packet had left: more waited than one packet holds. */
    private boolean packetWasFull;
    /** Whether {@link #largerPacketsWanted} was told (once per endpoint). */
    private boolean largerPacketsAsked;
    /** Told once, after the first round in which a packet was full with more waiting (the connection may then probe a larger budget). */
    private @Nullable Runnable largerPacketsWanted;
    /** Where packets are composed; replaced when the datagram budget changes. */
    private FrameWriter frames;
    /** The largest packet payload now ({@link #payloadBudget} until the datagram budget grows): what pacing counts per packet. */
    private int packetBudget;
    private final boolean immediate;
    private final double ackDelay;
    /**
     * IMMEDIATE: how long after the previous data packet a packet must go for the peer to acknowledge
     * it at once: the peer's last ack-only packet then left at least its ack delay before this packet
     * arrives (see {@link #packetReceived}; the peer's ack delay is taken to be this end's, as everywhere).
     */
    private final double aloneGap;
    private final int maxRedundancy;
    private byte[] bigBuffer = EMPTY;
    /** Sequence of the packet being composed. */
    private int packetSeq;
    private double peerAckDelayBound;

    /** The time of the current send round (or ack-only packet). */
    private double time;
    private double nextSendTime;
    private int tick;
    private int roundRobin;
    /** The round's resend interval of a message whose last packet went within a stream (the peer's ack may wait out its ack delay). */
    private double resendInterval;
    /** The round's resend interval of a message whose last packet went alone (the peer acknowledges it at once). */
    private double resendIntervalAlone;
    /** The round's resend interval of the messages in the packet being composed (alone or not: {@link PacketLog#sentAlone}). */
    private double packetInterval;

    private int chainChannel = -1;
    private int chainId;
    private boolean composing;

    private int dataPacketsSinceSend;
    /** Reliable frames (messages and slices) in the data packets received since this end last sent a packet. */
    private int reliableFramesSinceSend;
    /** IMMEDIATE: {@link #reliableFramesSinceSend} at which an ack is owed at once (receive window / {@link #ACK_WINDOW_FRACTION}). */
    private final int ackEveryFrames;
    private int redundantAcksLeft;

    // IMMEDIATE mode
    /** When received data must be acknowledged by (+inf: nothing waits for an ack). */
    private double ackDeadline = Double.POSITIVE_INFINITY;
    /** A round may find something to send: a message was queued, acks came, or a round was cut short. */
    private boolean wantRound;
    /** When the last round ran, sending or not. */
    private double lastAttempt = Double.NEGATIVE_INFINITY;
    /** When the last round that sent data ran (the pacing base). */
    private double lastRoundTime = Double.NEGATIVE_INFINITY;
    /** When the last data packet went. */
    private double lastDataSentTime = Double.NEGATIVE_INFINITY;
    /** When the last ack-only packet went (the rate limit of prompt acks). */
    private double lastAckOnlyTime = Double.NEGATIVE_INFINITY;
    /** Newest packet sequence received from the peer (0xFFFF before any: its first packet is 0). */
    private int highestReceived = 0xFFFF;
    private long immediateAcks;
    /** Smoothed count of the peer's sequences skipped per newer packet received (its packets lost or late). */
    private double incomingLoss;
    private boolean receivedAny;
    private long sequenceCatchUps;

    private long packetsSent;
    private long ackOnlyPacketsSent;
    private long packetsNotSent;
    private long datagramsSent;
    private long bytesSent;
    private long fastResends;
    private long timerResends;
    private long redundantCopies;

    PacketComposer(MessageConfig config, double time, int payloadBudget, PacketLink link, PacketLog log,
            CongestionController congestion, SendQueue queue, FrameWriter frames) {
        this.config = config;
        this.time = time;
        this.nextSendTime = time;
        this.payloadBudget = payloadBudget;
        this.packetBudget = payloadBudget;
        this.link = link;
        this.log = log;
        this.congestion = congestion;
        this.queue = queue;
        this.channels = queue.channels;
        this.channelCount = channels.length;
        this.window = config.receiveWindow();
        this.ackEveryFrames = Math.max(1, config.receiveWindow() / ACK_WINDOW_FRACTION);
        this.everyPacket = config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET;
        this.frames = frames;
        this.immediate = config.sendMode() == MessageConfig.SendMode.IMMEDIATE;
        this.ackDelay = config.ackDelaySeconds();
        this.aloneGap = 2 * ackDelay + MIN_ACK_DELAY_BOUND_SECONDS;
        int k = 0;
        for (SendChannel ch : channels) {
            k = Math.max(k, ch.redundancy);
        }
        this.maxRedundancy = everyPacket ? 0 : k;
        // TICK: the peer acks on its send tick; IMMEDIATE: within its ack delay
        this.peerAckDelayBound = Math.max(MIN_ACK_DELAY_BOUND_SECONDS,
                immediate ? config.ackDelaySeconds() : Math.max(config.ackDelaySeconds(), 1.0 / config.sendRateHz()));
    }

    /**
     * Packets are composed in {@code frames} from now on, at most {@code packetBudget} frame bytes
     * each (the connection's datagram budget changed; never while a packet is being composed).
     */
    void packetBudgetChanged(FrameWriter frames, int packetBudget) {
        if (composing) {
            throw new IllegalStateException("the datagram budget changed while a packet was composed");
        }
        this.frames = frames;
        this.packetBudget = packetBudget;
    }

    /** Whom to tell, once, that a packet was full while more waited (null: nobody). */
    void onLargerPacketsWanted(@Nullable Runnable r) {
        this.largerPacketsWanted = r;
    }

    /** The largest packet payload now. */
    int packetBudget() {
        return packetBudget;
    }

    // ------------------------------------------------------------------------------------------
    // When packets go out

    /**
     * The endpoint's update. TICK: runs a send round when a tick is due at the current send rate (or
     * an ack-only packet when there is nothing to send but received data to acknowledge). IMMEDIATE:
     * {@link #service}.
     */
    void tick(double now) {
        if (immediate) {
            service(now);
            return;
        }
        // A tick is due within half an interval of its time, so a caller ticking at the send rate
        // itself, with some scheduling jitter, sends on every call; the schedule keeps the average rate.
        double interval = 1.0 / congestion.sendRateHz();
        if (now >= nextSendTime - 0.5 * interval) {
            nextSendTime = Math.max(nextSendTime + interval, now + 0.5 * interval);
            sendRound(now);
        }
    }

    /**
     * Sends what is queued now, outside the tick schedule (TICK), or as soon as pacing allows
     * (IMMEDIATE: at once unless the controller paces this connection; then at {@link #nextDeadline}).
     */
    void flush(double now) {
        if (immediate) {
            wantRound = true;
            service(now);
            return;
        }
        sendRound(now);
    }

    /**
     * IMMEDIATE: runs a send round when one may find something to send and the window and pacing
     * allow it (its packets carry the acks), then an ack-only packet when received data waited out
     * the ack delay (or revealed a gap) and no packet went back.
     */
    void service(double now) {
        if (composing) {
            return;
        }
        afterReceive(now);
        if (now >= ackDeadline) {
            sendAckOnly(now);
        }
    }

    /**
     * IMMEDIATE, right after a received packet was taken: the send round, when one may find something
     * to send (the acks may have opened the window or shown a loss); its packets carry the acks. An
     * acknowledgement owed now does not go here: {@link #nextDeadline} asks for it at once, and the
     * driver's next {@code update} sends it unless a packet carried it first. The transport makes that
     * update after the listener calls of the datagram's turn, so a listener's reply carries the ack and
     * the delivery does not wait behind an ack-only packet. Only when {@link #ACK_EVERY_PACKETS} data
     * packets wait, or packets with an {@link #ACK_WINDOW_FRACTION eighth} of the receive window in
     * reliable frames, does it go here: a driver that feeds many datagrams before its next update must not
     * let the older ones fall out of the ack header's 32-packet window.
     */
    void afterReceive(double now) {
        if (composing) {
            return;
        }
        if (now >= pacingTime(now) && (wantRound || resendDeadline() <= now)) {
            sendRound(now);
        }
        if ((dataPacketsSinceSend >= ACK_EVERY_PACKETS || reliableFramesSinceSend >= ackEveryFrames) && now >= ackDeadline) {
            sendAckOnly(now);
        }
    }

    /**
     * IMMEDIATE: when this endpoint wants its next {@code update} (seconds; {@code now} or earlier:
     * at once; +inf: only when something happens). The earliest of the ack deadline and, unless the
     * window is full (then only acks or the loss timeout open it), the send round's time: at once
     * when a round is wanted, else the earliest resend, never before the pacing time. TICK: the time
     * the next send tick is due.
     */
    double nextDeadline(double now) {
        if (!immediate) {
            return nextSendTime - 0.5 / congestion.sendRateHz();
        }
        double d = ackDeadline;
        double pacing = pacingTime(now);
        if (pacing != Double.POSITIVE_INFINITY) {
            double round;
            if (wantRound) {
                round = now;
            } else {
                // a round at lastAttempt already sent whatever was due by then; a resend deadline that still
                // looks due is the rounding of lastSent + interval against time - lastSent >= interval
                round = Math.max(resendDeadline(), lastAttempt + RESEND_GRANULARITY_SECONDS);
            }
            d = Math.min(d, Math.max(round, pacing));
        }
        return d;
    }

    /**
     * The earliest time the next send round may run: the congestion controller's "earliest time the
     * next packet may go" (its pacing; +inf when only an acknowledgement or a loss can open the
     * window), and in Gaffer's bad mode also one round per {@code 1 / sendRateHz}, as in TICK.
     */
    private double pacingTime(double now) {
        double t = congestion.nextSendTime(now, packetBudget);
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
                d = Math.min(d, everyPacket ? lastRoundTime + 1.0 / congestion.sendRateHz() : ch.nextResendTime);
            }
        }
        return d;
    }

    /**
     * IMMEDIATE: whether everything queued went out, no acknowledgement is owed and no round is wanted,
     * so that all this endpoint still waits for are the resend timers of messages in flight (and
     * whatever arrives). TICK: never (its rounds follow the tick).
     */
    boolean writtenOut() {
        return immediate && !wantRound && ackDeadline == Double.POSITIVE_INFINITY && queue.allWritten();
    }

    /** A message was queued (IMMEDIATE: the next service sends it). */
    void offered() {
        wantRound = true;
    }

    /** A packet of ours was acknowledged: bytes in flight fell and windows may have opened. */
    void acked() {
        wantRound = true;
    }

    /**
     * The packet layer accepted packet {@code sequence} of the peer (a data packet when
     * {@code data}, else ack-only; {@code reliableFrames} reliable messages and slices in it) at
     * {@code now}. A data packet wants an acknowledgement: TICK on the next tick. IMMEDIATE: at once
     * when it is newer than the next expected sequence (a gap: a packet was lost or is late, so the
     * sender should learn it now), when {@link #ACK_EVERY_PACKETS} data packets wait, or when the
     * waiting ones carried an {@link #ACK_WINDOW_FRACTION eighth} of the receive window; else at once too when no ack-only packet went within the last ack delay (a packet
     * alone: its sender's resend timer need not allow for an ack delay), and otherwise one ack delay
     * after the last ack-only packet (a stream: at most one ack-only packet per ack delay, each for
     * every packet that arrived meanwhile). "At once" is the driver's next update
     * ({@link #afterReceive}).
     *
     * @return whether the packet is the one right after the newest received before (none lost or late between)
     */
    boolean packetReceived(int sequence, boolean data, int reliableFrames, double now) {
        int ahead = (sequence - highestReceived) & 0xFFFF;
        boolean newer = ahead != 0 && ahead < 0x8000;
        boolean gap = newer && ahead > 1;
        if (newer) {
            incomingLoss += (Math.min(ahead - 1, 64) - incomingLoss) * INCOMING_LOSS_WEIGHT;
            highestReceived = sequence;
            receivedAny = true;
        }
        boolean inOrder = newer && !gap;
        if (!data) {
            return inOrder;
        }
        dataPacketsSinceSend++;
        reliableFramesSinceSend += reliableFrames;
        redundantAcksLeft = REDUNDANT_ACKS;
        if (immediate) {
            if (gap || dataPacketsSinceSend >= ACK_EVERY_PACKETS || reliableFramesSinceSend >= ackEveryFrames) {
                if (ackDeadline > now) {
                    immediateAcks++;
                }
                ackDeadline = now;
            } else if (ackDeadline == Double.POSITIVE_INFINITY) {
                ackDeadline = Math.max(now, lastAckOnlyTime + ackDelay);
            }
        }
        return inOrder;
    }

    /**
     * Whether an ack-only packet is due now, right after a receive: TICK when so many data packets
     * arrived without a packet going back; IMMEDIATE never here ({@link #service} sends it).
     */
    boolean ackDue() {
        return !immediate && dataPacketsSinceSend >= ACK_EVERY_PACKETS;
    }

    /** A datagram the packet layer put on the wire (a packet or one fragment of it). */
    void transmitted(int length) {
        datagramsSent++;
        bytesSent += length;
    }

    private void sendRound(double now) {
        if (composing) {
            return;
        }
        composing = true;
        try {
            time = now;
            tick++;
            resendInterval = resendIntervalSeconds();
            resendIntervalAlone = resendIntervalAloneSeconds();
            int limit = congestion.packetsPerRound(config.maxPacketsPerUpdate());
            int sent = 0;
            while (sent < limit && !log.slotBusy(link.nextPacketSequence()) && congestion.canSend(now, packetBudget)
                    && composeAndSend()) {
                sent++;
            }
            if (immediate) {
                lastAttempt = now;
                // more may wait when the round was cut by its limit or by the window (acks or the loss
                // timeout open it); otherwise a new message, an ack or a resend deadline asks again
                wantRound = sent == limit || congestion.nextSendTime(now, packetBudget) > now;
                if (sent > 0) {
                    lastRoundTime = now;
                }
                return;
            }
            if (sent == 0 && (dataPacketsSinceSend > 0 || redundantAcksLeft > 0)) {
                if (dataPacketsSinceSend == 0) {
                    redundantAcksLeft--;
                }
                sendAckOnly(now);
            }
        } finally {
            composing = false;
            if (packetWasFull && !largerPacketsAsked) {
                largerPacketsAsked = true;
                Runnable r = largerPacketsWanted;
                if (r != null) {
                    r.run();
                }
            }
        }
    }

    /**
     * The current resend interval (seconds; 0 under EVERY_PACKET), before backoff, of a reliable message
     * whose last packet went within a stream: the peer's ack may wait out its ack delay.
     */
    double resendIntervalSeconds() {
        return resendInterval(peerAckDelayBound, config.ackDelaySeconds());
    }

    /**
     * IMMEDIATE: the current resend interval, before backoff, of a reliable message whose last packet
     * went alone ({@link PacketLog#sentAlone}): the peer acknowledges it at once, so the interval
     * allows for no ack delay, only for the clock's granularity ({@link #MIN_ACK_DELAY_BOUND_SECONDS}).
     * TICK: {@link #resendIntervalSeconds()}.
     */
    double resendIntervalAloneSeconds() {
        return immediate ? resendInterval(MIN_ACK_DELAY_BOUND_SECONDS, 0) : resendIntervalSeconds();
    }

    /** The resend interval when the peer acks within {@code ackBound} and this end adds {@code extraDelay}. */
    private double resendInterval(double ackBound, double extraDelay) {
        if (everyPacket) {
            return 0;
        }
        double srtt = log.srttSeconds();
        // Before the first sample: the factor times a guessed RTT. After (RFC 6298, with QUIC's ack
        // delay term, RFC 9002): the smoothed RTT plus four mean deviations plus the ack delay, or the
        // factor times the smoothed RTT, whichever is longer. The deviation term is at least what the
        // peer's ack delay may still add on top of the smoothed RTT: its bound minus the part the
        // smoothed RTT already holds above the path's minimum (RFC 6298's clock granularity G: the
        // first samples may not show the peer's tick, and steady samples must not shrink the deviation
        // below it). Within the configured bounds (the lower one 1 ms by default, no longer 20 ms).
        double interval;
        if (srtt < 0) {
            interval = INITIAL_RTT_SECONDS * config.resendRttFactor();
        } else {
            double heldAboveMin = Math.max(0, srtt - Math.max(0, log.minRttSeconds()));
            double granularity = Math.max(RTT_VAR_FACTOR * log.rttVarSeconds(), ackBound - heldAboveMin);
            interval = Math.max(srtt * config.resendRttFactor(), srtt + granularity + extraDelay);
            // The same margin over the longest recent round trip rather than the smoothed one, if that is
            // later, but lengthened by at most the larger of itself and 2 ms (a host's stalls are
            // scheduling delays of a few milliseconds, whatever the path's RTT): the deviation forgets a
            // stall within a few samples, and the next stall would cost a resend (and its ack) of a
            // packet that arrived. Where round trips do not stall, the longest is about the smoothed one.
            double longest = log.maxRttSeconds();
            if (longest > srtt) {
                double most = interval + Math.max(interval, LONGEST_RTT_STALL_SECONDS);
                interval = Math.min(interval + (longest - srtt), most);
            }
        }
        return Math.min(config.maxResendIntervalSeconds(), Math.max(config.minResendIntervalSeconds(), interval));
    }

    /**
     * The longest the peer may wait before acknowledging a data packet (at least 1 ms). Under the tick
     * schedule the receiver acknowledges on its own send tick (or after {@link #ACK_EVERY_PACKETS}
     * packets), so that is one send interval of the configured rate, the default here; a schedule
     * whose acks leave within {@link MessageConfig#ackDelaySeconds()} sets that with
     * {@link #peerAcksWithin}.
     */
    double peerAckDelayBound() {
        return peerAckDelayBound;
    }

    /** The peer acknowledges a data packet within {@code seconds} (see {@link #peerAckDelayBound()}). */
    void peerAcksWithin(double seconds) {
        peerAckDelayBound = Math.max(MIN_ACK_DELAY_BOUND_SECONDS, seconds);
    }

    /**
     * The resend interval after {@code timeouts} timeouts in a row, the last one when the log's ack
     * count was {@code ackMark}: doubled each time, capped by the max, while no packet was acknowledged
     * since (an outage: the path carries nothing, so resending faster only floods it); back to the
     * plain interval once something was (random loss: the path works, the message was unlucky).
     */
    private double backedOff(double interval, int timeouts, int ackMark) {
        int exponent = backoffExponent(timeouts, ackMark);
        if (exponent == 0) {
            return interval;
        }
        return Math.min(Math.max(interval, config.maxResendIntervalSeconds()), interval * (1 << exponent));
    }

    private int backoffExponent(int timeouts, int ackMark) {
        return timeouts != 0 && ackMark == (int) log.acksTaken() ? timeouts : 0;
    }

    /**
     * Sends a header-only packet: it carries the packet layer's acks and nothing else. Then, when this
     * end's sequence has fallen behind the newest one received by one (the peer sent a packet this end
     * did not answer: a lost one, or two acknowledged at once) while the peer's packets are rarely lost,
     * sends one more to catch it up (see {@link #catchUpDue}).
     */
    void sendAckOnly(double now) {
        ackDeadline = Double.POSITIVE_INFINITY; // also when the packet is not sent: no retry loop
        if (!sendHeaderOnly(now)) {
            return;
        }
        lastAckOnlyTime = now;
        dataPacketsSinceSend = 0;
        reliableFramesSinceSend = 0;
        for (int n = catchUpDue(); n > 0 && sendHeaderOnly(now); n--) {
            sequenceCatchUps++;
        }
    }

    private boolean sendHeaderOnly(double now) {
        int seq = link.nextPacketSequence();
        log.begin(seq, now);
        FrameWriter f = frames;
        f.begin();
        int r = link.sendPacket(f.buffer(), f.start(), 0);
        if (r < 0) {
            log.abort();
            packetsNotSent++;
            return false;
        }
        log.commit(false, 0);
        ackOnlyPacketsSent++;
        return true;
    }

    /**
     * How many ack-only packets to add so that the sequence of this end's last packet is not behind the
     * newest sequence received (0: none). The packet layer writes the ack as an 8-bit difference
     * {@code sequence - ack} when that is 0..255 and as 16 bits otherwise ({@code reliable} 1.4.0), so
     * an end whose sequence is behind the peer's by even one pays a byte in every packet from then on
     * until it sends more packets than the peer: on a stream answered by one ack-only packet per data
     * packet, for good after the first lost data packet or the first two acknowledged by one packet.
     * A catch-up costs one ack-only packet each (and protects the acknowledgement it repeats against
     * the loss of the first copy); it pays when the sequence then stays caught up for more than about
     * 37 packets, so only while the peer's packets are rarely lost ({@link #CATCH_UP_MAX_LOSS}) and
     * only for a lag of one ({@link #MAX_CATCH_UP}).
     */
    private int catchUpDue() {
        if (!receivedAny || incomingLoss >= CATCH_UP_MAX_LOSS) {
            return 0;
        }
        // the peer's next packet will be one newer than the newest received, and so will our answer to
        // it: our packet just sent must not be behind the newest received
        int behind = (highestReceived - (link.nextPacketSequence() - 1)) & 0xFFFF;
        return behind <= MAX_CATCH_UP ? behind : 0;
    }

    // ------------------------------------------------------------------------------------------
    // What goes into a packet

    /** Builds and sends one packet; false when there was nothing to send. */
    private boolean composeAndSend() {
        if (queue.bigUnreliableQueued > 0 && sendBigUnreliable()) {
            return true;
        }
        int seq = link.nextPacketSequence();
        packetSeq = seq;
        log.begin(seq, time);
        boolean alone = immediate && time - lastDataSentTime >= aloneGap;
        if (alone) {
            log.markAlone();
        }
        packetInterval = alone ? resendIntervalAlone : resendInterval;
        FrameWriter f = frames;
        f.begin();
        chainChannel = -1;
        int n = channelCount;
        int start = roundRobin;
        roundRobin = start + 1 == n ? 0 : start + 1;
        for (int k = 0; k < n; k++) {
            int c = start + k;
            if (c >= n) {
                c -= n;
            }
            SendChannel ch = channels[c];
            if (ch.head == ch.tail) {
                continue;
            }
            if (ch.reliable) {
                writeReliable(ch);
            } else {
                writeUnreliable(ch);
            }
            if (f.room() < 2) {
                break;
            }
        }
        if (maxRedundancy > 0 && f.length() > 0 && f.room() >= 2) {
            writeCopies();
        }
        int length = f.finish(); // the last MSG frame loses its length byte
        if (length == 0) {
            log.abort();
            return false;
        }
        sent(link.sendPacket(f.buffer(), f.start(), length), length);
        return true;
    }

    private void sent(int sequence, int length) {
        if (sequence < 0) {
            log.abort();
            packetsNotSent++;
        } else {
            log.commit(true, length);
            congestion.onPacketSent(time, length);
            packetsSent++;
            lastDataSentTime = time;
            dataPacketsSinceSend = 0;
            reliableFramesSinceSend = 0;
            ackDeadline = Double.POSITIVE_INFINITY; // the packet carries the acks
        }
    }

    /** The round's resend interval of a message (or slice) whose last packet was {@code seq}. */
    private double intervalAfter(int seq) {
        return log.sentAlone(seq) ? resendIntervalAlone : resendInterval;
    }

    private void writeReliable(SendChannel ch) {
        if (ch.nextUnsent != ch.tail && (everyPacket || time >= ch.nextResendTime)) {
            double nextDue = Double.POSITIVE_INFINITY;
            boolean stopped = false;
            for (int v = ch.tail; v != ch.nextUnsent; v++) {
                int i = v & ch.mask;
                if (ch.state[i] != SendChannel.SENT) {
                    continue;
                }
                LargeSend ls = ch.large[i];
                if (ls != null) {
                    if (!writeLarge(ch, v, ls)) {
                        stopped = true;
                        break;
                    }
                    nextDue = Math.min(nextDue, ls.nextResendTime);
                    continue;
                }
                boolean fast = ch.fastDue[i];
                double ri = intervalAfter(ch.lastSeq[i]);
                if (fast || (ch.lastTick[i] != tick
                        && time - ch.lastSent[i] >= backedOff(ri, ch.timeouts[i], ch.timeoutAcks[i]))) {
                    if (!writeSmall(ch, v, i, false)) {
                        stopped = true;
                        break;
                    }
                    ch.messagesResent++;
                    ri = packetInterval; // its last packet is now this one
                    if (fast) {
                        // the acks show the path works: this message's timer starts over unbacked
                        fastResends++;
                        ch.fastDue[i] = false;
                        ch.timeouts[i] = 0;
                    } else {
                        timerResends++;
                        if (!everyPacket) {
                            ch.timeouts[i] = (byte) Math.min(MAX_BACKOFF, backoffExponent(ch.timeouts[i], ch.timeoutAcks[i]) + 1);
                            ch.timeoutAcks[i] = (int) log.acksTaken();
                        }
                    }
                }
                nextDue = Math.min(nextDue, ch.lastSent[i] + backedOff(ri, ch.timeouts[i], ch.timeoutAcks[i]));
            }
            ch.nextResendTime = stopped ? time : nextDue;
            if (stopped) {
                return;
            }
        }
        while (ch.nextUnsent != ch.head && ch.nextUnsent - ch.tail < window) {
            int v = ch.nextUnsent;
            int i = v & ch.mask;
            LargeSend ls = ch.large[i];
            if (ls != null) {
                if (!ls.started) {
                    long started = queue.largeBytesStarted;
                    if (started > 0 && started + ls.total > config.maxBytesInFlight()) {
                        return;
                    }
                    ls.started = true;
                    queue.largeBytesStarted = started + ls.total;
                    ch.state[i] = SendChannel.SENT;
                }
                boolean done = writeLarge(ch, v, ls);
                ch.nextResendTime = Math.min(ch.nextResendTime, ls.nextResendTime);
                if (!done || ls.nextUnsent < ls.sliceCount) {
                    return;
                }
                ch.nextUnsent++;
            } else {
                if (!writeSmall(ch, v, i, false)) {
                    return;
                }
                ch.state[i] = SendChannel.SENT;
                ch.nextResendTime = Math.min(ch.nextResendTime, time + packetInterval);
                ch.nextUnsent++;
            }
        }
    }

    /**
     * Writes a whole (small) message, as itself or as a redundant {@code copy}; false when it does not
     * fit the packet.
     */
    private boolean writeSmall(SendChannel ch, int v, int i, boolean copy) {
        byte[] p = ch.payload[i];
        int id = v & 0xFFFF;
        int len = p.length;
        boolean next = chainChannel == ch.index && ((chainId + 1) & 0xFFFF) == id;
        int size = next ? Frames.nextFrameSize(len) : Frames.msgFrameSize(len);
        if (size > frames.room()) {
            if (!copy) {
                packetWasFull = true;
            }
            return false;
        }
        if (next) {
            frames.next(p, 0, len);
        } else {
            frames.msg(ch.index, id, p, 0, len);
        }
        chainChannel = ch.index;
        chainId = id;
        ch.lastSent[i] = time;
        ch.lastTick[i] = tick;
        ch.lastSeq[i] = packetSeq;
        long e = PacketLog.entry(ch.index, id);
        if (ch.reliable) {
            log.markReliable();
        }
        log.add(copy ? e | PacketLog.COPY_FLAG : e);
        return true;
    }

    /**
     * Redundancy: into the room the packet has left, copies of the small reliable messages that the
     * previous packets carried (as themselves, not as copies) and that are still unacknowledged, from
     * the packet {@code k} back (oldest first, so their ids ascend) to the one just before, for each
     * channel whose redundancy is at least {@code k}. A message is copied at most once per packet, and
     * a copy that does not fit is skipped.
     */
    private void writeCopies() {
        int seq = packetSeq;
        for (int d = maxRedundancy; d >= 1; d--) {
            int slot = log.slotOf((seq - d) & 0xFFFF);
            if (slot < 0 || log.isAcked(slot) || !log.carriesData(slot)) {
                continue;
            }
            int n = log.entryCount(slot);
            for (int k = 0; k < n; k++) {
                long e = log.entryAt(slot, k);
                if (PacketLog.isCopy(e) || PacketLog.isSlice(e)) {
                    continue;
                }
                int c = PacketLog.channelOf(e);
                if (c >= channelCount) {
                    continue;
                }
                SendChannel ch = channels[c];
                if (ch.redundancy < d) {
                    continue;
                }
                int id = PacketLog.idOf(e);
                int v = ch.tail + ((id - ch.tail) & 0xFFFF);
                if (v - ch.tail >= ch.nextUnsent - ch.tail) {
                    continue;
                }
                int i = v & ch.mask;
                if (ch.state[i] != SendChannel.SENT || ch.large[i] != null || ch.lastSeq[i] == seq
                        || ch.payload[i].length > ChannelConfig.REDUNDANT_MAX_PAYLOAD) {
                    continue;
                }
                if (writeSmall(ch, v, i, true)) {
                    redundantCopies++;
                }
                if (frames.room() < 2) {
                    return;
                }
            }
        }
    }

    /** Writes the due slices of a large message (resends, then new ones); false when the packet filled up. */
    private boolean writeLarge(SendChannel ch, int v, LargeSend ls) {
        if (ls.firstUnacked < ls.nextUnsent && (everyPacket || time >= ls.nextResendTime)) {
            double nextDue = Double.POSITIVE_INFINITY;
            for (int s = ls.firstUnacked; s < ls.nextUnsent; s++) {
                if (ls.acked.get(s)) {
                    continue;
                }
                boolean fast = ls.fastDue[s];
                double ri = intervalAfter(ls.lastSeq[s]);
                if (fast || (ls.lastTick[s] != tick
                        && time - ls.lastSent[s] >= backedOff(ri, ls.timeouts[s], ls.timeoutAcks[s]))) {
                    if (!writeSlice(ch, v, ls, s)) {
                        ls.nextResendTime = time;
                        return false;
                    }
                    ch.messagesResent++;
                    ri = packetInterval; // its last packet is now this one
                    if (fast) {
                        fastResends++;
                        ls.fastDue[s] = false;
                        ls.timeouts[s] = 0;
                    } else {
                        timerResends++;
                        if (!everyPacket) {
                            ls.timeouts[s] = (byte) Math.min(MAX_BACKOFF, backoffExponent(ls.timeouts[s], ls.timeoutAcks[s]) + 1);
                            ls.timeoutAcks[s] = (int) log.acksTaken();
                        }
                    }
                }
                nextDue = Math.min(nextDue, ls.lastSent[s] + backedOff(ri, ls.timeouts[s], ls.timeoutAcks[s]));
            }
            ls.nextResendTime = nextDue;
        }
        while (ls.nextUnsent < ls.sliceCount) {
            if (!writeSlice(ch, v, ls, ls.nextUnsent)) {
                return false;
            }
            ls.nextUnsent++;
            ls.nextResendTime = Math.min(ls.nextResendTime, time + packetInterval);
        }
        return true;
    }

    private boolean writeSlice(SendChannel ch, int v, LargeSend ls, int s) {
        int id = v & 0xFFFF;
        int len = ls.sliceLength(s);
        if (Frames.sliceHeaderSize(ls.total, ls.sliceSize, s) + len > frames.room()) {
            packetWasFull = true;
            return false;
        }
        frames.slice(ch.index, id, ls.total, ls.sliceSize, s, ch.payload[v & ch.mask], s * ls.sliceSize, len);
        chainChannel = -1;
        ls.lastSent[s] = time;
        ls.lastTick[s] = tick;
        ls.lastSeq[s] = packetSeq;
        log.markReliable();
        log.add(PacketLog.sliceEntry(ch.index, id, s));
        return true;
    }

    private void writeUnreliable(SendChannel ch) {
        while (ch.tail != ch.head) {
            int v = ch.tail;
            int i = v & ch.mask;
            int len = ch.payload[i].length;
            if (Frames.msgFrameSize(len) > payloadBudget) {
                return;
            }
            if (!writeSmall(ch, v, i, false)) {
                return;
            }
            queue.unreliableWritten(ch, v, i, len);
        }
    }

    /** Sends the oldest unreliable message too large for one packet as a packet the packet layer fragments. */
    private boolean sendBigUnreliable() {
        for (SendChannel ch : channels) {
            if (ch.bigUnreliable == 0 || ch.tail == ch.head) {
                continue;
            }
            int v = ch.tail;
            int i = v & ch.mask;
            byte[] p = ch.payload[i];
            if (Frames.msgFrameSize(p.length) <= payloadBudget) {
                continue;
            }
            int size = Frames.lastFrameSize(p.length);
            if (bigBuffer.length < size) {
                bigBuffer = new byte[size];
            }
            int len = Frames.writeLast(bigBuffer, 0, ch.index, v & 0xFFFF, p, 0, p.length); // the packet's one frame
            int seq = link.nextPacketSequence();
            log.begin(seq, time);
            log.add(PacketLog.entry(ch.index, v & 0xFFFF));
            sent(link.sendPacket(bigBuffer, 0, len), len);
            ch.bigUnreliable--;
            queue.bigUnreliableQueued--;
            queue.unreliableWritten(ch, v, i, p.length);
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------
    // Counters

    long packetsSent() {
        return packetsSent;
    }

    /** Ack-only packets sent only to catch this end's sequence up with the peer's ({@link #catchUpDue}). */
    long sequenceCatchUps() {
        return sequenceCatchUps;
    }

    long ackOnlyPacketsSent() {
        return ackOnlyPacketsSent;
    }

    long packetsNotSent() {
        return packetsNotSent;
    }

    long datagramsSent() {
        return datagramsSent;
    }

    long bytesSent() {
        return bytesSent;
    }

    /** IMMEDIATE: acks sent at once rather than after the ack delay (a gap, or many packets waiting). */
    long immediateAcks() {
        return immediateAcks;
    }

    /** Resends of reliable messages and slices the loss detector marked (their packet shown lost by the acks). */
    long fastResends() {
        return fastResends;
    }

    /** Resends of reliable messages and slices whose resend timer ran out (every resend under EVERY_PACKET). */
    long timerResends() {
        return timerResends;
    }

    /** Redundant copies of small reliable messages written into later packets. */
    long redundantCopies() {
        return redundantCopies;
    }
}
