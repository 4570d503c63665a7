package io.reliableudp.transport;

import java.lang.System.Logger.Level;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Wakes one {@link IoLoop} at a deadline earlier than its next tick and at least 1 ms away (a resend),
 * or at the deadline of a message an application thread wrote without waking the loop
 * ({@link IoLoop#wakeAtQuietly}), from a timer thread, so that the loop's own wait on its port can
 * last until the tick. Why: a wait on
 * the port with a timeout arms a kernel timer in every call (epoll's, through {@code Selector.select}),
 * and a wait that a datagram ends first cancels it again; when that timer is the earliest of its CPU
 * both steps reprogram the CPU's timer device, on this project's VM a VM exit each. A ping-pong pays
 * that on almost every wait (each message's resend deadline, a few milliseconds away, is earlier than
 * the kernel's next tick for about a quarter of each tick period): about 15 us per round trip in those
 * stretches, 14 % of all round trips on one vCPU. Netty's native epoll loop avoids the same cost by keeping its timerfd armed while the
 * deadline does not change; the JDK's selector has no timerfd, so this class is the JDK's way: one
 * shared timer thread, armed again only when a loop's deadline moves earlier than what is armed.
 *
 * <p>Lazy by design: a deadline that moves later (an ack cancelled the resend, the next message set a
 * new one) leaves the armed check where it is; when it fires it finds the loop's wait ending later
 * and arms itself for that instead, without waking the loop. So a stream of messages, each acked
 * before its resend, costs one timer-thread wake-up per resend interval, and the loop is woken only
 * when a deadline has really come. The timer thread's timed park is also finer than the selector's
 * milliseconds: a deadline is met within the kernel's timer slack (50 us) instead of up to 1 ms late.
 *
 * <p>One wake-up serves every loop: each time the timer thread wakes it looks at every armed timer,
 * not only the one whose time came, and moves a check whose loop now waits longer to that later end
 * (its deadline moved later since it was armed). Two loops of a ping-pong in one JVM (both ends of
 * a benchmark, or a client and a server of a test) so cost one timer wake-up per resend interval
 * between them instead of one each: their stale checks would otherwise fire in turn, and on one
 * vCPU each firing delays the round trip it falls into by the timer thread's run. The JDK's
 * {@code ScheduledThreadPoolExecutor} cannot do this: a task removed from its queue
 * still wakes its thread at the removed task's time.
 *
 * <p>Thread safety: {@link #ensure} runs on the loop's thread (before each wait) and on an
 * application thread that wrote quietly; {@link #armedAt} only ever moves earlier by a
 * compare-and-set, or back to "none" by the timer thread's check or visit, which may then arm it again
 * (later, for the loop's new end). No wake-up is lost: the loop (or the writer) publishes its deadline
 * before it reads {@code armedAt}, the timer thread clears {@code armedAt} before it reads the
 * deadlines ({@code due}; all volatile), so either the one arming sees no check armed and arms one, or
 * the timer thread sees the deadline. The timer thread publishes when its park ends before it looks at
 * the armed times a last time, and one arming reads that after it armed, so either the thread sees
 * the new time or the one arming unparks it.
 */
final class WakeTimer {

    private static final System.Logger LOG = System.getLogger(WakeTimer.class.getName());
    private static final long NONE = Long.MAX_VALUE;

    /** One daemon platform thread for every loop of the JVM, started with the first deadline, and the timers it serves. */
    private static final class Shared {
        static final Shared INSTANCE = new Shared();

        /** Every timer that was ever armed and not closed (a loop's, from its first deadline to its stop). */
        final CopyOnWriteArrayList<WakeTimer> timers = new CopyOnWriteArrayList<>();
        /** When the thread's park ends (System.nanoTime), NONE while it parks without a time or runs. */
        volatile long parkedUntil = NONE;
        final Thread thread = Thread.ofPlatform().name("reliable-udp-wake-timer").daemon(true).unstarted(this::run);

        private Shared() {
            thread.start();
        }

        /** A timer was armed for {@code until} (any thread): the timer thread wakes for it if it parks longer. */
        void armed(long until) {
            long parked = parkedUntil;
            if (parked == NONE || until - parked < 0) {
                LockSupport.unpark(thread);
            }
        }

        private void run() {
            while (true) {
                long next = NONE;
                long now = System.nanoTime();
                for (WakeTimer t : timers) {
                    try {
                        t.visit(now);
                    } catch (Throwable e) { // visit catches what its loop's callbacks throw: this is a bug of its own
                        LOG.log(Level.ERROR, "wake timer of " + t.owner + " failed", e);
                    }
                    next = earliest(next, t.armedAt.get());
                }
                // publish the park's end, then look again: a timer armed before the publication is seen
                // here, one armed after it reads the publication and unparks this thread
                parkedUntil = next;
                for (WakeTimer t : timers) {
                    next = earliest(next, t.armedAt.get());
                }
                if (next != parkedUntil) {
                    parkedUntil = NONE;
                    continue;
                }
                if (next == NONE) {
                    LockSupport.park(this);
                } else {
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(this, wait);
                    }
                }
                parkedUntil = NONE;
            }
        }
    }

    /**
     * When the loop should be woken (System.nanoTime), Long.MAX_VALUE when this timer need not wake it
     * (the loop is in a turn, or its port's own timeout ends its wait).
     */
    private final LongSupplier due;
    /**
     * When a check that found nothing due should run anyway (System.nanoTime; Long.MAX_VALUE or a past
     * time: none): shortly before the next deadline a stream of quiet writes is expected to set.
     */
    private final LongSupplier standby;
    /** Makes the loop run a turn: {@link IoLoop#wakeup()}. */
    private final Runnable wakeup;
    private final Object owner;
    /** When the pending check runs (System.nanoTime), NONE when none is pending. */
    private final AtomicLong armedAt = new AtomicLong(NONE);
    /** Whether this timer is in the timer thread's list (from its first arming until {@link #close}). */
    private final AtomicBoolean registered = new AtomicBoolean();
    private volatile boolean closed;

    /** For one loop: when it is due, how to wake it, and what to name in a log line ({@code owner}). */
    WakeTimer(LongSupplier due, Runnable wakeup, Object owner) {
        this(due, () -> NONE, wakeup, owner);
    }

    /** As {@link #WakeTimer(LongSupplier, Runnable, Object)}, with a standby time for checks that find nothing due. */
    WakeTimer(LongSupplier due, LongSupplier standby, Runnable wakeup, Object owner) {
        this.due = due;
        this.standby = standby;
        this.wakeup = wakeup;
        this.owner = owner;
    }

    /** Makes sure a check runs at {@code until} (System.nanoTime) at the latest. The loop's thread or the timer's. */
    void ensure(long until) {
        if (closed || !lowerTo(armedAt, until)) {
            return; // a check comes by then: it arms again for whatever the loop then waits for
        }
        Runnable hook = beforeRegister;
        if (hook != null) {
            hook.run();
        }
        Shared shared = Shared.INSTANCE;
        if (!registered.get() && registered.compareAndSet(false, true)) {
            shared.timers.add(this);
            if (closed) {
                // a close since the check above: it may have looked before the entry was made (its
                // compare-and-set found none), so this thread takes the entry out again
                shared.timers.remove(this);
                armedAt.set(NONE);
                return;
            }
        }
        shared.armed(until);
    }

    /** Tests: runs in {@link #ensure} between its check that the timer is open and its entry in the timer thread's list. */
    static volatile @Nullable Runnable beforeRegister;

    /** Whether the timer thread's list holds this timer (tests). */
    boolean listed() {
        return Shared.INSTANCE.timers.contains(this);
    }

    /**
     * The loop stopped: no check runs for it any more and the timer thread forgets it. Any thread. An
     * {@link #ensure} running at the same moment either finds it closed or, having made its entry,
     * looks again and takes the entry out ({@code closed} is written before {@code registered} is read
     * here and read after {@code registered} is written there: one of the two sees the other).
     */
    void close() {
        closed = true;
        armedAt.set(NONE);
        if (registered.compareAndSet(true, false)) {
            Shared.INSTANCE.timers.remove(this);
        }
    }

    /**
     * Timer thread, at each of its wake-ups: a check whose time came runs ({@link #check}); one not yet
     * due follows its loop's wait when that now ends later (the deadline moved later since it was
     * armed), so that this wake-up serves it too and it does not wake the thread by itself for nothing.
     * The same order as a check (clear, then read the loop's deadline), so no wake-up is lost: a loop
     * that publishes an earlier deadline meanwhile finds nothing armed and arms it.
     */
    private void visit(long now) {
        long at = armedAt.get();
        if (at == NONE) {
            return;
        }
        if (at - now <= 0) {
            check(at);
            return;
        }
        try {
            if (!armedAt.compareAndSet(at, NONE)) {
                return; // armed earlier meanwhile: that time stands
            }
            long until = due.getAsLong();
            if (until == NONE) {
                rearm(at); // in a turn (or its port's own wait): the check stays where it was
            } else if (until - System.nanoTime() <= 0) {
                wakeup.run();
            } else {
                rearm(until); // later than before when its deadline moved later: the coalescing
            }
        } catch (RuntimeException e) {
            rearm(at);
            LOG.log(Level.ERROR, "wake timer of " + owner + " failed", e);
        }
    }

    /** Timer thread: the loop's turn if its wait should end now, else a check at its new end. */
    private void check(long at) {
        try {
            armedAt.compareAndSet(at, NONE); // a later ensure armed another: that one's own check stays
            long until = due.getAsLong();
            if (until == Long.MAX_VALUE) {
                // in a turn, the port's own wait, or stopped: its next wait arms again if it needs to; a
                // stream of quiet writes finds the check already armed (their writer then wakes nobody)
                long next = standby.getAsLong();
                if (next != NONE && next - System.nanoTime() > 0) {
                    rearm(next);
                }
                return;
            }
            if (until - System.nanoTime() <= 0) {
                wakeup.run();
            } else {
                rearm(until);
            }
        } catch (RuntimeException e) {
            // a bug: the loop still wakes at its tick
            LOG.log(Level.ERROR, "wake timer of " + owner + " failed", e);
        }
    }

    /**
     * Timer thread: arms this timer again for {@code until} (earlier of it and what is armed), unless
     * it was closed meanwhile: a close that ran between the clearing and this leaves nothing armed.
     */
    private void rearm(long until) {
        lowerTo(armedAt, until);
        if (closed) {
            armedAt.set(NONE); // close wrote closed before it cleared armedAt: one of the two clears it
        }
    }

    /**
     * Moves the time in {@code time} (System.nanoTime, Long.MAX_VALUE for none) to {@code to} if that is
     * earlier, by compare-and-set (any thread); returns whether it moved (false: as early or earlier already).
     */
    static boolean lowerTo(AtomicLong time, long to) {
        long current;
        do {
            current = time.get();
            if (current != NONE && current - to <= 0) {
                return false;
            }
        } while (!time.compareAndSet(current, to));
        return true;
    }

    /** The earlier of two times (System.nanoTime), Long.MAX_VALUE standing for none. */
    static long earliest(long a, long b) {
        if (a == NONE) {
            return b;
        }
        return b == NONE || a - b <= 0 ? a : b;
    }

    /** The pending check's time (System.nanoTime), Long.MAX_VALUE for none; for tests. */
    long armedAt() {
        return armedAt.get();
    }
}
