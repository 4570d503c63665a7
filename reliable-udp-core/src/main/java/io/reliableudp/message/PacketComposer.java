package io.reliableudp.message;

/**
 * What goes into a packet: fills one packet at a time from the {@link SendQueue} (resends due, then
 * new messages, channels taken round-robin; reliable, unreliable, sliced and fragmented-unreliable
 * messages), records what each packet carried in the {@link PacketLog}, hands it to the packet layer
 * and tells the {@link CongestionController} each data packet sent. Also writes the header-only
 * (ack-only) packets. When a packet goes is not its business: the {@link SendRound} asks it for the
 * packets of a round, on the schedule of the {@link SendSchedule}.
 *
 * <p>Resend selection: a reliable message (or slice) is resent when the {@link LossDetector} marked
 * it (its last packet was lost: a fast resend) or when its resend timer ran out (a timer resend; the
 * {@link ResendTimer} gives the interval, which doubles with each timeout in a row of the same
 * message while nothing is acknowledged, up to the max). Small messages on a channel with redundancy
 * also ride, as copies, in the room left in the next packets.
 *
 * <p>Where the frames go is the {@link FrameWriter}'s business (the datagram buffer, behind room for
 * the lower layers' headers); a composed packet goes to the packet layer's in-place send, so its
 * frames are not copied again. Only an unreliable message larger than a packet is composed in a
 * separate heap buffer and sent through the packet layer's copying, fragmenting path.
 *
 * <p>Traffic classes: a packet carries the frames of channels of one {@link ChannelConfig#trafficClass()}
 * only (a channel of another class waits for the next packet, which the round-robin starts with
 * another channel), so that a datagram's DSCP is true of everything in it: a voice frame never waits
 * in a bulk queue, bulk never rides (and is policed) in an expedited one. The {@link DatagramSender}
 * is told the class around each packet of a channel with its own; header-only packets keep the node's.
 *
 * <p>Allocation-free in steady state: the datagram buffer is preallocated (plus one buffer that grows
 * to the largest fragmented unreliable message).
 */
final class PacketComposer {

    /** {@link #composeAndSend} result: nothing waited that may go now; no packet was made. */
    static final int NOTHING = 0;
    /** {@link #composeAndSend} result: a data packet went (it carries the acks). */
    static final int SENT = 1;
    /** {@link #composeAndSend} result: the packet layer refused the packet (counted, nothing recorded). */
    static final int REFUSED = 2;

    private static final byte[] EMPTY = new byte[0];

    private final MessageConfig config;
    private final PacketLink link;
    private final PacketLog log;
    private final CongestionController congestion;
    private final SendQueue queue;
    private final ResendTimer timer;
    private final SendChannel[] channels;
    private final int channelCount;
    private final int window;
    private final int payloadBudget;
    private final boolean everyPacket;
    /** Told the traffic class around each packet of a channel with a class of its own. */
    private final DatagramSender sender;
    /** Whether the channels' traffic classes differ: then a packet takes the channels of one class only. */
    private final boolean mixedClasses;
    /** The TOS byte of the packet being composed ({@link DatagramSender#NODE_CLASS}: the node's; {@link #NO_CLASS_YET}: no frame yet). */
    private int packetTos;
    private static final int NO_CLASS_YET = Integer.MIN_VALUE;
    /** Set when a frame (not a redundant copy) did not fit the room its packet had left: more waited than one packet holds. */
    private boolean packetWasFull;
    /** Where packets are composed; replaced when the datagram budget changes. */
    private FrameWriter frames;
    /** The largest packet payload now ({@link #payloadBudget} until the datagram budget grows): what pacing counts per packet. */
    private int packetBudget;
    private final int maxRedundancy;
    private byte[] bigBuffer = EMPTY;
    /** Sequence of the packet being composed. */
    private int packetSeq;

    /** The time of the current send round. */
    private double time;
    /** Number of the current send round, on either schedule: a message is timer-resent at most once a round. */
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

