package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The queue of listener calls of one node and their dispatch: events raised on the I/O thread go into
 * an allocation-free buffer of parallel arrays, events raised by other threads into a concurrent
 * queue (and wake the I/O loop); the I/O thread calls {@link #dispatch()} after each datagram and each
 * turn, so the listener sees the calls of one peer one at a time, in order. A listener that throws is
 * counted and logged, never let out.
 */
final class NodeEvents {

    private static final System.Logger LOG = System.getLogger(NodeEvents.class.getName());

    private final NodeListener listener;
    private final LongAdder listenerErrors;
    private final ConcurrentLinkedQueue<Event> crossThread = new ConcurrentLinkedQueue<>();
    private final EventBuffer ioEvents = new EventBuffer();
    private @Nullable IoLoop loop;

    NodeEvents(NodeListener listener, LongAdder listenerErrors) {
        this.listener = listener;
        this.listenerErrors = listenerErrors;
    }

    /** Binds the queue to the loop that dispatches it (before the loop starts). */
    void attach(IoLoop loop) {
        this.loop = loop;
    }

    private boolean onLoop() {
        IoLoop l = loop;
        return l != null && l.inLoop();
    }

    private void fromOtherThread(Event e) {
        crossThread.add(e);
        IoLoop l = loop;
        if (l != null) {
            l.wakeup(); // delivered by the loop's next turn, not a tick later
        }
    }

    /** Queues a listener call: on the I/O thread in order, from other threads for the I/O thread. */
    void post(Event event) {
        if (onLoop()) {
            ioEvents.add(event.kind, event.peer, event.channel, event.messageId, event.payload, event.reason, event.detail,
                    event.from, event.to);
        } else {
            fromOtherThread(event);
        }
    }

    /** Queues a delivered message (the message layer delivers only on the I/O thread): no event object. */
    void postMessage(PeerDriver peer, int channel, int messageId, byte[] payload, int ageMillis) {
        if (onLoop()) {
            ioEvents.add(Event.Kind.MESSAGE, peer, channel, messageId, payload, null, "", null, null);
            ioEvents.ages[ioEvents.size - 1] = ageMillis;
        } else {
            fromOtherThread(Event.message(peer, channel, messageId, payload, ageMillis));
        }
    }

    /**
     * Queues an RTT sample (taken under the peer's lock while receiving, so on the I/O thread): the
     * sample travels in the message id slot as float bits, no event object.
     */
    void postRttSample(PeerDriver peer, float rttMillis) {
        int bits = Float.floatToRawIntBits(rttMillis);
        if (onLoop()) {
            ioEvents.add(Event.Kind.RTT_SAMPLE, peer, -1, bits, Event.NONE, null, "", null, null);
        } else {
            fromOtherThread(Event.rttSample(peer, bits));
        }
    }

    /** Makes every queued listener call: I/O thread (or the closing thread once the loop stopped). */
    void dispatch() {
        dispatchIoEvents();
        Event e;
        while ((e = crossThread.poll()) != null) {
            dispatch(e.kind, e.peer, e.channel, e.messageId, e.payload, e.ageMillis, e.reason, e.detail, e.from, e.to);
            dispatchIoEvents();
        }
    }

    /**
     * After the loop stopped: makes the calls other threads queued (a close from an application
     * thread delivers its disconnects here). The I/O thread's own buffer was emptied by its last turn.
     */
    void dispatchAfterStop() {
        Event e;
        while ((e = crossThread.poll()) != null) {
            dispatch(e.kind, e.peer, e.channel, e.messageId, e.payload, e.ageMillis, e.reason, e.detail, e.from, e.to);
        }
    }

    private void dispatchIoEvents() {
        EventBuffer b = ioEvents;
        if (b.size == 0) {
            return;
        }
        // index loop: a listener may post more events while we dispatch
        for (int i = 0; i < b.size; i++) {
            dispatch(b.kinds[i], b.peers[i], b.channels[i], b.ids[i], b.payloads[i], b.ages[i], b.reasons[i], b.details[i],
                    b.froms[i], b.tos[i]);
        }
        b.clear();
    }

    private void dispatch(Event.Kind kind, PeerDriver peer, int channel, int messageId, byte[] payload, int ageMillis,
                          @Nullable DisconnectReason reason, String detail, @Nullable InetSocketAddress from,
                          @Nullable InetSocketAddress to) {
        try {
            switch (kind) {
                case MIGRATED -> {
                    if (from != null && to != null) {
                        listener.onPeerMigrated(peer.handle(), from, to);
                    }
                }
                case MESSAGE -> {
                    // paused since the message layer delivered it: held again, in order, until resumed
                    if (!peer.holdBack(channel, messageId, payload)) {
                        listener.onMessage(peer.handle(), channel, messageId, payload, ageMillis);
                    }
                }
                case RTT_SAMPLE -> listener.onRttSample(peer.handle(), Float.intBitsToFloat(messageId));
                case CONNECTED -> {
                    listener.onConnected(peer.handle());
                    CompletableFuture<Peer> f = peer.connectFuture();
                    if (f != null) {
                        f.complete(peer.handle());
                    }
                }
                case DISCONNECTED -> {
                    CompletableFuture<Peer> f = peer.connectFuture();
                    DisconnectReason why = reason == null ? DisconnectReason.CLOSED_LOCALLY : reason;
                    if (f != null && !f.isDone()) {
                        f.completeExceptionally(new ConnectionFailedException(why,
                                "connection to " + peer.address() + " failed: " + why + " (" + detail + ")"));
                    }
                    if (f == null || f.isDone() && !f.isCompletedExceptionally()) {
                        listener.onDisconnected(peer.handle(), why);
                    }
                }
            }
        } catch (RuntimeException | Error ex) {
            if (ex instanceof VirtualMachineError vme) {
                throw vme;
            }
            listenerErrors.increment();
            LOG.log(Level.WARNING, "listener threw on " + kind + " of " + peer.address() + "; ignored", ex);
        }
    }

    /** Listener calls queued by the I/O thread, in parallel arrays: no object per message. I/O thread only. */
    private static final class EventBuffer {
        Event.Kind[] kinds = new Event.Kind[64];
        PeerDriver[] peers = new PeerDriver[64];
        int[] channels = new int[64];
        int[] ids = new int[64];
        /** MESSAGE: the message's age in ms when it has a time-to-live, else -1. */
        int[] ages = new int[64];
        byte[][] payloads = new byte[64][];
        @Nullable DisconnectReason[] reasons = new DisconnectReason[64];
        String[] details = new String[64];
        @Nullable InetSocketAddress[] froms = new InetSocketAddress[64];
        @Nullable InetSocketAddress[] tos = new InetSocketAddress[64];
        int size;

        void add(Event.Kind kind, PeerDriver peer, int channel, int id, byte[] payload, @Nullable DisconnectReason reason, String detail,
                 @Nullable InetSocketAddress from, @Nullable InetSocketAddress to) {
            if (size == kinds.length) {
                int n = size * 2;
                kinds = Arrays.copyOf(kinds, n);
                peers = Arrays.copyOf(peers, n);
                channels = Arrays.copyOf(channels, n);
                ids = Arrays.copyOf(ids, n);
                ages = Arrays.copyOf(ages, n);
                payloads = Arrays.copyOf(payloads, n);
                reasons = Arrays.copyOf(reasons, n);
                details = Arrays.copyOf(details, n);
                froms = Arrays.copyOf(froms, n);
                tos = Arrays.copyOf(tos, n);
            }
            kinds[size] = kind;
            peers[size] = peer;
            channels[size] = channel;
            ids[size] = id;
            ages[size] = -1;
            payloads[size] = payload;
            reasons[size] = reason;
            details[size] = detail;
            froms[size] = from;
            tos[size] = to;
            size++;
        }

        /** Drops the references (payloads belong to the listener now). */
        void clear() {
            Arrays.fill(peers, 0, size, null);
            Arrays.fill(payloads, 0, size, null);
            Arrays.fill(reasons, 0, size, null);
            Arrays.fill(details, 0, size, null);
            Arrays.fill(froms, 0, size, null);
            Arrays.fill(tos, 0, size, null);
            size = 0;
        }
    }

    /** A listener call waiting to be made. */
    static final class Event {
        enum Kind { MESSAGE, CONNECTED, DISCONNECTED, RTT_SAMPLE, MIGRATED }

        final Kind kind;
        final PeerDriver peer;
        final int channel;
        final int messageId;
        final byte[] payload;
        int ageMillis = -1;
        final @Nullable DisconnectReason reason;
        final String detail;
        final @Nullable InetSocketAddress from;
        final @Nullable InetSocketAddress to;

        private Event(Kind kind, PeerDriver peer, int channel, int messageId, byte[] payload,
                      @Nullable DisconnectReason reason, String detail) {
            this(kind, peer, channel, messageId, payload, reason, detail, null, null);
        }

        private Event(Kind kind, PeerDriver peer, int channel, int messageId, byte[] payload,
                      @Nullable DisconnectReason reason, String detail, @Nullable InetSocketAddress from,
                      @Nullable InetSocketAddress to) {
            this.from = from;
            this.to = to;
            this.kind = kind;
            this.peer = peer;
            this.channel = channel;
            this.messageId = messageId;
            this.payload = payload;
            this.reason = reason;
            this.detail = detail;
        }

        static final byte[] NONE = new byte[0];

        static Event message(PeerDriver peer, int channel, int messageId, byte[] payload, int ageMillis) {
            Event e = new Event(Kind.MESSAGE, peer, channel, messageId, payload, null, "");
            e.ageMillis = ageMillis;
            return e;
        }

        static Event connected(PeerDriver peer) {
            return new Event(Kind.CONNECTED, peer, -1, -1, NONE, null, "");
        }

        static Event rttSample(PeerDriver peer, int rttBits) {
            return new Event(Kind.RTT_SAMPLE, peer, -1, rttBits, NONE, null, "");
        }

        static Event migrated(PeerDriver peer, InetSocketAddress from, InetSocketAddress to) {
            return new Event(Kind.MIGRATED, peer, -1, -1, NONE, null, "", from, to);
        }

        static Event disconnected(PeerDriver peer, DisconnectReason reason, String detail) {
            return new Event(Kind.DISCONNECTED, peer, -1, -1, NONE, reason, detail);
        }
    }
}
