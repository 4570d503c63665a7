package io.reliableudp.transport;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The I/O loop of one node: one thread that waits on a {@link DatagramPort}, drains every readable
 * datagram into its receive buffer and hands each to the {@link Handler}, keeps the optional receive
 * busy-poll window, and runs a turn (conditioners, the tick when due, the handler's due timers,
 * listener events, queued sends) after each datagram, each wake-up and each timeout, and before each
 * wait has the port send what its thread queued ({@link Handler#flush()}: a batching port's sends leave
 * together). It waits until
 * the earliest of the next tick, a requested deadline and the handler's {@link Handler#nextDeadline()}
 * (the port's wait until the tick, a {@link WakeTimer} for an earlier deadline). Other threads wake it with {@link #wakeup()} (at most one port wake-up per batch: an atomic
 * "wake pending" flag that the loop clears before each turn, and none while the loop is not waiting) or ask for a turn at a time with
 * {@link #wakeAt(long)}, or without waking it now with {@link #wakeAtQuietly(long)}; none closes or interrupts the port.
 */
final class IoLoop {

    private static final System.Logger LOG = System.getLogger(IoLoop.class.getName());

    /** Larger than any UDP payload (65,507 over IPv4, 65,527 over IPv6): nothing is ever truncated. */
    static final int RECEIVE_BUFFER_BYTES = 65_536;
    /**
     * Turns in a row that a wake-up from the loop's own thread may ask for (a listener that sends in
     * each); past them the next wait only looks at the port, so the loop still reads between them.
     */
    static final int SELF_WAKE_TURNS = 2;
    /**
     * Shortest wait the {@link WakeTimer} ends (1 ms): a nearer deadline (pacing under load, an ack
     * delay about to end) is the port's own timeout, which the selector rounds up to 1 ms, as before.
     */
    static final long WAKE_TIMER_MIN_NANOS = 1_000_000;
    /** Longest wait while a link conditioner holds delayed datagrams to release. */
    static final long CONDITIONER_POLL_NANOS = 1_000_000;
    /** Longest gap between two quiet deadlines for the second to predict the third: 250 ms. */
    static final long QUIET_STREAM_NANOS = 250_000_000;

    /** What the loop drives. Every method runs on the loop's thread. */
    interface Handler {
        /** One datagram, in {@code data[0..length)} (valid only during the call). */
        void onDatagram(InetSocketAddress from, byte[] data, int length);

        /**
         * After every datagram and every wake-up or timeout: release conditioned datagrams, run the send
         * tick when {@code tick} says so, hand queued events to the listener.
         */
        void onTurn(boolean tick);

        /** Whether a link conditioner may hold datagrams to release (the loop then waits at most 1 ms). */
        boolean conditioned();

        /**
         * The earliest time (System.nanoTime) the handler wants a turn for its own timers (the peers'
         * message-layer deadlines), Long.MAX_VALUE for none. Asked before every wait: keep it O(1).
         */
        default long nextDeadline() {
            return Long.MAX_VALUE;
        }

        /**
         * The end of a pass, before the loop waits: the port sends what the loop's thread queued
         * ({@link DatagramPort#flush()}); count what it lost.
         */
        default void flush() {
        }

        /** A bug: handling a datagram threw (the datagram is dropped; count and log it). */
        void onDatagramFailed(RuntimeException e);

        /** The port failed for good (or the loop died): close the node. */
        void onFatal(Throwable cause);
    }

    private final DatagramPort port;
    private final Handler handler;
    private final long tickNanos;
    private final long busyPollNanos;
    private final Thread thread;
    private final byte[] receiveBuffer = new byte[RECEIVE_BUFFER_BYTES];
    private final ByteBuffer receiveView = ByteBuffer.wrap(receiveBuffer);
    /** Set by {@link #wakeup()}, cleared by the loop before each turn: collapses a burst of wake-ups into one. */
    private final AtomicBoolean wakePending = new AtomicBoolean();
    /** The earliest turn asked for with {@link #wakeAt} (System.nanoTime), Long.MAX_VALUE when none. */
    private final AtomicLong requestedDeadline = new AtomicLong(Long.MAX_VALUE);
    /** When the loop's current wait ends (System.nanoTime); read by {@link #wakeAt} to see whether to wake it. */
    private volatile long waitingUntil = Long.MAX_VALUE;
    /**
     * When the {@link WakeTimer} ends the current wait (System.nanoTime): {@link #waitingUntil} when the
     * timer serves it, Long.MAX_VALUE while the port's own timeout does (the tick, a deadline under 1 ms)
     * or the loop is not waiting, so that a check that fires then re-arms nothing.
     */
    private volatile long timedUntil = Long.MAX_VALUE;
    /**
     * The earliest deadline of a peer that an application thread wrote quietly ({@link #wakeAtQuietly}),
     * System.nanoTime, Long.MAX_VALUE for none: cleared when the loop takes the marked peers over
     * ({@link #quietTakenOver}) or the deadline passes.
     */
    private final AtomicLong quietDeadline = new AtomicLong(Long.MAX_VALUE);
    /** The last quiet deadline asked for (System.nanoTime, Long.MAX_VALUE before the first); a hint. */
    private volatile long lastQuiet = Long.MAX_VALUE;
    /** The gap between the last two quiet deadlines when it was a stream's (under {@link #QUIET_STREAM_NANOS}), else 0; a hint. */
    private volatile long quietInterval;
    /** How long after its write the last quiet deadline lay (its resend interval); a hint. */
    private volatile long quietLead;
    private volatile boolean running = true;
    private long nextTick;
    /** Wakes the loop at a deadline before the next tick, so that the port's wait need not arm a short kernel timer. */
    private final WakeTimer wakeTimer = new WakeTimer(this::timerDue, this::standby, this::wakeup, this);
    /** Set by {@link #wakeup()} on the loop's own thread: another turn is wanted before the next wait. Loop thread only. */
    private boolean selfWake;

    IoLoop(DatagramPort port, Handler handler, double tickSeconds, long busyPollNanos, ReceiveThreadMode mode, String name) {
        this.port = port;
        this.handler = handler;
        this.tickNanos = Math.max(1, (long) (tickSeconds * 1e9));
        this.busyPollNanos = busyPollNanos;
        Runnable loop = this::run;
        this.thread = mode == ReceiveThreadMode.VIRTUAL
                ? Thread.ofVirtual().name(name).unstarted(loop)
                : Thread.ofPlatform().name(name).daemon(true).unstarted(loop);
    }

    void start() {
        thread.start();
    }

    /** Whether the caller is the loop's thread. */
    boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /**
     * Makes the loop run a turn promptly. Any thread; a burst of calls costs one port wake-up until
     * the loop has run its next turn, and none while the loop is not waiting. From the loop's own
     * thread (a listener that sends) it costs no port call: the loop runs one more turn before it
     * waits again (up to {@link #SELF_WAKE_TURNS} in a row, then its next wait only looks at the port).
     */
    void wakeup() {
        if (inLoop()) {
            selfWake = true; // served by one more turn before the loop waits: no port call at all
            return;
        }
        // Only a loop that waits (or is about to) needs the port's wake-up (an eventfd write here, an
        // epoll return and an eventfd read there, and a context switch): a running loop sees the flag
        // before its next wait and only looks at the port then. The loop publishes waitingUntil before
        // it reads the flag, this thread sets the flag before it reads waitingUntil (both volatile), so
        // at least one of the two sees the other: no wake-up is lost.
        if (!wakePending.get() && !wakePending.getAndSet(true) && waitingUntil != Long.MAX_VALUE) {
            port.wakeup();
        }
    }

    /**
     * Whether the loop is in (or entering) its wait with no wake-up pending: a message another thread
     * writes itself now would have left alone anyway, after this thread's wake-up. Any thread; a hint
     * (it may change at once), never needed for correctness.
     */
    boolean idle() {
        return waitingUntil != Long.MAX_VALUE && !wakePending.get();
    }

    /**
     * When the loop's current wait ends by itself (System.nanoTime), Long.MAX_VALUE while it is not
     * waiting (in a turn, or about to compute its next wait). Any thread; a hint.
     */
    long waitingUntil() {
        return waitingUntil;
    }

    /** Makes the loop run a turn at {@code nanoTime} (System.nanoTime) at the latest. Any thread. */
    void wakeAt(long nanoTime) {
        if (!WakeTimer.lowerTo(requestedDeadline, nanoTime)) {
            return; // an earlier or equal deadline is already asked for
        }
        if (waitingUntil - nanoTime > 0) {
            wakeup(); // the loop sleeps past it: let it recompute its wait
        }
    }

    /**
     * Makes the loop run a turn at {@code nanoTime} at the latest without waking it now: an application
     * thread wrote a peer's message itself and left the peer marked for the loop's next turn
     * ({@link DirtyPeers#markQuietly}, before this call), and {@code nanoTime} is that peer's next
     * deadline (the message's resend). The turn that takes the marked peers over drops it
     * ({@link #quietTakenOver}): then the peers' own timers cover it. Any thread; the {@link WakeTimer}
     * ends the loop's wait then, so the wait itself need not change.
     */
    void wakeAtQuietly(long nanoTime) {
        long previous = lastQuiet;
        lastQuiet = nanoTime;
        quietLead = nanoTime - System.nanoTime();
        if (previous != Long.MAX_VALUE) {
            long gap = nanoTime - previous;
            quietInterval = gap > 0 && gap < QUIET_STREAM_NANOS ? gap : 0;
        }
        if (WakeTimer.lowerTo(quietDeadline, nanoTime)) { // else an earlier or equal one is held, its timer armed
            wakeTimer.ensure(nanoTime);
        }
    }

    /**
     * Timer thread: when a check that found nothing due runs anyway: before the deadline the stream's
     * next quiet write will set, by an eighth of the stream's interval (the jitter of its writes) but
     * by at most half the time from a write to its deadline, so that the check is still armed when the
     * write comes: the write finds it armed and wakes no thread (a write that does arm the timer wakes
     * its thread just when the receiver has the datagram to handle). A check due before the write would
     * find nothing and leave the timer unarmed for it: with prompt acks the deadline (the resend
     * interval, about 1.3 ms on loopback) lies closer to its write than an eighth of a 60 Hz interval
     * (2 ms). Long.MAX_VALUE when the quiet writes are no stream.
     */
    long standby() {
        long interval = quietInterval;
        if (interval <= 0) {
            return Long.MAX_VALUE;
        }
        long lead = Math.min(interval / 8, Math.max(0, quietLead) / 2);
        return lastQuiet + interval - lead;
    }

    /**
     * Loop thread, in a turn, before it takes the marked peers (and so their timers) over: the quiet
     * deadline is theirs and is dropped. A peer marked after this is taken by the same drain, or by the
     * next turn, whose quiet deadline its writer sets after the mark.
     */
    void quietTakenOver() {
        if (quietDeadline.get() != Long.MAX_VALUE) {
            quietDeadline.set(Long.MAX_VALUE);
        }
    }

    /**
     * The timer's view of the loop (timer thread): when a check should wake it, Long.MAX_VALUE when it
     * need not (the port's own timeout ends the wait, or the loop is in a turn, whose next wait arms the
     * timer again if it needs it).
     */
    private long timerDue() {
        return WakeTimer.earliest(timedUntil, quietDeadline.get());
    }

    /** Stops the loop (it ends after its current turn); the caller closes the port. */
    void stop() {
        running = false;
        wakeTimer.close();
        port.wakeup();
    }

    /** Waits for the loop's thread to end (not from the loop itself). */
    void join(long millis) throws InterruptedException {
        if (!inLoop()) {
            thread.join(millis);
        }
    }

    private void run() {
        try {
            loop();
        } catch (Throwable t) {
            // an Error (or a bug) killed the loop: nothing would be received or ticked any more
            LOG.log(Level.ERROR, "I/O thread of " + port.localAddress() + " died; closing the node", t);
            if (running) {
                handler.onFatal(t);
            }
            if (t instanceof VirtualMachineError vme) {
                throw vme;
            }
        } finally {
            wakeTimer.close(); // however the loop ended: the timer thread forgets it
            try {
                handler.flush(); // what the last turn queued (a goodbye) still goes out
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, () -> "last flush of " + port.localAddress() + " failed: " + e);
            }
        }
    }

    private void loop() {
        nextTick = System.nanoTime() + tickNanos;
        boolean spinning = false; // inside a busy-poll window
        long spinUntil = 0;
        while (running) {
            int received = 0;
            try {
                if (spinning) {
                    if (spinOnce(spinUntil)) {
                        received = 1;
                        spinUntil = System.nanoTime() + busyPollNanos; // traffic goes on: keep the window open
                    } else {
                        spinning = false; // the window closed empty: wait (no CPU) until the next datagram
                    }
                } else {
                    await();
                    received = drain();
                    if (received > 0 && busyPollNanos > 0) {
                        spinning = true;
                        spinUntil = System.nanoTime() + busyPollNanos;
                    }
                }
            } catch (ClosedChannelException e) {
                if (running) {
                    // the port broke under us: end every connection properly rather than go deaf
                    LOG.log(Level.ERROR, "receive loop of " + port.localAddress() + " stopped: port closed; closing the node", e);
                    running = false;
                    handler.onFatal(e);
                }
                return;
            } catch (IOException e) {
                if (running && port.isOpen()) {
                    LOG.log(Level.WARNING, "receive failed on " + port.localAddress() + ": " + e);
                }
            }
            if (received == 0 && running) {
                turn(); // woken, timed out, or a window closed: every datagram had its own turn already
            }
        }
    }

    /**
     * The work after a datagram or a wake-up: one turn, and another while the turn woke the loop
     * itself (a listener's send: a turn served it already when the handler writes after the listener
     * calls, the next one finds nothing, without the selectNow and empty receive a port look costs).
     */
    private void turn() {
        int turns = 0;
        do {
            selfWake = false;
            oneTurn();
        } while (selfWake && ++turns < SELF_WAKE_TURNS && running);
        if (selfWake) {
            wakePending.set(true); // still asked for: the next wait only looks at the port
        }
    }

    /** One turn: clears the wake-up flag, runs the tick when due, then the handler's turn. */
    private void oneTurn() {
        wakePending.set(false); // wake-ups from here on make the next wait return at once
        long now = System.nanoTime();
        boolean tick = now - nextTick >= 0;
        if (tick) {
            nextTick += tickNanos;
            if (nextTick - now <= 0) {
                nextTick = now + tickNanos; // fell behind: skip the missed ticks rather than run them back to back
            }
        }
        clearIfDue(requestedDeadline, now);
        clearIfDue(quietDeadline, now); // its peer is marked: this turn takes it over
        handler.onTurn(tick);
    }

    /** Drops the deadline in {@code deadline} once {@code now} has reached it (a later one set meanwhile stays). */
    private static void clearIfDue(AtomicLong deadline, long now) {
        long d = deadline.get();
        if (d != Long.MAX_VALUE && now - d >= 0) {
            deadline.compareAndSet(d, Long.MAX_VALUE);
        }
    }

    /**
     * Waits until a datagram, a wake-up, the next tick, the earliest requested deadline or the handler's
     * own. The port's wait lasts until the tick; an earlier deadline is the {@link WakeTimer}'s, which
     * wakes the loop then (a short timeout on the port would arm and cancel a kernel timer in every wait).
     */
    private void await() throws IOException {
        handler.flush(); // the pass's sends leave together before the loop sleeps
        long until = WakeTimer.earliest(WakeTimer.earliest(nextTick, requestedDeadline.get()),
                WakeTimer.earliest(handler.nextDeadline(), quietDeadline.get()));
        long now = System.nanoTime();
        long portUntil = nextTick;
        if (handler.conditioned()) {
            if (until - now > CONDITIONER_POLL_NANOS) {
                until = now + CONDITIONER_POLL_NANOS; // a conditioner delays datagrams: release them at least every millisecond
            }
            portUntil = until; // a test's link: the port's own timeout, as before
        } else if (until - now < WAKE_TIMER_MIN_NANOS) {
            // due already (only a look at the port), or so soon that the port's own wait serves it: a
            // pacing deadline microseconds away under load, where a timer-thread hop per wait cost
            // 16 % of the 1,024-byte throughput
            portUntil = until;
        }
        waitingUntil = until;
        try {
            if (until != portUntil) {
                timedUntil = until;
                wakeTimer.ensure(until); // after timedUntil is published: a check that fires now sees it
            }
            // a wake-up already asked for: only consume the port's pending wake-up (a selectNow), so that
            // it does not cut the next wait short for nothing
            port.awaitReadable(wakePending.get() ? 0 : portUntil - now);
        } finally {
            timedUntil = Long.MAX_VALUE;
            waitingUntil = Long.MAX_VALUE;
        }
    }

    /** Reads every waiting datagram; each is handled and followed by a turn. */
    private int drain() throws IOException {
        int n = 0;
        while (running) {
            receiveView.clear();
            InetSocketAddress from = port.receive(receiveView);
            if (from == null) {
                break;
            }
            n++;
            deliver(from);
        }
        return n;
    }

    /**
     * One busy-poll step: reads without blocking until a datagram comes, {@code until} passes or
     * another thread asks for a turn. Returns whether a datagram came (it was handled).
     */
    private boolean spinOnce(long until) throws IOException {
        do {
            receiveView.clear();
            InetSocketAddress from = port.receive(receiveView);
            if (from != null) {
                deliver(from);
                return true;
            }
            if (wakePending.get()) {
                return false;
            }
            // not onSpinWait: a peer thread woken on this core (or a virtual thread waiting for this carrier) must not wait out the window
            Thread.yield();
        } while (System.nanoTime() - until < 0 && running);
        return false;
    }

    private void deliver(InetSocketAddress from) {
        try {
            handler.onDatagram(from, receiveBuffer, receiveView.position());
        } catch (RuntimeException e) {
            handler.onDatagramFailed(e);
        }
        turn();
    }

    @Override
    public String toString() {
        return "IoLoop[" + thread.getName() + "]";
    }
}
