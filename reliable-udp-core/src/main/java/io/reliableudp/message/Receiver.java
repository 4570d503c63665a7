package io.reliableudp.message;

/**
 * The receive side of one endpoint: takes a packet's payload from the packet layer, checks all its
 * frames first (a malformed packet or one over a receive limit is rejected whole, counted, logged at
 * DEBUG and not acknowledged), then hands each frame to its channel's {@link ReceiveChannel}, whose
 * delivery mode decides; delivers to the {@link MessageListener}, catching and counting its failures.
 */
final class Receiver {

    private static final System.Logger LOG = System.getLogger(MessageEndpoint.class.getName());

    private final MessageListener listener;
    private final ReceiveChannel[] channels;
    private final int channelCount;
    private final int window;
    private final int maxMessageSize;
    private final long reassemblyLimit;
    /** {@link MessageConfig#receiveMemoryLimit()}. */
    private final long memoryLimit;
    /** The part of the limits kept for packets that move a window: one largest message. */
    private final long reserve;
    private final ReceivePool pool;
    private final Frames.Reader reader = new Frames.Reader();

    /** Bytes held by the reassembly buffers of this endpoint's channels (their {@link Reassembly}s). */
    long reassemblyBytes;
    /** Bytes of ordered channels' messages that arrived before an earlier one. */
    long earlyBytes;
    /** Bytes of messages held for paused channels ({@link HeldMessages}). */
    long heldBytes;
    /** Bytes the pool gave the packet being applied (reconciled with what it really added afterwards). */
    private long reservedForPacket;
    /** While a packet is applied: what was held before it (-1 otherwise). */
    private long heldBeforePacket = -1;
    /** Channels paused by {@link #pause}, one bit each. */
    private long pausedMask;
    /** Channels whose held messages wait for {@link #releaseHeld()}: resumed, or still holding. */
    private boolean releasePending;
    /** Packets refused because they would have passed a receive memory limit. */
    private long memoryRefusals;
    /** Whether the first memory refusal was logged (later ones go to DEBUG). */
    private boolean memoryRefusalLogged;

    /** The time of the packet being processed (the endpoint's clock): held messages' ages count to it. */
    double now;
    /**
     * The time-to-live (ms, 0: none) and age on arrival (ms) of the message the channels hand over next:
     * the frame's (its AGE frame), or those an early arrival was kept with. {@link #deliver} drops a
     * message whose age reached its time-to-live; {@link #deliveryAgeMillis} tells the listener the age.
     */
    int deliveryTtl;
    int deliveryAge = -1;
    /** The age of the message the listener is being given, -1 outside a delivery or without a time-to-live. */
    private int listenerAge = -1;

    private boolean closed;
    private long packetsReceived;
    private long malformedPackets;
    /** Received datagrams on which the packet layer threw (the safety net caught it): 0 unless there is a bug. */
    private long packetLayerFailures;
    private long rejectedPackets;
    private long listenerErrors;
    /** Reliable frames (messages and slices) of the accepted packets, whether new or duplicates. */
    private long reliableFrames;

    Receiver(MessageConfig config, MessageListener listener, ReceivePool pool) {
        this.listener = listener;
        this.pool = pool;
        this.memoryLimit = config.receiveMemoryLimit();
        this.reserve = Math.min(config.maxMessageSize(), config.receiveMemoryLimit());
        this.channelCount = config.channels().size();
        this.window = config.receiveWindow();
        this.maxMessageSize = config.maxMessageSize();
        this.reassemblyLimit = config.maxBytesInFlight() + (long) config.maxMessageSize();
        this.channels = new ReceiveChannel[channelCount];
        for (int i = 0; i < channelCount; i++) {
            channels[i] = ReceiveChannel.create(i, config.channels().get(i).mode(), window, this);
        }
    }