    private long packetsSent;
    private long ackOnlyPacketsSent;
    private long packetsNotSent;
    private long datagramsSent;
    private long bytesSent;
    private long fastResends;
    private long timerResends;
    private long redundantCopies;
    /**
     * Payload bytes above which a packet counts as large, watched for loss while the budget is above
     * it ({@link #watchLarge}; {@link Integer#MAX_VALUE}: not watched).
     */
    private int largeAbove = Integer.MAX_VALUE;
    /** Large packets seem lost while smaller ones pass: the round stops until the budget falls back ({@link #takeLargeLost}). */
    private boolean largeLost;
    /**
     * Most small resends of one packet that the next data packet copies ({@link #writeRepairCopies}): a
     * packet that resent more is a burst of timeouts (a stall, the end of an outage), where a second copy
     * of everything would only add to what waits; random loss repairs one or two messages at a time.
     */
    static final int MAX_REPAIR_COPIES = 4;
    /** Channel and message id of each small message the packet {@link #repairSeq} resent; count in {@link #repairCount}. */
    private final int[] repairChannel = new int[MAX_REPAIR_COPIES];
    private final int[] repairId = new int[MAX_REPAIR_COPIES];
    private int repairCount;
    private int repairSeq;
    private int pendingRepairCount;

    PacketComposer(MessageConfig config, int payloadBudget, PacketLink link, PacketLog log,
            CongestionController congestion, SendQueue queue, FrameWriter frames, ResendTimer timer,
            DatagramSender sender) {
        this.sender = sender;
        this.config = config;
        this.payloadBudget = payloadBudget;
        this.packetBudget = payloadBudget;
        this.link = link;
        this.log = log;
        this.congestion = congestion;
        this.queue = queue;
        this.timer = timer;
        this.channels = queue.channels;
        this.channelCount = channels.length;
        this.window = config.receiveWindow();
        this.everyPacket = config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET;
        this.frames = frames;
        int k = 0;
        for (SendChannel ch : channels) {
            k = Math.max(k, ch.redundancy);
        }
        this.maxRedundancy = everyPacket ? 0 : k;
        boolean mixed = false;
        for (SendChannel ch : channels) {
            mixed |= ch.tos != channels[0].tos;
        }
        this.mixedClasses = mixed;
    }

    /**
     * Packets are composed in {@code frames} from now on, at most {@code packetBudget} frame bytes
     * each (the connection's datagram budget changed; never while a packet is being composed).
     */
    void packetBudgetChanged(FrameWriter frames, int packetBudget) {
        this.frames = frames;
        this.packetBudget = packetBudget;
    }

    /**
     * Watches packets of more than {@code above} payload bytes for loss ({@link Integer#MAX_VALUE}: not):
     * while the packet budget is above it, a timer resend of a message whose last packet was large (not
     * under {@code EVERY_PACKET}, whose rounds resend everything unacknowledged), or
     * {@link #LARGE_LOSSES_IN_ROW} large packets declared lost with no large one acknowledged in between,
     * stop the round before anything more is composed at this size, and {@link #takeLargeLost} says so.
     */
    void watchLarge(int above) {
        largeAbove = above;
        largeLost = false;
        log.watchLarge(above);
    }

    /** Large packets lost in a row, with no large one acknowledged in between, that make the path suspect. */
    static final int LARGE_LOSSES_IN_ROW = 3;

    /** Whether large packets seemed lost since the last call (the round stopped); clears it. */
    boolean takeLargeLost() {
        boolean l = largeLost;
        largeLost = false;
        return l;
    }

    /** Whether a resend of something last carried by packet {@code seq} shows the large packets lost. */
    private boolean resendShowsLargeLost(int seq) {
        if (!everyPacket && packetBudget > largeAbove && log.sentLarge(seq)) {
            largeLost = true;
            return true;
        }
        return false;
    }

    /** The largest packet payload now. */
    int packetBudget() {
        return packetBudget;
    }

    /** Whether a frame (not a redundant copy) has not fit the room its packet had left, ever: more waited than one packet holds. */
    boolean packetWasFull() {
        return packetWasFull;
    }

    /** A send round starts at {@code now}: its time and the resend intervals its packets are judged by. */
    void startRound(double now) {
        time = now;
        tick++;
        queue.expiry.expire(now);
        resendInterval = timer.resendIntervalSeconds();
        resendIntervalAlone = timer.resendIntervalAloneSeconds();
    }

