package io.reliableudp.message;

import io.reliableudp.packet.ReliableEndpoint;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The message layer of one connection, above one packet-layer endpoint: channels with delivery
 * modes, packing of many messages per packet, resend of reliable messages in new packets, slicing of
 * large messages, delivery futures and congestion avoidance. See docs/messages.md.
 *
 * <p>Not thread-safe: one thread drives it (send, receive, update, flush, close). No I/O: what it
 * wants on the wire goes to the {@link DatagramSender}; what arrives is handed to {@link #receive}.
 * Times are seconds as {@code double}, from any monotonic clock, never going back.
 *
 * <p>Sends never throw for a message that cannot be accepted: {@link #send} returns a handle whose
 * future already failed with {@link DeliveryException} ({@link DeliveryFailure#TOO_LARGE},
 * {@link DeliveryFailure#QUEUE_FULL}, or the close reason); only a bad channel index or a null
 * payload raises {@link IllegalArgumentException}/{@link NullPointerException}.
 *
 * <p>Callbacks ({@link MessageListener}, {@link MessageAckListener}, future completions) run on the
 * driving thread inside {@link #receive} or {@link #close}; they may call {@link #send}, and a
 * {@link #flush} they call is run when {@code receive} returns. The {@link DatagramSender} must not
 * call back into this endpoint.
 */
public final class MessageEndpoint {

    /** {@link #offer} result: the channel's queue is full. */
    public static final int OFFER_QUEUE_FULL = -1;
    /** {@link #offer} result: the message is larger than allowed. */
    public static final int OFFER_TOO_LARGE = -2;
    /** {@link #offer} result: the endpoint is closed. */
    public static final int OFFER_CLOSED = -3;

    /** After this many received data packets without sending one, an ack-only packet goes out at once. */
    static final int ACK_EVERY_PACKETS = 16;
    /** Idle send ticks that still repeat an ack-only packet after the last data packet arrived. */
    static final int REDUNDANT_ACKS = 2;
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
    /** Resend interval base before the first RTT sample. */
    static final double INITIAL_RTT_SECONDS = 0.1;
    /** Mean deviations of the RTT added to the smoothed RTT for the resend interval (RFC 6298 K). */
    static final double RTT_VAR_FACTOR = 4.0;

    private static final System.Logger LOG = System.getLogger(MessageEndpoint.class.getName());
    private static final byte[] EMPTY = new byte[0];

    /** The packet layer used by the public constructor. */
    static final PacketLink.Factory DEFAULT_LINK_FACTORY = ReliablePacketLink::new;

    private final MessageConfig config;
    private final DatagramSender sender;
    private final MessageListener listener;
    private final PacketLink link;
    private final PacketLog log;
    private final CongestionController congestion;
    private final SendChannel[] sendChannels;
    private final ReceiveChannel[] receiveChannels;
    private final int channelCount;
    private final int window;
    private final int payloadBudget;
    private final int maxUnreliableSize;
    private final boolean everyPacket;
    private final long reassemblyLimit;
    private final int sliceSize;
    private final boolean bandwidthEstimation;
    private final long inflightFloor;
    private final byte[] packetBuffer;
    private final Frames.Reader reader = new Frames.Reader();
    private byte[] bigBuffer = EMPTY;

    private @Nullable MessageAckListener ackListener;

    private double time;
    private double nextSendTime;
    private int tick;
    private int roundRobin;
    private double resendInterval;

    private int pos;
    private int chainChannel = -1;
    private int chainId;

    private boolean inReceive;
    private boolean flushRequested;
    private boolean composing;
    private int dataPacketsSinceSend;
    private int redundantAcksLeft;
    private int bigUnreliableQueued;
    private long largeBytesStarted;
    private long reassemblyBytes;

    private boolean closed;
    private DeliveryFailure closeReason = DeliveryFailure.CLOSED;

    private long packetsSent;
    private long ackOnlyPacketsSent;
    private long packetsNotSent;
    private long packetsReceived;
    private long malformedPackets;
    private long rejectedPackets;
    private long datagramsSent;
    private long bytesSent;
    private long listenerErrors;

    /**
     * Creates the endpoint of one connection with its own packet-layer endpoint.
     *
     * @param config message-layer settings (both ends must use the same channels and receive window)
     * @param time current time in seconds
     * @param sender where datagrams go
     * @param listener where delivered messages go
     */
    public MessageEndpoint(MessageConfig config, double time, DatagramSender sender, MessageListener listener) {
        this(config, time, sender, listener, DEFAULT_LINK_FACTORY);
    }

    MessageEndpoint(MessageConfig config, double time, DatagramSender sender, MessageListener listener,
            PacketLink.Factory linkFactory) {
        this.config = Objects.requireNonNull(config, "config");
        this.sender = Objects.requireNonNull(sender, "sender");
        this.listener = Objects.requireNonNull(listener, "listener");
        if (!Double.isFinite(time)) {
            throw new IllegalArgumentException("time must be finite, was " + time);
        }
        this.time = time;
        this.nextSendTime = time;
        this.channelCount = config.channels().size();
        this.window = config.receiveWindow();
        this.sendChannels = new SendChannel[channelCount];
        this.receiveChannels = new ReceiveChannel[channelCount];
        for (int i = 0; i < channelCount; i++) {
            ChannelConfig c = config.channels().get(i);
            sendChannels[i] = new SendChannel(i, c);
            receiveChannels[i] = new ReceiveChannel(i, c.mode(), window);
        }
        int wire = config.datagramBudget() - config.lowerLayerOverhead();
        this.payloadBudget = wire - PACKET_HEADER_MAX;
        int fragmentSize = wire - FRAGMENT_HEADER - PACKET_HEADER_MAX;
        this.maxUnreliableSize = Math.min(config.maxMessageSize(),
                MAX_UNRELIABLE_FRAGMENTS * fragmentSize - Frames.msgFrameSize(0) - 4);
        this.everyPacket = config.resendPolicy() == MessageConfig.ResendPolicy.EVERY_PACKET;
        this.reassemblyLimit = config.maxBytesInFlight() + (long) config.maxMessageSize();
        this.sliceSize = config.effectiveSliceSize();
        this.bandwidthEstimation = config.congestionAvoidance() && config.bandwidthEstimation();
        this.inflightFloor = (long) INITIAL_WINDOW_PACKETS * payloadBudget;
        this.packetBuffer = new byte[payloadBudget];
        this.log = new PacketLog(SENT_PACKETS);
        this.congestion = new CongestionController(config.congestionAvoidance(), config.sendRateHz(),
                config.congestionRttThresholdMillis(), config.congestionLossThresholdPercent(), time);
        this.link = linkFactory.create(time,
                new PacketLink.Sizing(payloadBudget, fragmentSize, MAX_UNRELIABLE_FRAGMENTS, SENT_PACKETS),
                new Hooks());
    }

    // ------------------------------------------------------------------------------------------
    // Public API

    /** The settings of this endpoint. */
    public MessageConfig config() {
        return config;
    }

    /**
     * The packet-layer endpoint below this one, for its statistics and counters (RTT, jitter, loss,
     * bandwidth). Do not send or receive through it directly.
     *
     * @throws IllegalStateException when this endpoint was built over another packet layer (tests only)
     */
    public ReliableEndpoint reliableEndpoint() {
        if (link instanceof ReliablePacketLink r) {
            return r.endpoint;
        }
        throw new IllegalStateException("not built over a ReliableEndpoint");
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
        this.ackListener = ackListener;
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
        SendChannel ch = channel(channel);
        Objects.requireNonNull(payload, "payload");
        DeliveryFailure refusal = refusal(ch, payload.length);
        if (refusal != null) {
            CompletableFuture<Void> failed = new CompletableFuture<>();
            failed.completeExceptionally(new DeliveryException(refusal, refusalMessage(refusal, channel, payload.length)));
            return new SendHandle(channel, -1, failed);
        }
        CompletableFuture<Void> future = new CompletableFuture<>();
        int id = enqueue(ch, payload, future);
        return new SendHandle(channel, id, future);
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
        SendChannel ch = channel(channel);
        Objects.requireNonNull(payload, "payload");
        DeliveryFailure refusal = refusal(ch, payload.length);
        if (refusal != null) {
            return switch (refusal) {
                case QUEUE_FULL -> OFFER_QUEUE_FULL;
                case TOO_LARGE -> OFFER_TOO_LARGE;
                default -> OFFER_CLOSED;
            };
        }
        return enqueue(ch, payload, null);
    }

    /**
     * Feeds one datagram received from the peer (packet header and frames). Never throws for any
     * content: a malformed packet is rejected (not acknowledged) and counted.
     *
     * @param data buffer holding the datagram (only read during the call)
     * @param offset first byte
     * @param length number of bytes
     */
    public void receive(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, data.length);
        if (closed) {
            return;
        }
        boolean outer = !inReceive;
        inReceive = true;
        try {
            link.receivePacket(data, offset, length);
        } catch (RuntimeException e) {
            malformedPackets++;
            LOG.log(System.Logger.Level.WARNING, "packet layer failed on a received datagram", e);
        } finally {
            if (outer) {
                inReceive = false;
            }
        }
        if (!outer || closed) {
            return;
        }
        if (flushRequested) {
            flushRequested = false;
            flush(time);
        } else if (dataPacketsSinceSend >= ACK_EVERY_PACKETS) {
            sendAckOnly();
        }
    }

    /**
     * Advances time: packet-layer statistics, RTT and loss estimates, congestion mode, and, when a
     * send tick is due at the current send rate, the packets of queued and due-for-resend messages
     * (or an ack-only packet when there is nothing to send but received data to acknowledge).
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
        link.update(time);
        log.updateLoss(time, link.nextPacketSequence());
        double srtt = log.srttSeconds();
        congestion.update(time, srtt < 0 ? 0 : srtt * 1000, log.loss() * 100);
        // A tick is due within half an interval of its time, so a caller ticking at the send rate
        // itself, with some scheduling jitter, sends on every call; the schedule keeps the average rate.
        double interval = 1.0 / congestion.sendRateHz();
        if (time >= nextSendTime - 0.5 * interval) {
            nextSendTime = Math.max(nextSendTime + interval, time + 0.5 * interval);
            sendRound(true);
        }
    }

    /**
     * Sends the queued messages now instead of at the next tick (within the congestion limits).
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
        sendRound(true);
    }

    /** Whether a reliable message is still waiting to be sent or acknowledged. */
    public boolean hasPendingReliable() {
        for (SendChannel ch : sendChannels) {
            if (ch.reliable && !ch.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Messages waiting to be sent or acknowledged, on all channels. */
    public int queuedMessages() {
        int n = 0;
        for (SendChannel ch : sendChannels) {
            n += ch.queued;
        }
        return n;
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
        closeReason = reason;
        for (SendChannel ch : sendChannels) {
            for (int v = ch.tail; v != ch.head; v++) {
                int i = v & ch.mask;
                CompletableFuture<Void> f = ch.future[i];
                if (f != null && ch.state[i] != SendChannel.ACKED) {
                    f.completeExceptionally(new DeliveryException(reason,
                            "message " + (v & 0xFFFF) + " on channel " + ch.index + " not delivered: " + reason));
                }
                ch.clear(i);
            }
            ch.tail = ch.head;
            ch.nextUnsent = ch.head;
            ch.queued = 0;
            ch.queuedBytes = 0;
            ch.bigUnreliable = 0;
        }
        bigUnreliableQueued = 0;
        largeBytesStarted = 0;
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * A snapshot of one channel's counters.
     *
     * @param channel channel index
     * @return the counters
     * @throws IllegalArgumentException when the channel does not exist
     */
    public ChannelStats channelStats(int channel) {
        SendChannel s = channel(channel);
        ReceiveChannel r = receiveChannels[channel];
        return new ChannelStats(channel, s.mode, s.messagesSent, s.messagesAcked, s.messagesResent,
                r.messagesReceived, r.messagesDropped, r.duplicatesDropped, s.queued, s.queuedBytes);
    }

    /** Whether congestion avoidance is in its bad mode. */
    public boolean congested() {
        return congestion.congested();
    }

    /** Current send tick rate (the good-mode rate, or a third of it while congested). */
    public double sendRateHz() {
        return congestion.sendRateHz();
    }

    /** Current penalty time of congestion avoidance (seconds of good conditions needed to leave bad mode). */
    public double congestionPenaltySeconds() {
        return congestion.penaltySeconds();
    }

    /** Times congestion avoidance entered its bad mode. */
    public long congestionEpisodes() {
        return congestion.badEpisodes();
    }

    /** Smoothed RTT measured by this layer from packet acks (ms), 0 before the first sample. */
    public double rttMillis() {
        double s = log.srttSeconds();
        return s < 0 ? 0 : s * 1000;
    }

    /** Packet loss estimated by this layer (percent, 0..100). */
    public double packetLossPercent() {
        return log.loss() * 100;
    }

    /** The current resend interval of reliable messages (seconds; 0 under EVERY_PACKET). */
    public double resendIntervalSeconds() {
        return computeResendInterval();
    }

    /** Packets carrying messages sent. */
    public long packetsSent() {
        return packetsSent;
    }

    /** Header-only packets sent to acknowledge received data. */
    public long ackOnlyPacketsSent() {
        return ackOnlyPacketsSent;
    }

    /** Packets the packet layer refused to send (should stay 0). */
    public long packetsNotSent() {
        return packetsNotSent;
    }

    /** Packets whose payload reached this layer. */
    public long packetsReceived() {
        return packetsReceived;
    }

    /** Received packets rejected as malformed (bad framing, unknown channel, illegal sizes). */
    public long malformedPackets() {
        return malformedPackets;
    }

    /** Received well-formed packets rejected (not acknowledged) because they exceeded a receive limit. */
    public long rejectedPackets() {
        return rejectedPackets;
    }

    /** Packets this layer counted lost (not acknowledged within the loss timeout). */
    public long packetsLost() {
        return log.packetsLost();
    }

    /** Datagrams handed to the {@link DatagramSender}. */
    public long datagramsSent() {
        return datagramsSent;
    }

    /** Bytes handed to the {@link DatagramSender}. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Exceptions thrown by listeners (caught, logged and counted). */
    public long listenerErrors() {
        return listenerErrors;
    }

    /** Payload bytes of data packets sent and neither acknowledged nor counted lost. */
    public long bytesInFlight() {
        return log.bytesInFlight();
    }

    /** The delivery-rate estimate (bytes per second; max over the last 1-2 s), 0 before any sample. */
    public double bandwidthEstimateBytesPerSecond() {
        return log.bandwidthEstimate();
    }

    /** The current cap on {@link #bytesInFlight()}, or -1 when bandwidth estimation is off. */
    public long inflightLimitBytes() {
        return bandwidthEstimation ? inflightLimit() : -1;
    }

    /** Total size of the sliced messages started and not yet fully acknowledged (capped by maxBytesInFlight). */
    public long largeBytesInFlight() {
        return largeBytesStarted;
    }

    /** Bytes held by this side's reassembly buffers of sliced messages being received. */
    public long reassemblyBytes() {
        return reassemblyBytes;
    }

    /** Bytes of message frames one packet can carry. */
    public int packetPayloadBudget() {
        return payloadBudget;
    }

    /** Largest message accepted on an unreliable channel (sent as one packet fragmented by the packet layer). */
    public int maxUnreliableMessageSize() {
        return maxUnreliableSize;
    }

    // ------------------------------------------------------------------------------------------
    // Sending

    private SendChannel channel(int channel) {
        if (channel < 0 || channel >= channelCount) {
            throw new IllegalArgumentException("channel must be within 0.." + (channelCount - 1) + ", was " + channel);
        }
        return sendChannels[channel];
    }

    private @Nullable DeliveryFailure refusal(SendChannel ch, int length) {
        if (closed) {
            return closeReason;
        }
        if (length > config.maxMessageSize() || (!ch.reliable && length > maxUnreliableSize) || length > ch.maxQueuedBytes) {
            return DeliveryFailure.TOO_LARGE;
        }
        if (ch.queued >= ch.maxQueuedMessages || ch.queuedBytes + length > ch.maxQueuedBytes) {
            return DeliveryFailure.QUEUE_FULL;
        }
        return null;
    }

    private String refusalMessage(DeliveryFailure refusal, int channel, int length) {
        SendChannel ch = sendChannels[channel];
        return switch (refusal) {
            case TOO_LARGE -> "message of " + length + " bytes on channel " + channel + " is too large (maxMessageSize "
                    + config.maxMessageSize() + (ch.reliable ? "" : ", unreliable limit " + maxUnreliableSize)
                    + ", maxQueuedBytes " + ch.maxQueuedBytes + ")";
            case QUEUE_FULL -> "send queue of channel " + channel + " is full (" + ch.queued + " messages, "
                    + ch.queuedBytes + " bytes; limits " + ch.maxQueuedMessages + " / " + ch.maxQueuedBytes + ")";
            default -> "endpoint closed: " + refusal;
        };
    }

    private int enqueue(SendChannel ch, byte[] payload, @Nullable CompletableFuture<Void> future) {
        ch.ensureRoom();
        int v = ch.head++;
        int i = v & ch.mask;
        ch.payload[i] = payload;
        ch.future[i] = future;
        ch.state[i] = SendChannel.QUEUED;
        ch.lastSent[i] = Double.NEGATIVE_INFINITY;
        ch.lastTick[i] = tick - 1;
        if (ch.reliable) {
            ch.large[i] = Frames.msgFrameSize(payload.length) > payloadBudget
                    ? new LargeSend(payload.length, sliceSize) : null;
        } else if (Frames.msgFrameSize(payload.length) > payloadBudget) {
            ch.bigUnreliable++;
            bigUnreliableQueued++;
        }
        ch.queued++;
        ch.queuedBytes += payload.length;
        ch.messagesSent++;
        return v & 0xFFFF;
    }

    private void advance(double now) {
        if (now > time) {
            time = now;
        }
    }

    private double computeResendInterval() {
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

    private void sendRound(boolean ackIfIdle) {
        if (composing) {
            return;
        }
        composing = true;
        try {
            tick++;
            resendInterval = computeResendInterval();
            int limit = congestion.congested() ? 1 : config.maxPacketsPerUpdate();
            int sent = 0;
            while (sent < limit && !inflightCapped() && composeAndSend()) {
                sent++;
            }
            if (sent == 0 && ackIfIdle && (dataPacketsSinceSend > 0 || redundantAcksLeft > 0)) {
                if (dataPacketsSinceSend == 0) {
                    redundantAcksLeft--;
                }
                sendAckOnly();
            }
        } finally {
            composing = false;
        }
    }

    private boolean inflightCapped() {
        return bandwidthEstimation && log.bytesInFlight() >= inflightLimit();
    }

    private long inflightLimit() {
        return log.inflightLimit(1.0 / config.sendRateHz(), inflightFloor);
    }

    private void sendAckOnly() {
        int seq = link.nextPacketSequence();
        log.begin(seq, time);
        int r = link.sendPacket(packetBuffer, 0, 0);
        if (r < 0) {
            log.abort();
            packetsNotSent++;
            return;
        }
        log.commit(false, 0);
        ackOnlyPacketsSent++;
        dataPacketsSinceSend = 0;
    }

    /** Builds and sends one packet; false when there was nothing to send. */
    private boolean composeAndSend() {
        if (bigUnreliableQueued > 0 && sendBigUnreliable()) {
            return true;
        }
        int seq = link.nextPacketSequence();
        log.begin(seq, time);
        pos = 0;
        chainChannel = -1;
        int n = channelCount;
        int start = roundRobin;
        roundRobin = start + 1 == n ? 0 : start + 1;
        for (int k = 0; k < n; k++) {
            int c = start + k;
            if (c >= n) {
                c -= n;
            }
            SendChannel ch = sendChannels[c];
            if (ch.head == ch.tail) {
                continue;
            }
            if (ch.reliable) {
                writeReliable(ch);
            } else {
                writeUnreliable(ch);
            }
            if (payloadBudget - pos < 2) {
                break;
            }
        }
        if (pos == 0) {
            log.abort();
            return false;
        }
        int r = link.sendPacket(packetBuffer, 0, pos);
        if (r < 0) {
            log.abort();
            packetsNotSent++;
        } else {
            log.commit(true, pos);
            packetsSent++;
            dataPacketsSinceSend = 0;
        }
        return true;
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
                    if (largeBytesStarted > 0 && largeBytesStarted + ls.total > config.maxBytesInFlight()) {
                        return;
                    }
                    ls.started = true;
                    largeBytesStarted += ls.total;
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
        if (size > payloadBudget - pos) {
            return false;
        }
        pos = next ? Frames.writeNext(packetBuffer, pos, p, 0, len)
                : Frames.writeMsg(packetBuffer, pos, ch.index, id, p, 0, len);
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
        if (Frames.sliceHeaderSize(ls.total, ls.sliceSize, s) + len > payloadBudget - pos) {
            return false;
        }
        pos = Frames.writeSlice(packetBuffer, pos, ch.index, id, ls.total, ls.sliceSize, s,
                ch.payload[v & ch.mask], s * ls.sliceSize, len);
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
            unreliableWritten(ch, v, i, len);
        }
    }

    private void unreliableWritten(SendChannel ch, int v, int i, int len) {
        CompletableFuture<Void> f = ch.future[i];
        ch.clear(i);
        ch.tail = v + 1;
        ch.nextUnsent = ch.tail;
        ch.queued--;
        ch.queuedBytes -= len;
        if (f != null) {
            f.complete(null);
        }
    }

    /** Sends the oldest unreliable message too large for one packet as a packet the packet layer fragments. */
    private boolean sendBigUnreliable() {
        for (SendChannel ch : sendChannels) {
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
            int r = link.sendPacket(bigBuffer, 0, len);
            if (r < 0) {
                log.abort();
                packetsNotSent++;
            } else {
                log.commit(true, len);
                packetsSent++;
                dataPacketsSinceSend = 0;
            }
            ch.bigUnreliable--;
            bigUnreliableQueued--;
            unreliableWritten(ch, v, i, p.length);
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------
    // Acks

    private void onAck(int sequence) {
        int slot = log.ack(sequence, time);
        if (slot < 0) {
            return;
        }
        int n = log.entryCount(slot);
        for (int k = 0; k < n; k++) {
            ackEntry(log.entryAt(slot, k));
        }
    }

    private void ackEntry(long e) {
        int c = PacketLog.channelOf(e);
        if (c >= channelCount || closed) {
            return;
        }
        SendChannel ch = sendChannels[c];
        int id = PacketLog.idOf(e);
        if (!ch.reliable) {
            ch.messagesAcked++;
            notifyAcked(c, id);
            return;
        }
        int v = ch.tail + ((id - ch.tail) & 0xFFFF);
        if (v - ch.tail >= ch.head - ch.tail) {
            return;
        }
        int i = v & ch.mask;
        if (ch.state[i] != SendChannel.SENT) {
            return;
        }
        LargeSend ls = ch.large[i];
        if (PacketLog.isSlice(e)) {
            if (ls == null || !ls.ack(PacketLog.sliceOf(e)) || !ls.complete()) {
                return;
            }
            largeBytesStarted -= ls.total;
        } else if (ls != null) {
            return;
        }
        messageAcked(ch, v, i);
    }

    private void messageAcked(SendChannel ch, int v, int i) {
        ch.state[i] = SendChannel.ACKED;
        ch.messagesAcked++;
        ch.queued--;
        ch.queuedBytes -= ch.payload[i].length;
        CompletableFuture<Void> f = ch.future[i];
        ch.payload[i] = null;
        ch.future[i] = null;
        ch.large[i] = null;
        while (ch.tail != ch.head && ch.state[ch.tail & ch.mask] == SendChannel.ACKED) {
            ch.state[ch.tail & ch.mask] = SendChannel.EMPTY;
            ch.tail++;
        }
        if (ch.nextUnsent - ch.tail < 0) {
            ch.nextUnsent = ch.tail;
        }
        if (f != null) {
            f.complete(null);
        }
        notifyAcked(ch.index, v & 0xFFFF);
    }

    private void notifyAcked(int channel, int id) {
        MessageAckListener l = ackListener;
        if (l == null) {
            return;
        }
        try {
            l.onAcked(channel, id);
        } catch (RuntimeException ex) {
            listenerErrors++;
            LOG.log(System.Logger.Level.WARNING, "ack listener failed", ex);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Receiving

    private boolean process(int sequence, byte[] data, int offset, int length) {
        packetsReceived++;
        if (length == 0 || closed) {
            return !closed;
        }
        int verdict = validate(data, offset, length);
        if (verdict != 0) {
            if (verdict < 0) {
                malformedPackets++;
            } else {
                rejectedPackets++;
            }
            if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
                LOG.log(System.Logger.Level.DEBUG, (verdict < 0 ? "malformed packet " : "packet ") + sequence
                        + " rejected: " + reader.error);
            }
            return false;
        }
        apply(data, offset, length);
        dataPacketsSinceSend++;
        redundantAcksLeft = REDUNDANT_ACKS;
        return true;
    }

    /** 0 = acceptable, -1 = malformed, 1 = well-formed but over a receive limit. */
    private int validate(byte[] data, int offset, int length) {
        Frames.Reader r = reader;
        r.reset(data, offset, length);
        long newReassembly = 0;
        int lastNewChannel = -1;
        int lastNewId = -1;
        int result;
        while ((result = r.next()) == Frames.Reader.FRAME) {
            if (r.channel >= channelCount) {
                r.error = "unknown channel";
                return -1;
            }
            ReceiveChannel rc = receiveChannels[r.channel];
            if (r.type == Frames.TYPE_SLICE) {
                if (!rc.reliable) {
                    r.error = "slice on an unreliable channel";
                    return -1;
                }
                if (r.total > config.maxMessageSize()) {
                    r.error = "sliced message larger than maxMessageSize";
                    return -1;
                }
                int ahead = rc.ahead(r.id);
                if (ahead >= window && ahead < 32768) {
                    r.error = "message id beyond the receive window";
                    return 1;
                }
                if (ahead < window && !rc.bit(r.id)) {
                    Reassembly existing = rc.findReassembly(r.id);
                    if (existing != null) {
                        if (existing.total != r.total || existing.sliceSize != r.sliceSize) {
                            r.error = "slice geometry differs from earlier slices";
                            return -1;
                        }
                    } else if (r.channel != lastNewChannel || r.id != lastNewId) {
                        newReassembly += r.total;
                        lastNewChannel = r.channel;
                        lastNewId = r.id;
                    }
                }
            } else {
                if (r.dataLength > config.maxMessageSize()) {
                    r.error = "message larger than maxMessageSize";
                    return -1;
                }
                if (rc.reliable) {
                    int ahead = rc.ahead(r.id);
                    if (ahead >= window && ahead < 32768) {
                        r.error = "message id beyond the receive window";
                        return 1;
                    }
                }
            }
        }
        if (result == Frames.Reader.MALFORMED) {
            return -1;
        }
        if (newReassembly > 0 && reassemblyBytes + newReassembly > reassemblyLimit) {
            r.error = "reassembly buffers would exceed maxBytesInFlight + maxMessageSize";
            return 1;
        }
        return 0;
    }

    private void apply(byte[] data, int offset, int length) {
        Frames.Reader r = reader;
        r.reset(data, offset, length);
        while (r.next() == Frames.Reader.FRAME) {
            ReceiveChannel rc = receiveChannels[r.channel];
            if (r.type == Frames.TYPE_SLICE) {
                receiveSlice(rc, r, data);
            } else if (rc.reliable) {
                receiveReliable(rc, r.id, data, r.dataOffset, r.dataLength, false);
            } else if (rc.mode == DeliveryMode.UNRELIABLE_SEQUENCED) {
                receiveSequenced(rc, r.id, data, r.dataOffset, r.dataLength);
            } else {
                receiveUnreliable(rc, r.id, data, r.dataOffset, r.dataLength);
            }
        }
    }

    private void receiveReliable(ReceiveChannel rc, int id, byte[] data, int offset, int length, boolean owned) {
        int ahead = rc.ahead(id);
        if (ahead >= window || rc.bit(id)) {
            rc.duplicatesDropped++;
            return;
        }
        if (ahead == 0) {
            deliver(rc, id, data, offset, length);
            rc.nextExpected = (rc.nextExpected + 1) & 0xFFFF;
            drain(rc);
            return;
        }
        rc.setBit(id);
        if (rc.ordered) {
            byte[][] buffered = rc.buffered;
            if (buffered == null) {
                buffered = new byte[window][];
                rc.buffered = buffered;
            }
            buffered[id & rc.wmask] = owned && offset == 0 && length == data.length
                    ? data : Arrays.copyOfRange(data, offset, offset + length);
        } else {
            deliver(rc, id, data, offset, length);
        }
    }

    /** Moves nextExpected past ids already received, delivering buffered ones on ordered channels. */
    private void drain(ReceiveChannel rc) {
        while (rc.bit(rc.nextExpected)) {
            int id = rc.nextExpected;
            rc.clearBit(id);
            if (rc.ordered) {
                byte[][] buffered = rc.buffered;
                if (buffered != null) {
                    byte[] p = buffered[id & rc.wmask];
                    buffered[id & rc.wmask] = null;
                    if (p != null) {
                        deliver(rc, id, p, 0, p.length);
                    }
                }
            }
            rc.nextExpected = (id + 1) & 0xFFFF;
        }
    }

    private void receiveSlice(ReceiveChannel rc, Frames.Reader r, byte[] data) {
        int id = r.id;
        if (!rc.wanted(id)) {
            rc.duplicatesDropped++;
            return;
        }
        Reassembly ra = rc.findReassembly(id);
        if (ra == null) {
            ra = new Reassembly(id, r.total, r.sliceSize);
            rc.addReassembly(ra);
            reassemblyBytes += r.total;
        }
        if (!ra.store(r.sliceIndex, data, r.dataOffset, r.dataLength)) {
            rc.duplicatesDropped++;
            return;
        }
        if (ra.complete()) {
            rc.removeReassembly(ra);
            reassemblyBytes -= ra.total;
            receiveReliable(rc, id, ra.data, 0, ra.total, true);
        }
    }

    private void receiveUnreliable(ReceiveChannel rc, int id, byte[] data, int offset, int length) {
        if (!rc.hasNewest) {
            rc.hasNewest = true;
            rc.newest = id;
            rc.setBit(id);
            deliver(rc, id, data, offset, length);
            return;
        }
        int d = (id - rc.newest) & 0xFFFF;
        if (d != 0 && d < 32768) {
            if (d >= window) {
                Arrays.fill(rc.bits, 0L);
            } else {
                for (int k = 1; k <= d; k++) {
                    rc.clearBit(rc.newest + k);
                }
            }
            rc.newest = id;
            rc.setBit(id);
            deliver(rc, id, data, offset, length);
            return;
        }
        int back = (rc.newest - id) & 0xFFFF;
        if (back >= window) {
            rc.messagesDropped++;
        } else if (rc.bit(id)) {
            rc.duplicatesDropped++;
        } else {
            rc.setBit(id);
            deliver(rc, id, data, offset, length);
        }
    }

    private void receiveSequenced(ReceiveChannel rc, int id, byte[] data, int offset, int length) {
        if (rc.hasNewest) {
            int d = (id - rc.newest) & 0xFFFF;
            if (d == 0) {
                rc.duplicatesDropped++;
                return;
            }
            if (d >= 32768) {
                rc.messagesDropped++;
                return;
            }
        }
        rc.hasNewest = true;
        rc.newest = id;
        deliver(rc, id, data, offset, length);
    }

    private void deliver(ReceiveChannel rc, int id, byte[] data, int offset, int length) {
        if (closed) {
            return;
        }
        rc.messagesReceived++;
        try {
            listener.onMessage(rc.index, id, data, offset, length);
        } catch (RuntimeException ex) {
            listenerErrors++;
            LOG.log(System.Logger.Level.WARNING, "message listener failed on channel " + rc.index, ex);
        }
    }

    /** The callbacks of the packet layer, kept off the public API. */
    private final class Hooks implements PacketLink.Hooks {
        @Override
        public void transmit(byte[] data, int offset, int length) {
            datagramsSent++;
            bytesSent += length;
            sender.send(data, offset, length);
        }

        @Override
        public boolean process(int sequence, byte[] data, int offset, int length) {
            return MessageEndpoint.this.process(sequence, data, offset, length);
        }

        @Override
        public void acked(int sequence) {
            onAck(sequence);
        }
    }
}
