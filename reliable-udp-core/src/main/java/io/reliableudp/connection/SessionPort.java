package io.reliableudp.connection;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.MessageListener;
import io.reliableudp.message.SendCompletion;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * What joins a {@link Session} (the message layer) to its connection: it makes the session when the
 * connection is established ({@link #open}), is the session's {@link Session.Output} and
 * {@link Session.Input}, and passes the connection's calls on to it until it is closed ({@link #close}).
 *
 * <p>As the session's output it offers the {@link FrameSender}'s datagram buffer and frame-header room:
 * the session composes its packets there and each is framed and sealed where it lies, a PAYLOAD frame
 * ({@link #send(ByteBuffer, int, int)}); a packet elsewhere is copied in first. A packet larger than the
 * current datagram budget is a bug of the layer above and fails loudly rather than being truncated. The
 * session's first wish for larger packets starts the {@link SizeProbe}. Messages the session delivers go
 * to the {@link MessageListener} given (the connection's events). Between open and close every call is
 * passed on; before and after, the calls that queue refuse ({@link MessageEndpoint#OFFER_CLOSED}) and the
 * others do nothing. Not thread-safe.
 */
final class SessionPort implements Session.Output, Session.Input {

    private final FrameSender out;
    private final SizeProbe sizes;
    private final MessageListener listener;
    private @Nullable Session session;
    private boolean open;

    /** A port that sends through {@code out}, grows datagrams with {@code sizes} and delivers to {@code listener}. */
    SessionPort(FrameSender out, SizeProbe sizes, MessageListener listener) {
        this.out = out;
        this.sizes = sizes;
        this.listener = listener;
    }

    /** The connection is established: its session is made now, with this port as its output and input. */
    void open(Session.Factory factory, MessageConfig config, double time) {
        open = true;
        session = factory.create(config, time, this, this);
    }

    /**
     * The connection ended: later sends of the session go nowhere, and its pending messages fail with
     * {@code failure}. Does nothing before {@link #open}.
     */
    void close(DeliveryFailure failure) {
        open = false;
        Session s = session;
        if (s != null) {
            s.close(failure);
        }
    }

    /** The session, or null before the connection was established. */
    @Nullable Session session() {
        return session;
    }

    /** Queues a message on the open session; else {@link MessageEndpoint#OFFER_CLOSED}, the completion not told (the caller tells it). */
    int offer(int channel, byte[] payload, @Nullable SendCompletion completion) {
        Session s = session;
        return open && s != null ? s.offer(channel, payload, completion) : MessageEndpoint.OFFER_CLOSED;
    }

    /** {@link #offer(int, byte[], SendCompletion)} with a time-to-live in ms (0: the channel's). */
    int offer(int channel, byte[] payload, @Nullable SendCompletion completion, int ttlMillis) {
        Session s = session;
        return open && s != null ? s.offer(channel, payload, completion, ttlMillis) : MessageEndpoint.OFFER_CLOSED;
    }

    /** During a delivery: the message's age in ms when it has a time-to-live, else -1. */
    int deliveredMessageAgeMillis() {
        Session s = session;
        return s != null ? s.deliveredMessageAgeMillis() : -1;
    }

    /** Queues a message without a completion on the open session; else {@link MessageEndpoint#OFFER_CLOSED}. */
    int offer(int channel, byte[] payload) {
        Session s = session;
        return open && s != null ? s.offer(channel, payload) : MessageEndpoint.OFFER_CLOSED;
    }

    /** Whether a session is open to take messages. */
    boolean isOpen() {
        return open && session != null;
    }

    /** Packet-layer bytes of a PAYLOAD frame, to the open session. */
    void receive(byte[] data, int offset, int length, double time) {
        Session s = session;
        if (open && s != null && length > 0) {
            s.receive(data, offset, length, time);
        }
    }

    /** The session's timers and housekeeping. */
    void update(double time) {
        Session s = session;
        if (open && s != null) {
            s.update(time);
        }
    }

    /** Sends what the open session has queued now. */
    void flush(double time) {
        Session s = session;
        if (open && s != null) {
            s.flush(time);
        }
    }

    /** When the open session wants its next update; +inf when there is none. */
    double nextDeadline() {
        Session s = session;
        return open && s != null ? s.nextDeadline() : Double.POSITIVE_INFINITY;
    }

    /** Whether the open session waits only for timers its owner may leave to its next service ({@link Session#settled}). */
    boolean settled() {
        Session s = session;
        return open && s != null && s.settled();
    }

    /** Whether reliable messages of the open session still wait for acknowledgement. */
    boolean hasPendingReliable() {
        Session s = session;
        return open && s != null && s.hasPendingReliable();
    }

    /**
     * The datagrams may now be {@code budget} bytes long, and the sender's buffer holds one: tells the
     * session; {@code watch}: its large packets are watched for loss ({@link #largeDatagramsLost}).
     */
    void datagramBudgetChanged(int budget, boolean watch) {
        Session s = session;
        if (s != null) {
            s.datagramBudgetChanged(budget, watch);
        }
    }

    // ------------------------------------------------------- the session's output and input

    /** To the session: the buffer to compose packets in (behind {@link #headroom()} bytes). */
    @Override
    public ByteBuffer datagramBuffer() {
        return out.datagram();
    }

    /** To the session: the bytes this layer writes in front of a packet (the frame header). */
    @Override
    public int headroom() {
        return out.headroom();
    }

    /**
     * From the session: one packet of message-layer bytes, copied into the datagram buffer, then
     * framed and sent (for sessions that do not compose in place).
     */
    @Override
    public void send(byte[] data, int offset, int length) {
        if (!open) {
            return;
        }
        checkBody(length);
        out.datagram().put(out.headroom(), data, offset, length);
        out.frame(Protocol.PAYLOAD, out.headroom(), length);
    }

    /**
     * From the session: one packet composed in place in {@link #datagramBuffer()} at {@code offset}
     * (with the headroom in front), framed and sealed where it lies. A packet in another buffer, or
     * without the headroom, is copied in first.
     */
    @Override
    public void send(ByteBuffer buffer, int offset, int length) {
        if (!open) {
            return;
        }
        checkBody(length);
        ByteBuffer datagram = out.datagram();
        int headroom = out.headroom();
        if (buffer != datagram || offset < headroom) {
            datagram.put(headroom, buffer, offset, length);
            offset = headroom;
        }
        out.frame(Protocol.PAYLOAD, offset, length);
    }

    /** From the session: the traffic class of its next packets (around a packet of a channel with a class of its own). */
    @Override
    public void trafficClass(int tos) {
        out.trafficClass(tos);
    }

    /** From the session, once: a packet was full while more waited. The first size probe goes now. */
    @Override
    public void largerDatagramsWanted() {
        if (open && sizes.wanted()) {
            sizes.send(out, out.now());
        }
    }

    /**
     * From the session, after a send round: large packets seem lost while smaller ones pass. The budget
     * falls back to the base now (the session packs what is due in base-sized packets), and the lost
     * size is probed again at once ({@link SizeProbe#blackHole}).
     */
    @Override
    public void largeDatagramsLost() {
        if (!open) {
            return;
        }
        double now = out.now();
        int budget = sizes.blackHole(now);
        if (budget > 0) {
            datagramBudgetChanged(budget, false);
            if (now >= sizes.next()) {
                sizes.send(out, now);
            }
        }
    }

    /** From the session: a message arrived. */
    @Override
    public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
        listener.onMessage(channel, messageId, data, offset, length);
    }

    private void checkBody(int length) {
        int maxBody = sizes.budget() - Protocol.frameOverhead(out.encrypted());
        if (length > maxBody) {
            // the message layer was told the overhead: this is a bug below us, never silently truncate
            throw new IllegalStateException("message layer emitted " + length + " bytes, more than the " + maxBody + " that fit");
        }
    }
}
