package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wake timer against a stand-in for a loop (what it waits until, a queue of wake-ups): a loop is
 * woken at its deadline and not before, a deadline that moved later is followed without a wake-up, an
 * earlier one is armed at once, a loop in a turn is left alone, one wake-up of the timer thread moves
 * the stale check of another loop to that loop's later end. Orders and counts only: every
 * assertion holds however late the machine runs the timer thread.
 */
@Timeout(60)
class WakeTimerTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** What the timer sees of a loop: the end of its wait, and the times it was woken. */
    private static final class FakeLoop {
        final AtomicLong waitingUntil = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong standby = new AtomicLong(Long.MAX_VALUE);
        final BlockingQueue<Long> wakeups = new LinkedBlockingQueue<>();
        final WakeTimer timer = new WakeTimer(waitingUntil::get, standby::get,
                () -> wakeups.add(System.nanoTime()), "fake loop");

        /** As the loop's wait does: publish the end, then make sure the timer comes by then. */
        void waitUntil(long until) {
            waitingUntil.set(until);
            timer.ensure(until);
        }
    }

    @Test
    void aWaitingLoopIsWokenAtItsDeadlineNotBefore() throws Exception {
        FakeLoop loop = new FakeLoop();
        long deadline = System.nanoTime() + 20 * MS;
        loop.waitUntil(deadline);
        Long woken = loop.wakeups.poll(30, TimeUnit.SECONDS);
        assertThat(woken).as("a wake-up").isNotNull();
        assertThat(woken - deadline).as("woken at or after the deadline").isGreaterThanOrEqualTo(0);
        assertThat(loop.wakeups.poll(100, TimeUnit.MILLISECONDS)).as("one wake-up only").isNull();
        assertThat(loop.timer.armedAt()).as("nothing armed after it").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aDeadlineThatMovedLaterIsFollowedWithoutWakingTheLoop() throws Exception {
        FakeLoop loop = new FakeLoop();
        long first = System.nanoTime() + 20 * MS;
        loop.waitUntil(first);
        // the loop ran a turn (a datagram) and now waits longer: nothing new is armed, the first check stays
        long later = first + 200 * MS;
        loop.waitUntil(later);
        // the earlier check stays armed; a wake-up of the timer thread for another loop of this JVM may
        // have moved it to the later end already, never past it
        assertThat(loop.timer.armedAt()).as("the earlier check stays armed").isBetween(first, later);
        Long woken = loop.wakeups.poll(30, TimeUnit.SECONDS);
        assertThat(woken).as("a wake-up at the later deadline").isNotNull();
        assertThat(woken - later).as("not at the first, moved deadline").isGreaterThanOrEqualTo(0);
        assertThat(loop.wakeups.poll(100, TimeUnit.MILLISECONDS)).as("one wake-up only").isNull();
    }

    @Test
    void anEarlierDeadlineIsArmedAtOnce() throws Exception {
        FakeLoop loop = new FakeLoop();
        long far = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        loop.waitUntil(far);
        long near = System.nanoTime() + 2_000 * MS; // far enough that a descheduled test thread still sees it armed
        loop.waitUntil(near);
        assertThat(loop.timer.armedAt()).isEqualTo(near);
        Long woken = loop.wakeups.poll(30, TimeUnit.SECONDS);
        assertThat(woken).as("a wake-up at the near deadline, long before the far one").isNotNull();
        assertThat(woken - near).isGreaterThanOrEqualTo(0);
    }

    @Test
    void aLoopInATurnIsLeftAloneAndArmsAgainBeforeItsNextWait() throws Exception {
        FakeLoop loop = new FakeLoop();
        long deadline = System.nanoTime() + 20 * MS;
        loop.waitUntil(deadline);
        loop.waitingUntil.set(Long.MAX_VALUE); // woken by a datagram: in a turn when the check comes
        long until = System.currentTimeMillis() + 2_000;
        while (loop.timer.armedAt() != Long.MAX_VALUE && System.currentTimeMillis() < until) {
            Thread.sleep(5);
        }
        assertThat(loop.timer.armedAt()).as("the check ran and armed nothing").isEqualTo(Long.MAX_VALUE);
        assertThat(loop.wakeups).as("a running loop is not woken").isEmpty();
        // its next wait arms a new check
        long next = System.nanoTime() + 20 * MS;
        loop.waitUntil(next);
        Long woken = loop.wakeups.poll(30, TimeUnit.SECONDS);
        assertThat(woken).isNotNull();
        assertThat(woken - next).isGreaterThanOrEqualTo(0);
    }

    @Test
    void oneWakeUpOfTheTimerThreadMovesEveryCheckWhoseLoopNowWaitsLonger() throws Exception {
        FakeLoop near = new FakeLoop();
        FakeLoop stale = new FakeLoop();
        long start = System.nanoTime();
        long staleFirst = start + TimeUnit.SECONDS.toNanos(20);
        long staleLater = start + TimeUnit.SECONDS.toNanos(40);
        stale.waitUntil(staleFirst);
        stale.waitUntil(staleLater); // its deadline moved later: its check stays at the first end for now
        long deadline = start + 20 * MS;
        near.waitUntil(deadline);
        assertThat(near.wakeups.poll(30, TimeUnit.SECONDS)).as("the near loop's wake-up").isNotNull();
        // the timer thread woke for the near loop and looked at the other one too: its check now follows
        // its later end instead of waking the thread at the first for nothing
        long until = System.currentTimeMillis() + 5_000;
        while (stale.timer.armedAt() != staleLater && System.currentTimeMillis() < until) {
            Thread.sleep(2);
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(System.nanoTime() - staleFirst < 0,
                "the machine was too slow to tell: the stale check's own time came");
        assertThat(stale.timer.armedAt()).as("moved to the later end by the other loop's wake-up").isEqualTo(staleLater);
        assertThat(stale.wakeups).as("and not woken").isEmpty();
        stale.timer.close();
        assertThat(stale.timer.armedAt()).as("a closed timer has nothing armed").isEqualTo(Long.MAX_VALUE);
        stale.timer.ensure(System.nanoTime() + MS);
        assertThat(stale.timer.armedAt()).as("and arms nothing more").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aDeadlineAlreadyDueWakesTheLoopAtOnce() throws Exception {
        FakeLoop loop = new FakeLoop();
        loop.waitUntil(System.nanoTime() - MS);
        assertThat(loop.wakeups.poll(30, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aCheckThatFindsNothingDueArmsForTheStandbyTimeAndStopsWhenItIsPast() throws Exception {
        FakeLoop loop = new FakeLoop();
        long deadline = System.nanoTime() + 20 * MS;
        loop.waitUntil(deadline);
        // the ack came: the loop took the deadline over and waits on its port; a stream's next write is expected
        loop.waitingUntil.set(Long.MAX_VALUE);
        long standby = deadline + 300 * MS;
        loop.standby.set(standby);
        long until = System.currentTimeMillis() + 5_000;
        while (loop.timer.armedAt() != standby && System.currentTimeMillis() < until) {
            Thread.sleep(2);
        }
        assertThat(loop.timer.armedAt()).as("the empty check armed the standby time").isEqualTo(standby);
        // the stream's next deadline, later than the standby check: nothing new armed (no timer wake-up now)
        loop.timer.ensure(standby + 5 * MS);
        assertThat(loop.timer.armedAt()).as("a later deadline finds the standby check").isEqualTo(standby);
        // no write came after all: the standby check finds its time past and arms nothing more
        until = System.currentTimeMillis() + 5_000;
        while (loop.timer.armedAt() != Long.MAX_VALUE && System.currentTimeMillis() < until) {
            Thread.sleep(2);
        }
        assertThat(loop.timer.armedAt()).as("nothing armed after the stream stopped").isEqualTo(Long.MAX_VALUE);
        assertThat(loop.wakeups).as("the loop was never due, never woken").isEmpty();
    }
}
