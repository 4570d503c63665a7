package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * Turns the packet layer's "packet N was acknowledged" into "message M was acknowledged": looks up
 * in the {@link PacketLog} what packet N carried (the log also takes its RTT and delivery-rate
 * sample), marks those messages and slices acknowledged in the {@link SendQueue} (a sliced message
 * once all its slices are), and tells the {@link MessageAckListener}. Unreliable messages get an ack
 * receipt only.
 */
final class AckTracker {

    private static final System.Logger LOG = System.getLogger(MessageEndpoint.class.getName());

    private final PacketLog log;
    private final SendQueue queue;
    private final SendChannel[] channels;
    private final int channelCount;
    private @Nullable MessageAckListener ackListener;
    private boolean closed;
    private long listenerErrors;

    AckTracker(PacketLog log, SendQueue queue) {
        this.log = log;
        this.queue = queue;
        this.channels = queue.channels;
        this.channelCount = channels.length;
    }

    void setAckListener(@Nullable MessageAckListener ackListener) {
        this.ackListener = ackListener;
    }

    /** From now on acknowledgements change nothing and are told to nobody. */
    void close() {
        closed = true;
    }

    /** The peer acknowledged our packet {@code sequence} (once per sequence), at {@code time}. */
    void onAck(int sequence, double time) {
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
        SendChannel ch = channels[c];
        int id = PacketLog.idOf(e);
        if (PacketLog.isSkip(e)) {
            queue.skipAcked(ch, id);
            return;
        }
        if (!ch.reliable) {
            ch.messagesAcked++;
            notifyAcked(c, id);
            return;
        }
        int d = ch.sentOffset(id);
        if (d < 0) {
            return;
        }
        int v = ch.tail + d;
        int i = v & ch.mask;
        LargeSend ls = ch.large[i];
        if (PacketLog.isSlice(e)) {
            if (ls == null || !ls.ack(PacketLog.sliceOf(e)) || !ls.complete()) {
                return;
            }
            queue.largeBytesStarted -= ls.total;
        } else if (ls != null) {
            return;
        }
        queue.reliableAcked(ch, v, i);
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

    /** Exceptions thrown by the ack listener (caught, logged and counted). */
    long listenerErrors() {
        return listenerErrors;
    }
}
