package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The I/O loop over a real UDP port: another thread wakes it without closing the channel, a burst
 * of wake-ups costs one selector wake-up, a requested deadline gets its turn (from the wake timer,
 * while the port waits for the tick). The loop's tick is an hour, so any turn seen here was caused by
 * a wake-up, not by the tick.
 */
@Timeout(60)
class IoLoopTest {

    private static final double AN_HOUR = 3600;

    private record Turn(String thread, long at) {
    }

    /** Records turns and datagrams; can hold the loop inside a turn. */
    private static class Recorder implements IoLoop.Handler {
        /** Each turn: its thread's name and when it ran (System.nanoTime). */
        final BlockingQueue<Turn> turns = new LinkedBlockingQueue<>();
        final BlockingQueue<String> datagrams = new LinkedBlockingQueue<>();
        final AtomicInteger ticks = new AtomicInteger();
        volatile @Nullable CountDownLatch holdNextTurn;
        final CountDownLatch held = new CountDownLatch(1);

        @Override
        public void onDatagram(InetSocketAddress from, byte[] data, int length) {
            datagrams.add(new String(data, 0, length, java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public void onTurn(boolean tick) {
            if (tick) {
                ticks.incrementAndGet();
            }
            CountDownLatch hold = holdNextTurn;
            if (hold != null) {
                holdNextTurn = null;
                held.countDown();
                try {
                    hold.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            turns.add(new Turn(Thread.currentThread().getName(), System.nanoTime()));
        }

        @Override
        public boolean conditioned() {
            return false;
        }

        @Override
        public void onDatagramFailed(RuntimeException e) {
            throw new AssertionError(e);
        }

        @Override
        public void onFatal(Throwable cause) {
            throw new AssertionError(cause);
        }
    }

    /** A started loop (hour-long tick, no busy-poll) over a counting loopback port; stopped, closed and joined on close. */
    private record Running(IoLoop loop, CountingPort port) implements AutoCloseable {
        static Running start(IoLoop.Handler handler, ReceiveThreadMode mode) throws IOException {
            CountingPort port = new CountingPort(loopbackPort());
            IoLoop loop = new IoLoop(port, handler, AN_HOUR, 0, mode, "io-loop-test");
            loop.start();
            return new Running(loop, port);
        }

        @Override
        public void close() throws InterruptedException {
            loop.stop();
            port.close();
            loop.join(5_000);
        }
    }

    private static UdpDatagramPort loopbackPort() throws IOException {
        return UdpDatagramPort.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0, 0, false);
    }

    @ParameterizedTest
    @EnumSource(ReceiveThreadMode.class)
    void anotherThreadWakesTheLoopWithoutClosingTheChannel(ReceiveThreadMode mode) throws Exception {
        Recorder recorder = new Recorder();
        try (Running running = Running.start(recorder, mode); DatagramChannel sender = DatagramChannel.open()) {
            CountingPort port = running.port();
            IoLoop loop = running.loop();
            for (int i = 0; i < 5; i++) {
                Thread waker = Thread.ofPlatform().start(loop::wakeup);
                waker.join();
                Turn turn = recorder.turns.poll(30, TimeUnit.SECONDS);
                assertThat(turn).as("turn after wake-up %d", i).isNotNull();
                assertThat(turn.thread()).isEqualTo("io-loop-test");
            }
            assertThat(port.isOpen()).isTrue();
            assertThat(recorder.ticks).hasValue(0);
            // the channel still receives after the wake-ups
            sender.send(ByteBuffer.wrap("after".getBytes(java.nio.charset.StandardCharsets.UTF_8)), port.localAddress());
            assertThat(recorder.datagrams.poll(30, TimeUnit.SECONDS)).isEqualTo("after");
            assertThat(recorder.datagrams).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(ReceiveThreadMode.class)
    void aBurstOfWakeupsWhileTheLoopWorksCostsNoSelectorWakeup(ReceiveThreadMode mode) throws Exception {
        Recorder recorder = new Recorder();
        try (Running running = Running.start(recorder, mode)) {
            CountingPort port = running.port();
            IoLoop loop = running.loop();
            CountDownLatch release = new CountDownLatch(1);
            recorder.holdNextTurn = release;
            loop.wakeup();
            assertThat(recorder.held.await(30, TimeUnit.SECONDS)).as("the loop is inside its turn").isTrue();
            long before = port.wakeups.get();
            for (int i = 0; i < 10_000; i++) {
                loop.wakeup();
            }
            // the loop is not waiting: it sees the flag before its next wait, so the port is not woken at all
            assertThat(port.wakeups.get() - before).as("selector wake-ups for 10,000 wakeup() calls").isZero();
            release.countDown();
            assertThat(recorder.turns.poll(30, TimeUnit.SECONDS)).isNotNull(); // the held turn
            assertThat(recorder.turns.poll(30, TimeUnit.SECONDS)).as("the burst's one turn").isNotNull();
            assertThat(port.isOpen()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(ReceiveThreadMode.class)
    void aWakeupWhileTheLoopWaitsCostsOneSelectorWakeup(ReceiveThreadMode mode) throws Exception {
        Recorder recorder = new Recorder();
        try (Running running = Running.start(recorder, mode)) {
            CountingPort port = running.port();
            IoLoop loop = running.loop();
            // the loop settles into its hour-long wait (no turn for 200 ms)
            assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).isNull();
            for (int round = 0; round < 3; round++) {
                long before = port.wakeups.get();
                // (a burst may cost one more when the loop is back in its wait before the burst ends; while
                // the loop works it costs none: the test above)
                Thread.ofPlatform().start(loop::wakeup).join();
                assertThat(recorder.turns.poll(30, TimeUnit.SECONDS)).as("the woken turn, round %d", round).isNotNull();
                assertThat(port.wakeups.get() - before).as("selector wake-ups of round %d", round).isEqualTo(1);
                // back to waiting before the next round
                assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).isNull();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(ReceiveThreadMode.class)
    void aWakeupFromTheLoopItselfIsOneMoreTurnWithoutTouchingThePort(ReceiveThreadMode mode) throws Exception {
        AtomicInteger selfWakes = new AtomicInteger();
        IoLoop[] self = new IoLoop[1];
        Recorder recorder = new Recorder() {
            @Override
            public void onTurn(boolean tick) {
                super.onTurn(tick);
                if (selfWakes.getAndDecrement() > 0) {
                    self[0].wakeup(); // as a listener that sends does, from inside the turn
                }
            }
        };
        try (Running running = Running.start(recorder, mode)) {
            CountingPort port = running.port();
            IoLoop loop = running.loop();
            self[0] = loop; // before selfWakes is set: until then the turns wake nothing
            assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).isNull(); // settled into its wait
            long looks = port.looks.get();
            long wakeups = port.wakeups.get();
            selfWakes.set(1);
            Thread.ofPlatform().start(loop::wakeup).join();
            assertThat(recorder.turns.poll(30, TimeUnit.SECONDS)).as("the woken turn").isNotNull();
            assertThat(recorder.turns.poll(30, TimeUnit.SECONDS)).as("the turn the loop asked of itself").isNotNull();
            assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).as("then it waits again").isNull();
            assertThat(port.wakeups.get() - wakeups).as("port wake-ups: only the other thread's").isEqualTo(1);
            assertThat(port.looks.get() - looks).as("selectNow calls for the loop's own wake-up").isZero();

            // a loop that keeps waking itself still reads: past SELF_WAKE_TURNS its next wait looks at the port
            selfWakes.set(IoLoop.SELF_WAKE_TURNS + 1);
            Thread.ofPlatform().start(loop::wakeup).join();
            for (int i = 0; i < IoLoop.SELF_WAKE_TURNS + 2; i++) {
                assertThat(recorder.turns.poll(30, TimeUnit.SECONDS)).as("turn %d", i).isNotNull();
            }
            assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).isNull();
            assertThat(port.looks.get() - looks).as("one look at the port between the self-woken turns").isEqualTo(1);
        }
    }

    @Test
    void waitingOnAReadyPortAllocatesNothing() throws Exception {
        try (UdpDatagramPort port = loopbackPort(); DatagramChannel sender = DatagramChannel.open()) {
            // one datagram left unread: every wait finds the key ready, as a busy loop's waits do
            sender.send(ByteBuffer.wrap(new byte[] {1}), port.localAddress());
            port.awaitReadable(TimeUnit.SECONDS.toNanos(10));
            for (int i = 0; i < 20_000; i++) { // warm-up
                port.awaitReadable(0);
                port.awaitReadable(1_000_000);
            }
            long before = allocated();
            for (int i = 0; i < 10_000; i++) {
                port.awaitReadable(0);
                port.awaitReadable(1_000_000);
            }
            // a selected-key set would take a HashSet node for each of these 20,000 ready waits (32 B each)
            assertThat(allocated() - before).as("bytes allocated by 20,000 waits on a ready port").isLessThan(20_000);
        }
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }

    @org.junit.jupiter.api.Test
    void quietDeadlinesOfAStreamPredictTheNextOneAndOthersPredictNothing() throws Exception {
        try (Running r = Running.start(new Recorder(), ReceiveThreadMode.PLATFORM)) {
            long t = System.nanoTime() + TimeUnit.HOURS.toNanos(1); // far: no check comes during the test
            long interval = TimeUnit.MILLISECONDS.toNanos(16);
            assertThat(r.loop().standby()).as("no quiet write yet").isEqualTo(Long.MAX_VALUE);
            r.loop().wakeAtQuietly(t);
            assertThat(r.loop().standby()).as("one quiet deadline is no stream").isEqualTo(Long.MAX_VALUE);
            r.loop().wakeAtQuietly(t + interval);
            // an eighth of the interval before the third deadline, so that the third write finds it armed
            assertThat(r.loop().standby()).isEqualTo(t + 2 * interval - interval / 8);
            r.loop().wakeAtQuietly(t + interval + IoLoop.QUIET_STREAM_NANOS);
            assertThat(r.loop().standby()).as("after a long gap").isEqualTo(Long.MAX_VALUE);
        }
    }

    @org.junit.jupiter.api.Test
    void aStreamWhoseDeadlinesLieCloseToTheirWritesStandsByAfterTheNextWrite() throws Exception {
        try (Running r = Running.start(new Recorder(), ReceiveThreadMode.PLATFORM)) {
            long interval = TimeUnit.MILLISECONDS.toNanos(16);
            long lead = TimeUnit.MILLISECONDS.toNanos(1); // the resend interval with prompt acks
            long first = System.nanoTime() + lead;
            r.loop().wakeAtQuietly(first);
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(interval) + 1);
            long second = System.nanoTime() + lead; // the next write, 1 ms before its deadline
            r.loop().wakeAtQuietly(second);
            long gap = second - first;
            // an eighth of the stream's interval (2 ms) before the third deadline would be before the
            // third write (1 ms before it): at most half the lead instead
            long before = second + gap - r.loop().standby();
            assertThat(before).isPositive().isLessThanOrEqualTo(lead / 2).isLessThan(gap / 8);
        }
    }

    @ParameterizedTest
    @EnumSource(ReceiveThreadMode.class)
    void aRequestedDeadlineGetsItsTurnLongBeforeTheTick(ReceiveThreadMode mode) throws Exception {
        Recorder recorder = new Recorder();
        try (Running running = Running.start(recorder, mode)) {
            IoLoop loop = running.loop();
            // let the loop settle into its hour-long wait, then ask for a turn in 20 ms
            assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).isNull();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            loop.wakeAt(deadline);
            loop.wakeAt(deadline + TimeUnit.MINUTES.toNanos(1)); // a later one changes nothing
            // a turn to shorten the wait (unless it came late), then one at the deadline, not before
            Turn turn;
            do {
                turn = recorder.turns.poll(30, TimeUnit.SECONDS);
                assertThat(turn).as("a turn at the deadline").isNotNull();
            } while (turn.at() - deadline < 0);
            // the deadline was served: the loop sleeps again instead of turning on it
            assertThat(recorder.turns.poll(200, TimeUnit.MILLISECONDS)).isNull();
            assertThat(recorder.ticks).hasValue(0);
            // the wake timer served it: the port's own waits all lasted until the hour-long tick (a
            // 20 ms timeout there would arm and cancel a kernel timer in every wait)
            assertThat(running.port().shortestTimedWait.get()).as("shortest timed wait on the port (ns)")
                    .isGreaterThan(TimeUnit.MINUTES.toNanos(30));
        }
    }
}