    /**
     * Builds and sends one packet of the round: {@link #NOTHING} when there was nothing to send, else
     * {@link #SENT} or {@link #REFUSED}. {@code alone}: the packet goes long enough after the previous
     * data packet that the peer acknowledges it at once (its messages get the shorter resend interval).
     */
    int composeAndSend(boolean alone) {
        if (packetBudget > largeAbove && (largeLost || log.largeLostInRow() >= LARGE_LOSSES_IN_ROW)) {
            largeLost = true;
            return NOTHING;
        }
        if (queue.bigUnreliableQueued > 0) {
            int big = sendBigUnreliable();
            if (big != NOTHING) {
                return big;
            }
        }
        int seq = link.nextPacketSequence();
        packetSeq = seq;
        log.begin(seq, time);
        if (alone) {
            log.markAlone();
        }
        packetInterval = alone ? resendIntervalAlone : resendInterval;
        FrameWriter f = frames;
        f.begin();
        chainChannel = -1;
        boolean mixed = mixedClasses;
        packetTos = mixed ? NO_CLASS_YET : channels[0].tos;
        int n = channelCount;
        int start = roundRobin;
        roundRobin = start + 1 == n ? 0 : start + 1;
        for (int k = 0; k < n; k++) {
            int c = start + k;
            if (c >= n) {
                c -= n;
            }
            SendChannel ch = channels[c];
            if (ch.skipState != SendChannel.SKIP_NONE) {
                writeSkip(ch);
            }
            if (ch.head == ch.tail || mixed && packetTos != NO_CLASS_YET && ch.tos != packetTos) {
                continue; // nothing queued, or another class: a later packet of the round takes it
            }
            int before = mixed ? f.length() : 0;
            if (ch.reliable) {
                writeReliable(ch);
            } else {
                writeUnreliable(ch);
            }
            if (mixed && f.length() != before) {
                packetTos = ch.tos;
            }
            if (f.room() < 2 || largeLost) {
                break;
            }
        }
        if (repairCount > 0 && f.length() > 0 && f.room() >= 2) {
            writeRepairCopies();
        }
        if (maxRedundancy > 0 && f.length() > 0 && f.room() >= 2) {
            writeCopies();
        }
        int length = f.finish(); // the last MSG frame loses its length byte
        if (length == 0) {
            log.abort();
            return NOTHING;
        }
        int tos = packetTos;
        if (tos == DatagramSender.NODE_CLASS) {
            return sent(link.sendPacket(f.buffer(), f.start(), length), length);
        }
        sender.trafficClass(tos);
        try {
            return sent(link.sendPacket(f.buffer(), f.start(), length), length);
        } finally {
            sender.trafficClass(DatagramSender.NODE_CLASS);
        }
    }

    private int sent(int sequence, int length) {
        int repairs = pendingRepairCount;
        pendingRepairCount = 0;
        if (sequence >= 0 && repairs > 0) {
            repairCount = repairs <= MAX_REPAIR_COPIES ? repairs : 0;
            repairSeq = sequence;
        }
        if (sequence < 0) {
            log.abort();
            packetsNotSent++;
            return REFUSED;
        }
        log.commit(true, length);
        congestion.onPacketSent(time, length);
        packetsSent++;
        return SENT;
    }

    /** The round's resend interval of a message (or slice) whose last packet was {@code seq}. */
    private double intervalAfter(int seq) {
        return log.sentAlone(seq) ? resendIntervalAlone : resendInterval;
    }

