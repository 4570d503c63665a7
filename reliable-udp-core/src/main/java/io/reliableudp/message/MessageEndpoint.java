package io.reliableudp.message;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The message layer of one connection, above one packet-layer endpoint: channels with delivery
 * modes, packing of many messages per packet, resend of reliable messages in new packets, slicing of
 * large messages, delivery futures and congestion avoidance. See docs/messages.md.
 *
 * <p>This class is the entry point and the wiring: the send side is the {@link SendSchedule} of the
 * configured send mode (when packets go), the {@link SendRound} it runs and the {@link PacketComposer}
 * (what goes in them) over the {@link SendQueue}, with the {@link ResendTimer} and the acks this end
 * {@link OwedAcks owes}; acknowledgements go through the {@link AckTracker}, received packets through
 * the {@link Receiver} (one strategy per delivery mode), losses shown by the acks through the
 * {@link LossDetector} (fast recovery), and the send rate and in-flight cap come from the
 * {@link CongestionController} selected by {@link MessageConfig#congestionControl()}; all statistics are one {@link MessageStats} snapshot.
 *
 * <p>Not thread-safe: one thread drives it (send, receive, update, flush, close). No I/O: what it
 * wants on the wire goes to the {@link DatagramSender}; what arrives is handed to {@link #receive}.
 * Packets are composed in place: the message frames are written once into one datagram buffer (the
 * sender's {@link DatagramSender#datagramBuffer()}, or the endpoint's own) behind room for the headers
 * below, and the packet layer writes its header in front of them, so a payload byte is copied once on
 * its way to the sender (a fragmented unreliable message excepted, see docs/architecture.md).
 * Times are seconds as {@code double}, from any monotonic clock, never going back.
 *
 * <p>Sends never throw for a message that cannot be accepted: {@link #send} returns a handle whose
 * future already failed with {@link DeliveryException} ({@link DeliveryFailure#TOO_LARGE},
 * {@link DeliveryFailure#QUEUE_FULL}, or the close reason); only a bad channel index or a null
 * payload raises {@link IllegalArgumentException}/{@link NullPointerException}.
 *
 * <p>Callbacks ({@link MessageListener}, {@link MessageAckListener}, {@link SendCompletion}s and
 * future completions) run on the driving thread inside {@link #receive}, {@link #close} or a send
 * round; they may call {@link #send}, and a {@link #flush} they call during {@code receive} is run
 * when {@code receive} returns. The {@link DatagramSender} must not call back into this endpoint.
 */
public final class MessageEndpoint {

    /** {@link #offer} result: the channel's queue is full. */
    public static final int OFFER_QUEUE_FULL = -1;
    /** {@link #offer} result: the message is larger than allowed. */
    public static final int OFFER_TOO_LARGE = -2;
    /** {@link #offer} result: the endpoint is closed. */
    public static final int OFFER_CLOSED = -3;
    /** Largest packet header of the packet layer. */
    static final int PACKET_HEADER_MAX = 9;
    /** Fragment header of the packet layer. */
    static final int FRAGMENT_HEADER = 5;
    /** Packet-layer fragments allowed for one unreliable message larger than a packet. */
    static final int MAX_UNRELIABLE_FRAGMENTS = 16;
    /** Packets remembered for acks (ring of the packet log and the packet layer's sent buffer). */
    static final int SENT_PACKETS = 1024;
    /** Bytes in flight always allowed, in full packets (the window before any bandwidth sample). */
    static final int INITIAL_WINDOW_PACKETS = 16;

    /** The packet layer used by the public constructor. */
    static final PacketLink.Factory DEFAULT_LINK_FACTORY = ReliablePacketLink::new;

    private final MessageConfig config;
    private final DatagramSender sender;
    private final PacketLink link;
    private final PacketLog log;
    private final CongestionController congestion;
    private final SendQueue queue;
    private final PacketComposer composer;
    private final ResendTimer resendTimer;
    private final SendRound round;
    private final SendSchedule schedule;
    private final AckTracker acks;
    private final LossDetector losses;
    private final Receiver receiver;
    private final int channelCount;
    private final int payloadBudget;
    private final int maxUnreliableSize;

    private double time;
    private boolean inReceive;
    private boolean flushRequested;
    private boolean closed;

    /**
     * Creates the endpoint of one connection with its own packet-layer endpoint.
     *
     * @param config message-layer settings (both ends must use the same channels and receive window)
     * @param time current time in seconds
     * @param sender where datagrams go
     * @param listener where delivered messages go
     */
    public MessageEndpoint(MessageConfig config, double time, DatagramSender sender, MessageListener listener) {
        this(config, time, sender, listener, ReceivePool.unlimited());
    }

    /**
     * Creates the endpoint of one connection whose receive memory also counts against a pool shared
     * with other endpoints (the connections of one node).
     *
     * @param config message-layer settings (both ends must use the same channels and receive window)
     * @param time current time in seconds
     * @param sender where datagrams go
     * @param listener where delivered messages go
     * @param pool the shared receive memory
     */
    public MessageEndpoint(MessageConfig config, double time, DatagramSender sender, MessageListener listener,
            ReceivePool pool) {
        this(config, time, sender, listener, DEFAULT_LINK_FACTORY, pool);
    }

    MessageEndpoint(MessageConfig config, double time, DatagramSender sender, MessageListener listener,
            PacketLink.Factory linkFactory) {
        this(config, time, sender, listener, linkFactory, ReceivePool.unlimited());
    }

    MessageEndpoint(MessageConfig config, double time, DatagramSender sender, MessageListener listener,
            PacketLink.Factory linkFactory, ReceivePool pool) {
        this.config = Objects.requireNonNull(config, "config");
        this.sender = Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(listener, "listener");
        if (!Double.isFinite(time)) {
            throw new IllegalArgumentException("time must be finite, was " + time);
        }
        this.time = time;
        this.channelCount = config.channels().size();
        int wire = config.datagramBudget() - config.lowerLayerOverhead();
        this.payloadBudget = payloadBudget(config, config.datagramBudget());
        int fragmentSize = wire - FRAGMENT_HEADER - PACKET_HEADER_MAX;
        this.maxUnreliableSize = Math.min(config.maxMessageSize(),
                MAX_UNRELIABLE_FRAGMENTS * fragmentSize - Frames.msgFrameSize(0) - 4);
        this.log = new PacketLog(SENT_PACKETS);
        SendSchedule.Kind mode = SendSchedule.of(config);
        this.congestion = congestionController(config, time, log, payloadBudget, mode);
        log.setController(congestion);
        this.queue = new SendQueue(config, payloadBudget, maxUnreliableSize);
        queue.expiry.setLog(log);
        this.acks = new AckTracker(log, queue);
        this.receiver = new Receiver(config, listener, Objects.requireNonNull(pool, "pool"));
        this.link = linkFactory.create(time,
                new PacketLink.Sizing(payloadBudget, fragmentSize, MAX_UNRELIABLE_FRAGMENTS, SENT_PACKETS,
                        payloadBudget(config, config.maxDatagramBudget())),
                new Hooks());
        this.resendTimer = new ResendTimer(config, log, mode.peerAckDelayBoundSeconds(config));
        this.composer = new PacketComposer(config, payloadBudget, link, log, congestion, queue,
                frameWriter(sender, payloadBudget), resendTimer, sender);
        OwedAcks owed = new OwedAcks();
        this.round = new SendRound(config, composer, owed, log, link, congestion);
        if (config.maxDatagramBudget() > config.datagramBudget()) {
            round.onLargerPacketsWanted(sender::largerDatagramsWanted);
            round.onLargePacketsLost(sender::largeDatagramsLost);
        }
        this.schedule = mode.create(config, time, round, owed, congestion, queue);
        this.losses = new LossDetector(log, queue, SENT_PACKETS,
                config.fastRecovery() && config.resendPolicy() == MessageConfig.ResendPolicy.RTT_BASED,
                link.nextPacketSequence());
    }

    /** The frame bytes of one packet in a datagram of {@code datagramBudget} bytes. */
    private static int payloadBudget(MessageConfig config, int datagramBudget) {
        return datagramBudget - config.lowerLayerOverhead() - PACKET_HEADER_MAX;
    }

    /**
     * Changes the size of the packets this endpoint composes from now on: the connection below found
     * that the path and the peer carry datagrams of {@code datagramBudget} bytes (or no longer do).
     * The sender's {@link DatagramSender#datagramBuffer()} must already hold a datagram of that size.
     * What decides how a message travels (one frame, slices, or the packet layer's fragments) stays
     * with {@link MessageConfig#datagramBudget()}, the size every path carries: a grown budget packs
     * more frames into a packet, it never makes a message depend on it.
     *
     * @param datagramBudget within {@link MessageConfig#datagramBudget()}..{@link MessageConfig#maxDatagramBudget()}
     */
    public void datagramBudgetChanged(int datagramBudget) {
        datagramBudgetChanged(datagramBudget, false);
    }

    /**
     * {@link #datagramBudgetChanged(int)}, and with {@code watch} the packets larger than
     * {@link MessageConfig#datagramBudget()} are watched for loss from now on: when they seem lost while
     * smaller ones pass (a path whose MTU dropped, silently), the sender hears of it from
     * {@link DatagramSender#largeDatagramsLost} before anything more goes at this size. For a budget
     * the sender found by probing a path that can change; a budget the path is known to carry (a peer
     * on this host) is not watched.
     *
     * @param datagramBudget within {@link MessageConfig#datagramBudget()}..{@link MessageConfig#maxDatagramBudget()}
     * @param watch whether large packets are watched for loss
     */
    public void datagramBudgetChanged(int datagramBudget, boolean watch) {
        if (datagramBudget < config.datagramBudget() || datagramBudget > config.maxDatagramBudget()) {
            throw new IllegalArgumentException("datagramBudget must be within " + config.datagramBudget() + ".."
                    + config.maxDatagramBudget() + ", was " + datagramBudget);
        }
        int payload = payloadBudget(config, datagramBudget);
        round.packetBudgetChanged(frameWriter(sender, payload), payload);
        link.setRegularPayloadLimit(payload);
        congestion.packetBudgetChanged((long) INITIAL_WINDOW_PACKETS * payload, payload);
        int base = payloadBudget(config, config.datagramBudget());
        composer.watchLarge(watch && payload > base ? base : Integer.MAX_VALUE);
    }

    /**
     * Where packets are composed: the sender's datagram buffer, frames behind its headroom and the
     * largest packet header, or a heap buffer of this endpoint's own behind room for the packet header.
     */
    private static FrameWriter frameWriter(DatagramSender sender, int payloadBudget) {
        ByteBuffer offered = sender.datagramBuffer();
        if (offered == null) {
            return new FrameWriter(ByteBuffer.wrap(new byte[PACKET_HEADER_MAX + payloadBudget]), PACKET_HEADER_MAX,
                    payloadBudget);
        }
        int headroom = sender.headroom();
        if (headroom < 0) {
            throw new IllegalArgumentException("the sender's headroom must not be negative, was " + headroom);
        }
        return new FrameWriter(offered, headroom + PACKET_HEADER_MAX, payloadBudget);
    }

    private static CongestionController congestionController(MessageConfig config, double time, PacketLog log,
            int payloadBudget, SendSchedule.Kind mode) {
        long inflightFloor = (long) INITIAL_WINDOW_PACKETS * payloadBudget;
        MessageConfig.CongestionControl kind = config.congestionAvoidance() ? config.congestionControl()
                : MessageConfig.CongestionControl.NONE;
        double quantum = mode.pacingQuantumSeconds(config);
        double ackAllowance = mode.ackAllowanceSeconds(config);
        return switch (kind) {
            case DELIVERY_RATE -> new DeliveryRateController(time, config.sendRateHz(), log, inflightFloor, payloadBudget,
                    quantum, ackAllowance);
            case GAFFER -> new GafferController(true, config.sendRateHz(), config.congestionRttThresholdMillis(),
                    config.congestionLossThresholdPercent(), time, log, config.bandwidthEstimation(), inflightFloor);
            case NONE -> new NoCongestionController(config.sendRateHz());
        };
    }

    /** Slots the packet log has now (it grows with the traffic; tests watch it). */
    int packetLogCapacity() {
        return log.capacity();
    }

    /** The resend timer (tests look at its intervals). */
    ResendTimer resendTimer() {
        return resendTimer;
    }

    /** The congestion controller (tests look at its model). */
    CongestionController congestionController() {
        return congestion;
    }

    /** The settings of this endpoint. */
    public MessageConfig config() {
        return config;
    }

    /** Number of channels. */
    public int channelCount() {
        return channelCount;
    }

    /**
     * Sets (or clears, with null) the listener told of acknowledged messages and ack receipts.
     *
     * @param ackListener the listener, or null
     */
    public void setAckListener(@Nullable MessageAckListener ackListener) {
        acks.setAckListener(ackListener);
    }

    /**
     * Sets (or clears, with null) the listener told about every RTT sample of the packet layer below.
     *
     * @param rttListener the listener, or null
     */
    public void setRttListener(@Nullable RttSampleListener rttListener) {
        link.setRttListener(rttListener);
    }

    /**
     * Queues a message. The payload array is taken over: do not modify it afterwards.
     *
     * @param channel channel index
     * @param payload the message (0 bytes allowed)
     * @return the handle; its future already failed when the message was not accepted (see class doc)
     * @throws IllegalArgumentException when the channel does not exist
     */
    public SendHandle send(int channel, byte[] payload) {
        FutureCompletion future = new FutureCompletion();
        int id = queued(queue.offer(channel, payload, future));
        return new SendHandle(channel, id < 0 ? -1 : id, future);
    }

    /**
     * Queues a message without a future (no allocation): the result is told only through the
     * {@link MessageAckListener} and the statistics. The payload array is taken over.
     *
     * @param channel channel index
     * @param payload the message (0 bytes allowed)
     * @return the message id (0..65535), or {@link #OFFER_QUEUE_FULL}, {@link #OFFER_TOO_LARGE} or
     *     {@link #OFFER_CLOSED}
     * @throws IllegalArgumentException when the channel does not exist
     */
    public int offer(int channel, byte[] payload) {
        return queued(queue.offer(channel, payload, null));
    }

    /**
     * Queues a message whose outcome is told to {@code completion}: exactly once, at once when the
     * message is refused (before this returns), else when it was delivered or the endpoint closed.
     * No allocation beyond what the caller passes. The payload array is taken over.
     *
     * @param channel channel index
     * @param payload the message (0 bytes allowed)
     * @param completion told how the message ended, or null (then this is {@link #offer(int, byte[])})
     * @return the message id (0..65535), or a negative {@code OFFER_*} code
     * @throws IllegalArgumentException when the channel does not exist
     */
    public int offer(int channel, byte[] payload, @Nullable SendCompletion completion) {
        return queued(queue.offer(channel, payload, completion));
    }

    /**
     * {@link #send(int, byte[])} with a time-to-live: a message not acknowledged within
     * {@code ttlMillis} of this send is neither sent nor resent any more, its future fails with
     * {@link DeliveryFailure#EXPIRED}, and the peer skips it (docs/messages.md, "Time-to-live").
     *
     * @param channel channel index
     * @param payload the message (0 bytes allowed)
     * @param ttlMillis time-to-live in milliseconds, {@code >= 1}; 0 means the channel's ({@link ChannelConfig#ttlMillis()})
     * @return the handle
     * @throws IllegalArgumentException when the channel does not exist or {@code ttlMillis} is negative
     */
    public SendHandle send(int channel, byte[] payload, int ttlMillis) {
        FutureCompletion future = new FutureCompletion();
        int id = queued(queue.offer(channel, payload, future, ttlMillis));
        return new SendHandle(channel, id < 0 ? -1 : id, future);
    }

    /**
     * {@link #offer(int, byte[], SendCompletion)} with a time-to-live (see {@link #send(int, byte[], int)}).
     *
     * @param channel channel index
     * @param payload the message (0 bytes allowed)
     * @param completion told how the message ended, or null
     * @param ttlMillis time-to-live in milliseconds; 0 means the channel's
     * @return the message id (0..65535), or a negative {@code OFFER_*} code
     * @throws IllegalArgumentException when the channel does not exist or {@code ttlMillis} is negative
     */
    public int offer(int channel, byte[] payload, @Nullable SendCompletion completion, int ttlMillis) {
        return queued(queue.offer(channel, payload, completion, ttlMillis));
    }

    /**
     * During a {@link MessageListener} call: the estimated age in milliseconds of the message being
     * delivered, when it has a time-to-live (the sender's estimate of its age on arrival, plus the time
     * it waited here behind an earlier message); -1 otherwise, and outside a listener call.
     *
     * @return the age in ms, or -1
     */
    public int deliveredMessageAgeMillis() {
        return receiver.deliveryAgeMillis();
    }

    /** An accepted message is the schedule's to send. */
    private int queued(int id) {
        if (id >= 0) {
            schedule.offered();
        }
        return id;
    }

    /**
     * Feeds one datagram received from the peer (packet header and frames). Never throws for any
     * content: a malformed packet is rejected (not acknowledged) and counted. In
     * {@link MessageConfig.SendMode#IMMEDIATE} an acknowledgement owed at once is not sent here:
     * {@link #nextDeadline()} is then at or before now, and the next {@link #update} sends it unless
     * a packet sent before that (a reply) carried it.
     *
     * @param data buffer holding the datagram (only read during the call)
     * @param offset first byte
     * @param length number of bytes
     */
    public void receive(byte[] data, int offset, int length) {
        receiveAt(data, offset, length);
    }

    /**
     * {@link #receive(byte[], int, int)} at {@code time}: the endpoint's clock moves first, so RTT
     * samples and the ack delay count from the datagram's arrival rather than from the last update.
     *
     * @param data buffer holding the datagram (only read during the call)
     * @param offset first byte
     * @param length number of bytes
     * @param time current time in seconds (a time before the last one given is taken as the last one)
     */
    public void receive(byte[] data, int offset, int length, double time) {
        if (!closed && !inReceive) {
            advance(time);
            link.advanceTime(this.time); // the packet layer stamps acks (its RTT samples) with the arrival
        }
        receiveAt(data, offset, length);
    }

    private void receiveAt(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        if (closed) {
            return;
        }
        receiver.now = time;
        boolean outer = !inReceive;
        inReceive = true;
        try {
            link.receivePacket(data, offset, length);
        } catch (RuntimeException e) {
            receiver.packetLayerFailed(e);
        } finally {
            if (outer) {
                inReceive = false;
            }
        }
        if (!outer || closed) {
            return;
        }
        // after all of this packet's acks were taken: one RTT sample, and holes they show are losses,
        // marked due now
        if (receiver.releasePending()) {
            receiver.releaseHeld(); // a listener resumed a channel during the packet
        }
        log.rtt().takeSample();
        losses.detect(link.nextPacketSequence(), time);
        if (flushRequested) {
            flushRequested = false;
            flush(time);
        }
        // acks may have opened the window or shown a loss: what the schedule sends now carries the acks
        schedule.afterReceive(time);
    }

    /**
     * Advances time: packet-layer statistics, RTT and loss estimates, congestion mode, and the packets
     * that are due. In {@link MessageConfig.SendMode#IMMEDIATE}: queued messages and resends that fell
     * due (within the congestion limits and pacing), and an ack-only packet when received data waits
     * for its acknowledgement (at once or after the ack delay) with nothing sent back; call it again at {@link #nextDeadline()}. In
     * {@link MessageConfig.SendMode#TICK}: when a send tick is due at the current send rate, the packets
     * of queued and due-for-resend messages (or an ack-only packet when there is nothing to send but
     * received data to acknowledge).
     * Called from a listener during {@link #receive}, it only records the time; the send runs when
     * {@code receive} returns.
     *
     * @param time current time in seconds (a time before the last one given is taken as the last one)
     */
    public void update(double time) {
        if (closed) {
            return;
        }
        advance(time);
        if (inReceive) {
            flushRequested = true;
            return;
        }
        double now = this.time;
        if (schedule.housekeepingDue(now)) {
            link.update(now);
            losses.onTimer(now, link.nextPacketSequence());
            congestion.onUpdate(now);
        } else {
            link.advanceTime(now); // packets sent now carry their real send time
        }
        queue.expiry.expire(now);
        schedule.update(now);
    }

    /**
     * Sends the queued messages now instead of at the next tick (within the congestion limits); in
     * {@link MessageConfig.SendMode#IMMEDIATE}, where {@link #update} already sends them, this only
     * forces a send round now (unless the congestion controller paces this connection).
     *
     * @param time current time in seconds
     */
    public void flush(double time) {
        if (closed) {
            return;
        }
        advance(time);
        if (inReceive) {
            flushRequested = true;
            return;
        }
        link.advanceTime(this.time);
        schedule.flush(this.time);
    }

    /**
     * When this endpoint wants its next {@link #update}, in seconds on the caller's clock. In
     * {@link MessageConfig.SendMode#IMMEDIATE}: at or before the time of the last call (send now:
     * messages were queued or a round was cut by its packet limit), the earliest resend deadline, the
     * end of the ack delay, or the congestion controller's pacing time, whichever comes first;
     * {@code Double.POSITIVE_INFINITY} when nothing is due until something happens (a send, a
     * datagram). The driver must also call {@code update} now and then for the statistics and the
     * loss timeout (the transport does, with its keepalive tick). In
     * {@link MessageConfig.SendMode#TICK}: when the next send tick is due. Allocation-free, O(channels).
     */
    public double nextDeadline() {
        return closed ? Double.POSITIVE_INFINITY : Math.min(schedule.nextDeadline(time), queue.expiry.nextExpiry());
    }

    /**
     * When this endpoint next wants a send round for loss recovery: the earliest time a sent reliable
     * message (or slice) is due for resend, because the acks showed its packet lost (then it is at or
     * before now: {@link #receive} marks it so as soon as a received ack header shows the hole) or its
     * resend timer runs out. A scheduler that sends when something is due calls {@link #flush} at this
     * time. {@code Double.POSITIVE_INFINITY} when nothing is in
     * flight, and under {@link MessageConfig.ResendPolicy#EVERY_PACKET} (its resends follow the send
     * rounds). It may be early, never late by more than a change of the resend interval since: a
     * flush that finds nothing due moves it on.
     *
     * @return the time in seconds, on the clock passed to this endpoint
     */
    public double nextResendDueTime() {
        if (closed || config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET) {
            return Double.POSITIVE_INFINITY;
        }
        return queue.earliestResendDue();
    }

    /**
     * Tells the resend timer that the peer acknowledges every data packet within {@code seconds}
     * (its floor is the smoothed RTT plus the larger of four mean deviations and this bound, plus the
     * ack delay). The default is one send interval, right for the tick schedule, whose receiver acks
     * on its tick; a schedule that acks within {@link MessageConfig#ackDelaySeconds()} passes that.
     */
    void peerAcksWithin(double seconds) {
        resendTimer.peerAcksWithin(seconds);
    }

    /** Ack-only packets sent only to keep this end's packet sequence caught up with the peer's (tests). */
    long sequenceCatchUps() {
        return round.sequenceCatchUps();
    }

    /**
     * IMMEDIATE: whether, as of the last call, everything queued went out and no acknowledgement is
     * owed: the endpoint then waits only for the resend timers of messages in flight, which the acks
     * will very likely stop, so that a thread that just flushed it may leave them to the next time the
     * driver services it (a datagram arriving, or a timer the driver sets for {@link #nextDeadline})
     * instead of waking the driver now. Always false in TICK and once closed.
     */
    public boolean settled() {
        return !closed && schedule.writtenOut();
    }

    /**
     * Pauses delivery on a channel: its messages are held (in order, counted against
     * {@link MessageConfig#receiveMemoryLimit()} and the pool) instead of handed to the listener, and
     * once a limit is reached, packets carrying more of them are refused (not acknowledged), so the
     * peer's queue fills and its sends are refused in turn. Nothing acknowledged is dropped. Pausing a
     * paused channel does nothing.
     *
     * @param channel channel index
     * @throws IllegalArgumentException when the channel does not exist
     */
    public void pauseReceiving(int channel) {
        receiver.pause(checkedChannel(channel));
    }

    /**
     * Resumes delivery on a paused channel: the held messages go to the listener now, in order (when
     * called by a listener inside {@link #receive}, as soon as the packet is done), then new ones as
     * they come. Resuming a channel that is not paused does nothing.
     *
     * @param channel channel index
     * @throws IllegalArgumentException when the channel does not exist
     */
    public void resumeReceiving(int channel) {
        receiver.resume(checkedChannel(channel));
        if (!inReceive && !closed) {
            receiver.releaseHeld();
        }
    }

    /** Whether delivery on {@code channel} is paused. */
    public boolean receivingPaused(int channel) {
        return receiver.paused(checkedChannel(channel));
    }

    /**
     * Gives back a message this endpoint delivered before {@link #pauseReceiving} whose owner had not
     * passed it on yet (a transport's queue of listener calls): it is held again, before every message
     * held since, and delivered by {@link #resumeReceiving}. Its bytes count against the limits (they
     * are never refused: the message is held already). After {@link #close} this does nothing.
     *
     * @param channel channel index (paused)
     * @param messageId the message's id
     * @param payload the message, kept as is
     * @return false when the endpoint is closed (the caller keeps the message)
     */
    public boolean holdAgain(int channel, int messageId, byte[] payload) {
        Objects.requireNonNull(payload, "payload");
        if (closed) {
            return false;
        }
        receiver.holdAgain(checkedChannel(channel), messageId, payload);
        return true;
    }

    /** Bytes the receive side holds for the peer now (see {@link MessageStats#receiveMemoryBytes()}). */
    public long receiveMemoryBytes() {
        return receiver.memoryHeld();
    }

    private int checkedChannel(int channel) {
        if (channel < 0 || channel >= channelCount) {
            throw new IllegalArgumentException("channel " + channel + " does not exist (0.." + (channelCount - 1) + ")");
        }
        return channel;
    }

    /** Whether a reliable message is still waiting to be sent or acknowledged. */
    public boolean hasPendingReliable() {
        return queue.hasPendingReliable();
    }

    /**
     * Closes the endpoint: every pending message's future fails with a {@link DeliveryException}
     * naming {@code reason}, later sends fail at once with it, and nothing more is sent or delivered.
     *
     * @param reason what the futures of pending messages fail with
     */
    public void close(DeliveryFailure reason) {
        Objects.requireNonNull(reason, "reason");
        if (closed) {
            return;
        }
        closed = true;
        receiver.close();
        acks.close();
        queue.close(reason);
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed;
    }

    /** Received datagrams on which the packet layer threw and the safety net caught it (a bug if not 0; for the fuzz targets). */
    long packetLayerFailures() {
        return receiver.packetLayerFailures();
    }

    /**
     * A snapshot of all statistics: this layer's counters and estimates, every channel's counters,
     * and the packet layer's figures. Allocates the snapshot: take it on demand, not per packet.
     *
     * @return the snapshot
     */
    public MessageStats stats() {
        List<ChannelStats> channels = new ArrayList<>(channelCount);
        for (int c = 0; c < channelCount; c++) {
            SendChannel s = queue.channels[c];
            ReceiveChannel r = receiver.channel(c);
            channels.add(new ChannelStats(c, s.mode, s.messagesSent, s.messagesAcked, s.messagesResent,
                    r.messagesReceived, r.messagesDropped, r.duplicatesDropped, s.queued, s.queuedBytes,
                    s.messagesExpired, r.receivedExpired, r.messagesSkipped));
        }
        double srtt = log.rtt().srttSeconds();
        return new MessageStats(composer.packetsSent(), composer.ackOnlyPacketsSent(), composer.packetsNotSent(),
                receiver.packetsReceived(), receiver.malformedPackets(), receiver.rejectedPackets(), log.packetsLost(),
                composer.datagramsSent(), composer.bytesSent(),
                receiver.listenerErrors() + acks.listenerErrors() + queue.completionErrors(),
                log.bytesInFlight(), log.bandwidthEstimate(), congestion.inflightLimitBytes(), queue.largeBytesStarted,
                receiver.reassemblyBytes, queue.queuedMessages(), congestion.congested(), congestion.sendRateHz(),
                congestion.penaltySeconds(), congestion.episodes(), srtt < 0 ? 0 : srtt * 1000, log.loss() * 100,
                resendTimer.resendIntervalSeconds(), composer.fastResends(), composer.timerResends(),
                composer.redundantCopies(), losses.packetsDeclaredLost(), losses.spuriousLosses(),
                losses.reorderWindowSeconds(), channels, link.stats(), receiver.memoryHeld(), receiver.memoryRefusals());
    }

    /** Bytes of message frames one packet can carry. */
    public int packetPayloadBudget() {
        return payloadBudget;
    }

    /** Largest message accepted on an unreliable channel (sent as one packet fragmented by the packet layer). */
    public int maxUnreliableMessageSize() {
        return maxUnreliableSize;
    }

    private void advance(double now) {
        if (now > time) {
            time = now;
        }
    }

    /** The callbacks of the packet layer, kept off the public API. */
    private final class Hooks implements PacketLink.Hooks {
        @Override
        public void transmit(byte[] data, int offset, int length) {
            composer.transmitted(length);
            sender.send(data, offset, length);
        }

        @Override
        public void transmit(ByteBuffer buffer, int offset, int length) {
            composer.transmitted(length);
            sender.send(buffer, offset, length);
        }

        @Override
        public boolean process(int sequence, byte[] data, int offset, int length) {
            long framesBefore = receiver.reliableFrames();
            boolean accepted = receiver.process(sequence, data, offset, length);
            if (accepted) {
                // before the packet layer takes this packet's acks
                log.rtt().peerPacketInOrder(schedule.packetReceived(sequence, length > 0,
                        (int) (receiver.reliableFrames() - framesBefore), time));
            }
            return accepted;
        }

        @Override
        public void acked(int sequence) {
            acks.onAck(sequence, time);
            schedule.acked();
            losses.onAck(sequence);
        }
    }
}