    /** From now on nothing is delivered and every packet is refused; what was held is given back to the pool. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ReceiveChannel rc : channels) {
            rc.dropHeld();
            if (rc instanceof ReliableReceiveChannel rel) {
                rel.dropBuffers();
            }
        }
        long held = memoryHeld();
        if (heldBeforePacket >= 0) {
            // closed by a listener while a packet is applied: the pool holds what was held before it plus
            // the packet's reservation (what the packet added so far lies within that)
            pool.add(-(heldBeforePacket + reservedForPacket));
            reservedForPacket = 0;
        } else {
            pool.add(-held);
        }
        reassemblyBytes = 0;
        earlyBytes = 0;
        heldBytes = 0;
    }

    /** Bytes this receive side holds for its peer now. */
    long memoryHeld() {
        return reassemblyBytes + earlyBytes + heldBytes;
    }

    long memoryRefusals() {
        return memoryRefusals;
    }

    /**
     * One packet's payload, from the packet layer.
     *
     * @return whether the packet is accepted (then the packet layer acknowledges it)
     */
    boolean process(int sequence, byte[] data, int offset, int length) {
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
        long before = memoryHeld();
        heldBeforePacket = before;
        try {
            apply(data, offset, length);
        } finally {
            heldBeforePacket = -1;
            if (!closed) {
                // the pool gave this packet what validation counted (an upper bound); settle on what it added
                pool.add(memoryHeld() - before - reservedForPacket);
            }
            reservedForPacket = 0;
        }
        return true;
    }

