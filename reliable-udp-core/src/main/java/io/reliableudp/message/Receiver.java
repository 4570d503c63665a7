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
    private final Frames.Reader reader = new Frames.Reader();

    /** Bytes held by the reassembly buffers of this endpoint's channels (their {@link Reassembly}s). */
    long reassemblyBytes;

    private boolean closed;
    private long packetsReceived;
    private long malformedPackets;
    /** Received datagrams on which the packet layer threw (the safety net caught it): 0 unless there is a bug. */
    private long packetLayerFailures;
    private long rejectedPackets;
    private long listenerErrors;
    /** Reliable frames (messages and slices) of the accepted packets, whether new or duplicates. */
    private long reliableFrames;

    Receiver(MessageConfig config, MessageListener listener) {
        this.listener = listener;
        this.channelCount = config.channels().size();
        this.window = config.receiveWindow();
        this.maxMessageSize = config.maxMessageSize();
        this.reassemblyLimit = config.maxBytesInFlight() + (long) config.maxMessageSize();
        this.channels = new ReceiveChannel[channelCount];
        for (int i = 0; i < channelCount; i++) {
            channels[i] = ReceiveChannel.create(i, config.channels().get(i).mode(), window, this);
        }
    }

    /** From now on nothing is delivered and every packet is refused. */
    void close() {
        closed = true;
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
        apply(data, offset, length);
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
        int lastNewChannel = -1;
        int lastNewId = -1;
        int result;
        while ((result = r.next()) == Frames.Reader.FRAME) {
            if (r.channel >= channelCount) {
                r.error = "unknown channel";
                return -1;
            }
            ReceiveChannel rc = channels[r.channel];
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
                        lastNewChannel = r.channel;
                        lastNewId = r.id;
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
            ReceiveChannel rc = channels[r.channel];
            if (r.type == Frames.TYPE_SLICE) {
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

    /** Hands one message to the listener (nothing after close); a listener exception is caught and counted. */
    void deliver(ReceiveChannel rc, int id, byte[] data, int offset, int length) {
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