    /**
     * The SKIP frame the peer is owed (ids before {@code skipTo} abandoned), when it is due: new, its
     * packet lost, or its resend timer ran out (backed off like a message's). Reliable like a message:
     * it goes again until a packet carrying it is acknowledged.
     */
    private void writeSkip(SendChannel ch) {
        boolean due = ch.skipState == SendChannel.SKIP_DUE || time >= ch.skipResendAt;
        if (!due || frames.room() < Frames.SKIP_FRAME_SIZE) {
            return;
        }
        boolean resent = ch.skipState == SendChannel.SKIP_SENT;
        frames.skip(ch.index, ch.skipTo & 0xFFFF);
        chainChannel = -1;
        log.markReliable();
        log.add(PacketLog.skipEntry(ch.index, ch.skipTo & 0xFFFF));
        ch.skipSeq = packetSeq;
        ch.skipState = SendChannel.SKIP_SENT;
        // resent without an ack in between: twice as long each time, as a message's timer
        ch.skipBackoff = resent && ch.skipBackoff < 16 ? ch.skipBackoff + 1 : resent ? ch.skipBackoff : 0;
        ch.skipResendAt = time + Math.min(packetInterval * (1 << ch.skipBackoff), config.maxResendIntervalSeconds());
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
                if (ch.ttl[i] != 0 && queue.expiry.expiredNow(ch, i, time)) {
                    // too late to send again: it expires once no packet that carried it may still be acknowledged
                    if (!queue.expiry.carrierInFlight(ch, i)) {
                        queue.reliableExpired(ch, v, i);
                    } else {
                        nextDue = Math.min(nextDue, time + resendInterval);
                    }
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
                        && time >= ch.lastSent[i] + timer.backedOff(ri, ch.timeouts[i], ch.timeoutAcks[i]))) {
                    if (!fast && resendShowsLargeLost(ch.lastSeq[i])) {
                        stopped = true; // resent once the budget fell back, in smaller packets
                        break;
                    }
                    if (!writeSmall(ch, v, i, false)) {
                        stopped = true;
                        break;
                    }
                    ch.messagesResent++;
                    ri = packetInterval; // its last packet is now this one
                    if (pendingRepairCount < MAX_REPAIR_COPIES) {
                        repairChannel[pendingRepairCount] = ch.index;
                        repairId[pendingRepairCount] = v & 0xFFFF;
                    }
                    pendingRepairCount++;
                    if (fast) {
                        // the acks show the path works: this message's timer starts over unbacked
                        fastResends++;
                        ch.fastDue[i] = false;
                        ch.timeouts[i] = 0;
                    } else {
                        timerResends++;
                        if (!everyPacket) {
                            ch.timeouts[i] = timer.timedOut(ch.timeouts[i], ch.timeoutAcks[i]);
                            ch.timeoutAcks[i] = (int) log.acksTaken();
                        }
                    }
                }
                nextDue = Math.min(nextDue, ch.lastSent[i] + timer.backedOff(ri, ch.timeouts[i], ch.timeoutAcks[i]));
            }
            ch.nextResendTime = stopped ? time : nextDue;
            if (stopped) {
                return;
            }
        }
        while (ch.nextUnsent != ch.head && ch.nextUnsent - ch.windowBase() < window) {
            int v = ch.nextUnsent;
            int i = v & ch.mask;
            if (ch.ttl[i] != 0 && queue.expiry.expiredNow(ch, i, time)) {
                if (queue.expiry.carrierInFlight(ch, i)) {
                    return; // a sliced message partly sent: the ones after it wait for its verdict
                }
                queue.reliableExpired(ch, v, i);
                continue;
            }
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
        int ttl = ch.ttl[i];
        boolean next = ttl == 0 && chainChannel == ch.index && ((chainId + 1) & 0xFFFF) == id;
        int size = next ? Frames.nextFrameSize(len) : Frames.msgFrameSize(len);
        int age = 0;
        if (ttl != 0) {
            age = queue.expiry.arrivalAgeMillis(ch, i, time);
            size += Frames.ageFrameSize(age, ttl);
        }
        if (size > frames.room()) {
            if (!copy) {
                packetWasFull = true;
            }
            return false;
        }
        if (ttl != 0) {
            frames.age(ch.index, id, age, ttl);
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
                if (PacketLog.isCopy(e) || PacketLog.isSlice(e) || PacketLog.isSkip(e)) {
                    continue;
                }
                int c = PacketLog.channelOf(e);
                if (c >= channelCount) {
                    continue;
                }
                SendChannel ch = channels[c];
                if (ch.redundancy < d || ch.tos != packetTos) {
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

    /**
     * A repair goes twice: into the room of the next data packet after one that resent small reliable
     * messages (at most {@link #MAX_REPAIR_COPIES}) go copies of them, unless that packet was acknowledged
     * meanwhile or the message went again since. Once per resend: a lost copy leaves the message to the
     * loss detector and the timer. On a long path a lost repair then costs the spacing of the sender's
     * packets instead of another resend interval; where the repair is acknowledged before the next packet
     * leaves (a short path) nothing is copied.
     */
    private void writeRepairCopies() {
        int n = repairCount;
        repairCount = 0;
        int slot = log.slotOf(repairSeq);
        if (slot < 0 || log.isAcked(slot)) {
            return;
        }
        for (int k = 0; k < n && frames.room() >= 2; k++) {
            SendChannel ch = channels[repairChannel[k]];
            int v = ch.tail + ((repairId[k] - ch.tail) & 0xFFFF);
            if (v - ch.tail >= ch.nextUnsent - ch.tail) {
                continue;
            }
            int i = v & ch.mask;
            if (ch.state[i] != SendChannel.SENT || ch.large[i] != null || ch.lastSeq[i] != repairSeq) {
                continue;
            }
            if (writeSmall(ch, v, i, true)) {
                redundantCopies++;
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
                        && time >= ls.lastSent[s] + timer.backedOff(ri, ls.timeouts[s], ls.timeoutAcks[s]))) {
                    if ((!fast && resendShowsLargeLost(ls.lastSeq[s])) || !writeSlice(ch, v, ls, s)) {
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
                            ls.timeouts[s] = timer.timedOut(ls.timeouts[s], ls.timeoutAcks[s]);
                            ls.timeoutAcks[s] = (int) log.acksTaken();
                        }
                    }
                }
                nextDue = Math.min(nextDue, ls.lastSent[s] + timer.backedOff(ri, ls.timeouts[s], ls.timeoutAcks[s]));
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
        int i = v & ch.mask;
        int ttl = ch.ttl[i];
        int age = ttl != 0 ? queue.expiry.arrivalAgeMillis(ch, i, time) : 0;
        int ageBytes = ttl != 0 ? Frames.ageFrameSize(age, ttl) : 0;
        if (ageBytes + Frames.sliceHeaderSize(ls.total, ls.sliceSize, s) + len > frames.room()) {
            packetWasFull = true;
            return false;
        }
        if (ttl != 0) {
            frames.age(ch.index, id, age, ttl);
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
            if (ch.ttl[i] != 0 && queue.expiry.expiredNow(ch, i, time)) {
                if (Frames.msgFrameSize(len) > payloadBudget) {
                    ch.bigUnreliable--;
                    queue.bigUnreliableQueued--;
                }
                queue.unreliableExpired(ch, v, i);
                continue;
            }
            if (Frames.msgFrameSize(len) > payloadBudget) {
                return;
            }
            if (!writeSmall(ch, v, i, false)) {
                return;
            }
            queue.unreliableWritten(ch, v, i, len);
        }
    }

    /**
     * Sends the oldest unreliable message too large for one packet as a packet the packet layer
     * fragments ({@link #NOTHING} when none waits at a channel's head).
     */
    private int sendBigUnreliable() {
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
            int result;
            if (ch.tos == DatagramSender.NODE_CLASS) {
                result = sent(link.sendPacket(bigBuffer, 0, len), len);
            } else {
                sender.trafficClass(ch.tos); // every fragment carries the channel's class
                try {
                    result = sent(link.sendPacket(bigBuffer, 0, len), len);
                } finally {
                    sender.trafficClass(DatagramSender.NODE_CLASS);
                }
            }
            ch.bigUnreliable--;
            queue.bigUnreliableQueued--;
            queue.unreliableWritten(ch, v, i, p.length);
            return result;
        }
        return NOTHING;
    }

    /**
     * Sends a header-only packet at {@code now}: it carries the packet layer's acks and nothing else.
     * False when the packet layer refused it (counted).
     */
    boolean sendHeaderOnly(double now) {
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

    /** A datagram the packet layer put on the wire (a packet or one fragment of it). */
    void transmitted(int length) {
        datagramsSent++;
        bytesSent += length;
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