    /**
     * A slice whose total or slice size differs from an earlier slice of the same message in the same
     * packet (found while applying it): dropped, counted as malformed, logged at DEBUG (hostile input only).
     */
    void sliceGeometryMismatch() {
        malformedPackets++;
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "slice dropped: its geometry differs from an earlier slice of the same message in the packet");
        }
    }

    /**
     * The packet layer threw on a received datagram (it must not: a bug, caught by the safety net so
     * that the I/O thread lives on); counted as malformed and in {@link #packetLayerFailures}, logged.
     */
    void packetLayerFailed(RuntimeException e) {
        malformedPackets++;
        packetLayerFailures++;
        LOG.log(System.Logger.Level.WARNING, "packet layer failed on a received datagram", e);
    }

    /** 0 = acceptable, -1 = malformed, 1 = well-formed but over a receive limit. */
    private int validate(byte[] data, int offset, int length) {
        Frames.Reader r = reader;
        r.reset(data, offset, length);
        long newReassembly = 0;
        long newBytes = 0;
        boolean movesWindow = false;
        int lastNewChannel = -1;
        int lastNewId = -1;
        int result;
        while ((result = r.next()) == Frames.Reader.FRAME) {
            if (r.channel >= channelCount) {
                r.error = "unknown channel";
                return -1;
            }
            ReceiveChannel rc = channels[r.channel];
            if (r.type == Frames.TYPE_SKIP) {
                if (!(rc instanceof ReliableReceiveChannel rel)) {
                    r.error = "SKIP frame on an unreliable channel";
                    return -1;
                }
                int ahead = rel.ahead(r.id);
                if (ahead > window && ahead < 32768) {
                    r.error = "SKIP frame beyond the receive window";
                    return 1;
                }
                continue;
            }
            if (r.type == Frames.TYPE_SLICE) {
                if (!(rc instanceof ReliableReceiveChannel rel)) {
                    r.error = "slice on an unreliable channel";
                    return -1;
                }
                if (r.total > maxMessageSize) {
                    r.error = "sliced message larger than maxMessageSize";
                    return -1;
                }
                int ahead = rel.ahead(r.id);
                if (ahead >= window && ahead < 32768) {
                    r.error = "message id beyond the receive window";
                    return 1;
                }
                if (ahead < window && !rel.bit(r.id)) {
                    Reassembly existing = rel.findReassembly(r.id);
                    if (existing != null) {
                        if (existing.total != r.total || existing.sliceSize != r.sliceSize) {
                            r.error = "slice geometry differs from earlier slices";
                            return -1;
                        }
                    } else if (r.channel != lastNewChannel || r.id != lastNewId) {
                        newReassembly += r.total;
                        newBytes += r.total;
                        lastNewChannel = r.channel;
                        lastNewId = r.id;
                    }
                    if (ahead == 0 && !holding(rel)) {
                        movesWindow = true;
                    }
                }
            } else {
                if (r.dataLength > maxMessageSize) {
                    r.error = "message larger than maxMessageSize";
                    return -1;
                }
                if (rc instanceof ReliableReceiveChannel rel) {
                    int ahead = rel.ahead(r.id);
                    if (ahead >= window && ahead < 32768) {
                        r.error = "message id beyond the receive window";
                        return 1;
                    }
                    if (ahead < window && !rel.bit(r.id)) {
                        if (holding(rel)) {
                            newBytes += r.dataLength; // held until the channel is resumed
                        } else if (ahead == 0) {
                            movesWindow = true; // delivered at once
                        } else if (rel.mode == DeliveryMode.RELIABLE_ORDERED) {
                            newBytes += r.dataLength; // kept until the ones before it came
                        }
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
        if (newBytes > 0) {
            // a packet that moves a window may use the reserve: a buffer full of later messages still
            // takes the one they wait for
            long max = movesWindow ? memoryLimit : memoryLimit - reserve;
            if (memoryHeld() + newBytes > max || !pool.tryReserve(newBytes, movesWindow)) {
                memoryRefused(newBytes);
                return 1;
            }
            reservedForPacket = newBytes;
        }
        return 0;
    }

    /**
     * A packet refused because what it carries would pass the connection's or the node's receive
     * memory limit: counted (and by the pool), the first one logged at INFO, the others at DEBUG (the
     * peer resends it; a peer that keeps the buffer full refuses every packet until it drains).
     */
    private void memoryRefused(long newBytes) {
        memoryRefusals++;
        pool.refused();
        reader.error = "receive memory limit: " + newBytes + " more bytes would pass it (held "
                + memoryHeld() + " of " + memoryLimit + ", node " + pool.heldBytes() + " of " + pool.limitBytes() + ")";
        if (!memoryRefusalLogged) {
            memoryRefusalLogged = true;
            LOG.log(System.Logger.Level.INFO, "packet refused (not acknowledged): " + reader.error
                    + "; later refusals of this connection are logged at DEBUG and counted");
        }
    }

    private void apply(byte[] data, int offset, int length) {
        Frames.Reader r = reader;
        r.reset(data, offset, length);
        while (r.next() == Frames.Reader.FRAME) {
            ReceiveChannel rc = channels[r.channel];
            deliveryTtl = r.hasAge ? r.ttlMillis : 0;
            deliveryAge = r.hasAge ? r.ageMillis : -1;
            if (r.type == Frames.TYPE_SKIP) {
                ((ReliableReceiveChannel) rc).skip(r.id);
            } else if (r.type == Frames.TYPE_SLICE) {
                reliableFrames++;
                ((ReliableReceiveChannel) rc).receiveSlice(r, data);
            } else {
                if (rc instanceof ReliableReceiveChannel) {
                    reliableFrames++;
                }
                rc.receive(r.id, data, r.dataOffset, r.dataLength);
            }
        }
    }

    /** Whether messages of the channel are held rather than delivered: paused, or held ones still wait. */
    boolean holding(ReceiveChannel rc) {
        return ((pausedMask >>> rc.index) & 1) != 0 || rc.holdsMessages();
    }

    /**
     * Hands one message to the listener (nothing after close), or holds it while its channel is
     * paused; a listener exception is caught and counted.
     *
     * @param owned whether {@code data} is a fresh array holding exactly the message (may be kept as is)
     */
    void deliver(ReceiveChannel rc, int id, byte[] data, int offset, int length, boolean owned) {
        if (closed) {
            return;
        }
        if (deliveryTtl != 0 && deliveryAge >= deliveryTtl) {
            rc.receivedExpired++; // older than its time-to-live: received (and acknowledged), never delivered
            return;
        }
        if (holding(rc)) {
            if (!rc.mode.isReliable()) {
                // not counted by validation: held only while it fits, else dropped as unreliable may be
                if (memoryHeld() + length > memoryLimit - reserve || !pool.tryReserve(length, false)) {
                    rc.messagesDropped++;
                    return;
                }
                reservedForPacket += length;
            }
            byte[] kept = owned && offset == 0 && length == data.length ? data : java.util.Arrays.copyOfRange(data, offset, offset + length);
            rc.held().add(id, kept);
            heldBytes += length;
            releasePending |= ((pausedMask >>> rc.index) & 1) == 0;
            return;
        }
        handOver(rc, id, data, offset, length);
    }

    private void handOver(ReceiveChannel rc, int id, byte[] data, int offset, int length) {
        rc.messagesReceived++;
        int outer = listenerAge;
        listenerAge = deliveryTtl != 0 ? deliveryAge : -1;
        try {
            listener.onMessage(rc.index, id, data, offset, length);
        } catch (RuntimeException ex) {
            listenerErrors++;
            LOG.log(System.Logger.Level.WARNING, "message listener failed on channel " + rc.index, ex);
        } finally {
            listenerAge = outer;
        }
    }

    /**
     * During a listener call: the estimated age in milliseconds of the message being delivered (its
     * sender's estimate on arrival, plus the time it waited here), or -1 when it has no time-to-live.
     */
    int deliveryAgeMillis() {
        return listenerAge;
    }

    /**
     * Pauses a channel: from now on its messages are held (counted against the limits) instead of
     * delivered, and once the limits are reached packets carrying more of them are refused.
     */
    void pause(int channel) {
        pausedMask |= 1L << channel;
    }

    /** Resumes a channel: its held messages are delivered, in order, by the next {@link #releaseHeld()}. */
    void resume(int channel) {
        long bit = 1L << channel;
        if ((pausedMask & bit) != 0) {
            pausedMask &= ~bit;
            releasePending |= channels[channel].holdsMessages();
        }
    }

    boolean paused(int channel) {
        return ((pausedMask >>> channel) & 1) != 0;
    }

    /** Whether held messages of a resumed channel wait for {@link #releaseHeld()}. */
    boolean releasePending() {
        return releasePending;
    }

    /**
     * A message this side delivered before the channel was paused, which its owner had not yet passed
     * on (a transport's queue of listener calls): held again, before every message held since, and
     * counted (its bytes exist already, so no limit can refuse it).
     */
    void holdAgain(int channel, int id, byte[] payload) {
        ReceiveChannel rc = channels[channel];
        rc.messagesReceived--; // counted again when it is delivered for good
        rc.returned().add(id, payload);
        heldBytes += payload.length;
        pool.add(payload.length);
        releasePending |= !paused(channel);
    }

    /** Delivers the held messages of every channel that is no longer paused, oldest first. */
    void releaseHeld() {
        if (!releasePending || closed) {
            return;
        }
        releasePending = false;
        for (ReceiveChannel rc : channels) {
            if (paused(rc.index) || !rc.holdsMessages()) {
                continue;
            }
            HeldMessages q;
            while (!paused(rc.index) && !closed && (q = rc.nextHeld()) != null) {
                int id = q.headId();
                byte[] m = q.poll();
                heldBytes -= m.length;
                pool.add(-m.length);
                deliveryTtl = 0;
                handOver(rc, id, m, 0, m.length);
            }
        }
    }

    /** The receive side of one channel (for its counters). */
    ReceiveChannel channel(int channel) {
        return channels[channel];
    }

    /** Reliable frames (messages and slices) of every accepted packet so far. */
    long reliableFrames() {
        return reliableFrames;
    }

    long packetsReceived() {
        return packetsReceived;
    }

    long packetLayerFailures() {
        return packetLayerFailures;
    }

    long malformedPackets() {
        return malformedPackets;
    }

    long rejectedPackets() {
        return rejectedPackets;
    }

    long listenerErrors() {
        return listenerErrors;
    }
}
