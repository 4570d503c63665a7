package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * The {@code IMMEDIATE} send mode's {@link LaneSchedule} for one lane: a send only queues and marks its
 * peer ({@link DirtyPeers}, any thread); the lane's thread writes every marked peer in its next turn,
 * after the listener calls, and wakes for each peer's next message-layer deadline
 * ({@link PeerTimers}: resends, the ack delay, pacing). The tick (half the keepalive interval) serves
 * only the connections' own timers, and only of the peers due ({@link #tickDue}). State: the marks are
 * lock-free (any thread); the two heaps and the visit count are the lane's thread's alone; the
 * adopted queue is concurrent.
 *
 * <p>One exception to "the lane's thread writes": a send that finds the lane's loop idle writes its
 * own message on the sending thread ({@link #queued}), under the peer's lock, which is what makes
 * every write to a connection safe whichever thread does it.
 */
final class ImmediateLaneSchedule implements LaneSchedule {

    /** The factory the node picks for {@code IMMEDIATE}. */
    static final LaneSchedule.Factory FACTORY = new LaneSchedule.Factory() {
        /**
         * Only keepalives, timeouts, handshake retries and the message layer's housekeeping remain on the
         * tick, so half the shorter of the keepalive interval and the handshake retry interval (a
         * keepalive then goes 1 to 1.5 intervals after the last packet; sends, resends and acks do not
         * wait for it).
         */
        @Override
        public double tickSeconds(NodeConfig config, double handshakeResendSeconds) {
            return Math.min(config.keepAliveInterval().toNanos() / 1e9, handshakeResendSeconds) / 2;
        }

        @Override
        public LaneSchedule create(PeerDriver.Lane lane, IoLoop loop, NodeEvents events, PeerTable peers, NodeClock clock,
                                   ConditionerSetting conditioning) {
            return new ImmediateLaneSchedule(loop, events, peers, clock, conditioning);
        }
    };

    private final IoLoop loop;
    private final NodeEvents events;
    private final PeerTable peers;
    private final NodeClock clock;
    private final ConditionerSetting conditioning;
    private final DirtyPeers dirty = new DirtyPeers();
    /** The lane's peers by their message layer's next deadline (System.nanoTime). Lane's thread only. */
    private final PeerTimers<PeerDriver> timers = new PeerTimers<>();
    /**
     * The lane's peers by when their connection timers are next due (keepalive, timeout, handshake,
     * the session's housekeeping), nanoseconds of the node's clock: a tick visits only the peers due by
     * then, not every peer of the node. Lane's thread only.
     */
    private final PeerTimers<PeerDriver.Housekeeping> housekeeping = new PeerTimers<>();
    /** Peers made since the last tick (by any thread), for the housekeeping heap. */
    private final ConcurrentLinkedQueue<PeerDriver> adopted = new ConcurrentLinkedQueue<>();
    /** Heap entries the ticks took out (due or gone peers); the lane's thread only writes it. */
    private volatile long housekeepingVisits;
    private final Consumer<PeerDriver> writeQueued = this::writeQueued;

    private ImmediateLaneSchedule(IoLoop loop, NodeEvents events, PeerTable peers, NodeClock clock,
                              ConditionerSetting conditioning) {
        this.loop = loop;
        this.events = events;
        this.peers = peers;
        this.clock = clock;
        this.conditioning = conditioning;
    }

    // ------------------------------------------------------------------ application threads

    /**
     * Under the lock, on an application thread: when nothing of this peer waits for the lane's thread
     * and the loop is idle, writes what is queued (the message just offered) on this thread, as TCP's
     * {@code write} does, instead of waiting for the loop's wake-up: the wake-up is then off the
     * message's path. A burst writes only its first message here: the caller's mark makes the rest
     * queue for the loop, which packs them as before.
     *
     * <p>Returns whether the loop must still be asked ({@link #ask}); false when it need not be woken
     * at all. The message layer still has timers (the message's resend, cancelled by its ack); the loop
     * takes them over at its next turn, for which the peer is marked here without a wake-up
     * ({@link DirtyPeers#markQuietly}), when that turn comes in time by itself: the loop's wait ends by
     * the connection's next deadline; or the connection is {@link Connection#settled settled}
     * (everything written, nothing owed), so that the ack, whose arrival wakes the loop, will very likely
     * come before the resend is due, and the loop's wake timer is armed for that deadline
     * ({@link IoLoop#wakeAtQuietly}; in a stream the timer is armed by then already, and the write wakes
     * no thread at all): a lost message is resent at its timer, as if the loop had been woken. Every
     * other case wakes the loop as before. Why not wake it anyway: the woken I/O thread runs just when
     * the receiver's thread has the message to handle, and on a 2-vCPU machine that doubled or more the
     * 0 % loss p99 of the {@code loss} benchmark.
     */
    @Override
    public boolean queued(PeerDriver peer) {
        return !writtenByCaller(peer);
    }

    private boolean writtenByCaller(PeerDriver peer) {
        // not on the lane's thread (a listener's reply leaves with the turn's write: the loop is not idle)
        // and not while a link conditioner is set
        if (peer.dirty.get() || conditioning.isSet() || !loop.idle()) {
            return false;
        }
        Connection c = peer.connection();
        c.flush(clock.now()); // the clock is read only here: a message that just queues needs no time
        double next = c.nextDeadline();
        if (wakesBy(next)) {
            dirty.markQuietly(peer);
            return true;
        }
        if (c.settled()) {
            dirty.markQuietly(peer); // first: the turn that drops the quiet deadline takes this peer
            wakeAtQuietly(next);
            return true;
        }
        return false;
    }

    /** Marks {@code peer} for the lane's next turn; a burst costs one mark and one wake-up. */
    @Override
    public void ask(PeerDriver peer) {
        if (dirty.mark(peer)) {
            loop.wakeup();
        }
    }

    /**
     * The lane's thread writes it anyway: this only makes sure it is asked to, unless the peer is
     * marked already (a send asked it, or wrote everything itself and left the timers to the loop's
     * next turn).
     */
    @Override
    public void flush(PeerDriver peer) {
        if (!peer.dirty.get()) {
            ask(peer);
        }
    }

    /** Its turn calls the peer's write, which applies the resume. */
    @Override
    public void resumeLeft(PeerDriver peer) {
        ask(peer);
    }

    /** The peer joins the housekeeping heap at the lane's next tick, due at once. */
    @Override
    public void adopt(PeerDriver peer) {
        adopted.add(peer);
    }

    /**
     * Whether the loop, waiting now, will run a turn by itself by {@code deadline} (seconds on the
     * node's clock; +inf: no deadline): its wait ends by then. False while it is not waiting (it may be
     * about to wait longer). Any thread; a hint that is only ever acted on while the loop waits.
     */
    private boolean wakesBy(double deadline) {
        long until = loop.waitingUntil();
        if (until == Long.MAX_VALUE) {
            return false;
        }
        long nanos = clock.deadlineNanos(deadline);
        return nanos == Long.MAX_VALUE || until - nanos <= 0;
    }

    /** After a quiet mark: a turn at the peer's next deadline, without waking the loop now (its wake timer). */
    private void wakeAtQuietly(double deadline) {
        long nanos = clock.deadlineNanos(deadline);
        if (nanos != Long.MAX_VALUE) {
            loop.wakeAtQuietly(nanos);
        }
    }

    // ------------------------------------------------------------------ the lane's thread

    /**
     * The message layer of {@code peer} wants its next update at {@code deadline}. Off the lane's
     * thread (which the transport avoids: another lane hands such datagrams over) the peer is marked
     * instead, and its write on the lane's thread schedules it.
     */
    @Override
    public void deadline(PeerDriver peer, double next) {
        if (!loop.inLoop()) {
            ask(peer);
            return;
        }
        timers.schedule(peer, clock.deadlineNanos(next));
    }

    /**
     * After the listener calls, so that a reply a listener just sent leaves in this turn; the quiet
     * writers' deadline goes first (each set it after its mark): the drain takes their timers. Last: an
     * acknowledgement a datagram of this turn owes at once goes after the listener calls (the delivery
     * does not wait behind it) and only when no reply carried it.
     */
    @Override
    public void turn() {
        if (!dirty.isEmpty()) {
            loop.quietTakenOver();
            dirty.drain(writeQueued);
        }
        runDeadlines();
        events.dispatch(); // what the deadlines raised (a delivery failure, a disconnect)
    }

    private void writeQueued(PeerDriver peer) {
        try {
            peer.writeQueued(clock.now());
        } catch (RuntimeException e) {
            failed(peer, "sending", e);
        }
    }

    /** Updates every peer of this lane whose message-layer deadline has come (each reschedules itself). */
    private void runDeadlines() {
        long nowNanos = System.nanoTime();
        if (timers.earliest() - nowNanos > 0) {
            return;
        }
        double now = clock.now();
        PeerDriver p;
        // a peer whose new deadline is already due (a round cut by its packet limit) goes again in the next turn
        int budget = timers.size();
        while (budget-- > 0 && (p = timers.pollDue(nowNanos)) != null) {
            try {
                p.onDeadline(now);
            } catch (RuntimeException e) {
                failed(p, "update", e);
            }
        }
    }

    /**
     * The tick of this lane's peers that are due (keepalive, timeout, handshake, the session's
     * housekeeping), taken from the heap of housekeeping times, so a tick costs O(due peers · log n),
     * not a pass over every peer of the node (5,000 idle peers: about 5,000 to 10,000 visits a second at
     * a 1 s keepalive, instead of 5,000 per tick per lane); an idle peer costs a comparison per tick and
     * an update per keepalive interval. A peer that left the table leaves the heap when it comes up; a
     * peer still in the handshake (due at every tick) goes back for the next tick, not this one.
     */
    @Override
    public void tick(double now) {
        tickDue(now);
    }

    private void tickDue(double now) {
        PeerDriver fresh;
        while ((fresh = adopted.poll()) != null) {
            housekeeping.schedule(fresh.housekeeping, 0);
        }
        PeerTimers<PeerDriver.Housekeeping> heap = housekeeping;
        long nowKey = housekeepingKey(now);
        int budget = heap.size();
        PeerDriver.Housekeeping entry;
        while (budget-- > 0 && (entry = heap.pollDue(nowKey)) != null) {
            housekeepingVisits++; // only the lane's thread writes it
            PeerDriver peer = entry.peer;
            if (!peers.contains(peer)) {
                continue; // removed (or replaced): out of the heap for good
            }
            if (peer.housekeepingDue(now)) {
                try {
                    peer.tick(now);
                } catch (RuntimeException e) {
                    failed(peer, "update", e);
                }
            }
            long next = housekeepingKey(peer.housekeepingAt());
            if (next != Long.MAX_VALUE) {
                heap.schedule(entry, Math.max(next, nowKey + 1));
            }
        }
    }

    /**
     * A time of the node's clock (seconds) as a key of the housekeeping heap: nanoseconds, rounded down
     * (so a peer due by {@code now} is taken at the tick of {@code now}); 0 for any time before the
     * start, Long.MAX_VALUE (no key) for never.
     */
    static long housekeepingKey(double seconds) {
        if (seconds == Double.POSITIVE_INFINITY || Double.isNaN(seconds)) {
            return Long.MAX_VALUE;
        }
        if (seconds <= 0) {
            return 0;
        }
        double nanos = Math.floor(seconds * 1e9);
        return nanos >= 9.0e18 ? Long.MAX_VALUE : (long) nanos;
    }

    /** A bug below us threw for {@code peer}: it is disconnected (or forgotten), and leaves the deadline heap. */
    private void failed(PeerDriver peer, String what, RuntimeException e) {
        peer.failed(what, e);
        if (loop.inLoop()) {
            timers.schedule(peer, Long.MAX_VALUE);
        }
    }

    @Override
    public long nextDeadline() {
        return timers.earliest();
    }

    @Override
    public long housekeepingVisits() {
        return housekeepingVisits;
    }
}
