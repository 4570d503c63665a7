package io.reliableudp.message;

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
    /** TICK mode: idle send ticks that still repeat an ack-only packet after the last data packet arrived. */
    static final int REDUNDANT_ACKS = 2;
    /** Resend interval base before the first RTT sample. */
    static final double INITIAL_RTT_SECONDS = 0.1;
    /** IMMEDIATE: the earliest a resend deadline may be after a round that found it not yet due (1 us). */
    static final double RESEND_GRANULARITY_SECONDS = 1e-6;
    /** Mean deviations of the RTT added to the smoothed RTT for the resend interval (RFC 6298 K). */
    static final double RTT_VAR_FACTOR = 4.0;

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
    private final FrameWriter frames;
    private final boolean immediate;
    private final double ackDelay;
    private byte[] bigBuffer = EMPTY;

    /** The time of the current send round (or ack-only packet). */
    private double time;
    private double nextSendTime;
    private int tick;
    private int roundRobin;
    private double resendInterval;

    private int chainChannel = -1;
    private int chainId;
    private boolean composing;

    private int dataPacketsSinceSend;
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
    /** Newest packet sequence received from the peer (0xFFFF before any: its first packet is 0). */
    private int highestReceived = 0xFFFF;
    private long immediateAcks;

    private long packetsSent;
    private long ackOnlyPacketsSent;
    private long packetsNotSent;
    private long datagramsSent;
    private long bytesSent;

    PacketComposer(MessageConfig config, double time, int payloadBudget, PacketLink link, PacketLog log,
            CongestionController congestion, SendQueue queue, FrameWriter frames) {
        this.config = config;
        this.time = time;
        this.nextSendTime = time;
        this.payloadBudget = payloadBudget;
        this.link = link;
        this.log = log;
        this.congestion = congestion;
        this.queue = queue;
        this.channels = queue.channels;
        this.channelCount = channels.length;
        this.window = config.receiveWindow();
        this.everyPacket = config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET;
        this.frames = frames;
        this.immediate = config.sendMode() == MessageConfig.SendMode.IMMEDIATE;
        this.ackDelay = config.ackDelaySeconds();
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
        if (now >= pacingTime(now) && (wantRound || resendDeadline() <= now)) {
            sendRound(now);
        }
        if (now >= ackDeadline) {
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
        double t = congestion.nextSendTime(now, payloadBudget);
        if (congestion instanceof GafferController && congestion.congested()) {
            t = Math.max(t, lastRoundTime + 1.0 / congestion.sendRateHz());
        }
        return t;
    }

    /** The earliest time a reliable message already sent falls due for resend (+inf: none in flight). */
    private double resendDeadline() {
        double d = Double.POSITIVE_INFINITY;
        for (SendChannel ch : channels) {
            if (ch.reliable && ch.nextUnsent != ch.tail) {
                // EVERY_PACKET resends in every round: without new traffic, rounds at the send rate
                d = Math.min(d, everyPacket ? lastRoundTime + 1.0 / congestion.sendRateHz() : ch.nextResendTime);
            }
        }
        return d;
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
     * {@code data}, else ack-only) at {@code now}. A data packet wants an acknowledgement: TICK on the
     * next tick; IMMEDIATE within the ack delay, at once when it is newer than the next expected
     * sequence (a gap: a packet was lost or is late, so the sender should learn it now) or when
     * {@link #ACK_EVERY_PACKETS} data packets wait.
     */
    void packetReceived(int sequence, boolean data, double now) {
        int ahead = (sequence - highestReceived) & 0xFFFF;
        boolean newer = ahead != 0 && ahead < 0x8000;
        boolean gap = newer && ahead > 1;
        if (newer) {
            highestReceived = sequence;
        }
        if (!data) {
            return;
        }
        dataPacketsSinceSend++;
        redundantAcksLeft = REDUNDANT_ACKS;
        if (immediate) {
            if (gap || dataPacketsSinceSend >= ACK_EVERY_PACKETS) {
                if (ackDeadline > now) {
                    immediateAcks++;
                }
                ackDeadline = now;
            } else if (ackDeadline == Double.POSITIVE_INFINITY) {
                ackDeadline = now + ackDelay;
            }
        }
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
            int limit = congestion.packetsPerRound(config.maxPacketsPerUpdate());
            int sent = 0;
            while (sent < limit && congestion.canSend(now, payloadBudget) && composeAndSend()) {
                sent++;
            }
            if (immediate) {
                lastAttempt = now;
                // more may wait when the round was cut by its limit or by the window (acks or the loss
                // timeout open it); otherwise a new message, an ack or a resend deadline asks again
                wantRound = sent == limit || congestion.nextSendTime(now, payloadBudget) > now;
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
        }
    }

    /** The current resend interval of reliable messages (seconds; 0 under EVERY_PACKET). */
    double resendIntervalSeconds() {
        if (everyPacket) {
            return 0;
        }
        double srtt = log.srttSeconds();
        // Before the first sample: the factor times a guessed RTT. After: the factor times the smoothed
        // RTT, or the smoothed RTT plus four mean deviations (RFC 6298), whichever is longer, so the ack
        // delay's variance (the peer acks on its next tick, this side checks on its own) is covered.
        double interval = srtt < 0 ? INITIAL_RTT_SECONDS * config.resendRttFactor()
                : Math.max(srtt * config.resendRttFactor(), srtt + RTT_VAR_FACTOR * log.rttVarSeconds());
        return Math.min(config.maxResendIntervalSeconds(), Math.max(config.minResendIntervalSeconds(), interval));
    }

    /** Sends a header-only packet: it carries the packet layer's acks and nothing else. */
    void sendAckOnly(double now) {
        ackDeadline = Double.POSITIVE_INFINITY; // also when the packet is not sent: no retry loop
        int seq = link.nextPacketSequence();
        log.begin(seq, now);
        FrameWriter f = frames;
        f.begin();
        int r = link.sendPacket(f.buffer(), f.start(), 0);
        if (r < 0) {
            log.abort();
            packetsNotSent++;
            return;
        }
        log.commit(false, 0);
        ackOnlyPacketsSent++;
        dataPacketsSinceSend = 0;
    }

    // ------------------------------------------------------------------------------------------
    // What goes into a packet

    /** Builds and sends one packet; false when there was nothing to send. */
    private boolean composeAndSend() {
        if (queue.bigUnreliableQueued > 0 && sendBigUnreliable()) {
            return true;
        }
        int seq = link.nextPacketSequence();
        log.begin(seq, time);
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
        int length = f.length();
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
            dataPacketsSinceSend = 0;
            ackDeadline = Double.POSITIVE_INFINITY; // the packet carries the acks
        }
    }

    private void writeReliable(SendChannel ch) {
        double ri = resendInterval;
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
                if (ch.lastTick[i] != tick && time - ch.lastSent[i] >= ri) {
                    if (!writeSmall(ch, v, i)) {
                        stopped = true;
                        break;
                    }
                    ch.messagesResent++;
                }
                nextDue = Math.min(nextDue, ch.lastSent[i] + ri);
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
                if (!writeSmall(ch, v, i)) {
                    return;
                }
                ch.state[i] = SendChannel.SENT;
                ch.nextResendTime = Math.min(ch.nextResendTime, time + ri);
                ch.nextUnsent++;
            }
        }
    }

    /** Writes a whole (small) message; false when it does not fit the packet. */
    private boolean writeSmall(SendChannel ch, int v, int i) {
        byte[] p = ch.payload[i];
        int id = v & 0xFFFF;
        int len = p.length;
        boolean next = chainChannel == ch.index && ((chainId + 1) & 0xFFFF) == id;
        int size = next ? Frames.nextFrameSize(len) : Frames.msgFrameSize(len);
        if (size > frames.room()) {
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
        log.add(PacketLog.entry(ch.index, id));
        return true;
    }

    /** Writes the due slices of a large message (resends, then new ones); false when the packet filled up. */
    private boolean writeLarge(SendChannel ch, int v, LargeSend ls) {
        double ri = resendInterval;
        if (ls.firstUnacked < ls.nextUnsent && (everyPacket || time >= ls.nextResendTime)) {
            double nextDue = Double.POSITIVE_INFINITY;
            for (int s = ls.firstUnacked; s < ls.nextUnsent; s++) {
                if (ls.acked.get(s)) {
                    continue;
                }
                if (ls.lastTick[s] != tick && time - ls.lastSent[s] >= ri) {
                    if (!writeSlice(ch, v, ls, s)) {
                        ls.nextResendTime = time;
                        return false;
                    }
                    ch.messagesResent++;
                }
                nextDue = Math.min(nextDue, ls.lastSent[s] + ri);
            }
            ls.nextResendTime = nextDue;
        }
        while (ls.nextUnsent < ls.sliceCount) {
            if (!writeSlice(ch, v, ls, ls.nextUnsent)) {
                return false;
            }
            ls.nextUnsent++;
            ls.nextResendTime = Math.min(ls.nextResendTime, time + ri);
        }
        return true;
    }

    private boolean writeSlice(SendChannel ch, int v, LargeSend ls, int s) {
        int id = v & 0xFFFF;
        int len = ls.sliceLength(s);
        if (Frames.sliceHeaderSize(ls.total, ls.sliceSize, s) + len > frames.room()) {
            return false;
        }
        frames.slice(ch.index, id, ls.total, ls.sliceSize, s, ch.payload[v & ch.mask], s * ls.sliceSize, len);
        chainChannel = -1;
        ls.lastSent[s] = time;
        ls.lastTick[s] = tick;
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
            if (!writeSmall(ch, v, i)) {
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
            int size = Frames.msgFrameSize(p.length);
            if (bigBuffer.length < size) {
                bigBuffer = new byte[size];
            }
            int len = Frames.writeMsg(bigBuffer, 0, ch.index, v & 0xFFFF, p, 0, p.length);
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
}
