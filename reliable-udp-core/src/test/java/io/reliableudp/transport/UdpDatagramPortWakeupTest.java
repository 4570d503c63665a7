package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The port's own wake-up pipe: a wake-up ends the wait in progress or the next one, none is
 * lost however wake-ups and waits interleave, wake-ups before the loop read the pipe write nothing
 * more, and waking and waiting allocate nothing. Every wait here is an hour unless a wake-up ends it,
 * so a lost wake-up shows as the test's timeout, not as a slow run.
 */
@Timeout(120)
class UdpDatagramPortWakeupTest {

    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    private static UdpDatagramPort loopbackPort() throws Exception {
        return UdpDatagramPort.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0, 0, false);
    }

    @Test
    void aWakeUpBeforeTheWaitEndsTheNextWait() throws Exception {
        try (UdpDatagramPort port = loopbackPort()) {
            for (int i = 0; i < 1_000; i++) {
                port.wakeup();
                port.wakeup(); // a second one while the byte is unread: still one wait ended, and no more
                port.awaitReadable(AN_HOUR);
            }
        }
    }

    @Test
    void noWakeUpIsLostWhenAnotherThreadWakesEveryWait() throws Exception {
        try (UdpDatagramPort port = loopbackPort()) {
            int rounds = 5_000;
            CountDownLatch done = new CountDownLatch(1);
            java.util.concurrent.Semaphore waiting = new java.util.concurrent.Semaphore(0);
            Thread waker = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        waiting.acquire(); // the waiter is in (or about to enter) its wait
                        port.wakeup();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
            for (int i = 0; i < rounds; i++) {
                waiting.release();
                port.awaitReadable(AN_HOUR); // returns only by that round's wake-up
            }
            assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
            waker.join();
        }
    }

    @Test
    void wakingAndWaitingAllocateNothing() throws Exception {
        try (UdpDatagramPort port = loopbackPort()) {
            for (int i = 0; i < 20_000; i++) { // warm-up
                port.wakeup();
                port.awaitReadable(AN_HOUR);
            }
            long before = allocated();
            for (int i = 0; i < 10_000; i++) {
                port.wakeup();
                port.awaitReadable(AN_HOUR);
            }
            assertThat(allocated() - before).as("bytes allocated by 10,000 wake-ups and waits").isLessThan(10_000);
        }
    }

    @Test
    void aWakeUpAfterCloseIsIgnored() throws Exception {
        UdpDatagramPort port = loopbackPort();
        port.close();
        port.wakeup(); // the loop's stop wakes a port that may already be closed: no exception
        assertThat(port.isOpen()).isFalse();
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }
}
