package io.reliableudp.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A slow listener slows its sender instead of growing the receiver's heap: a listener that takes 10 ms
 * per message (100 messages a second) is fed at up to 10,000 sends a second by another application
 * over the core's in-memory network (the real protocol stack). Its container pauses the
 * channel in the node at its queue bound; the node holds what comes, up to its receive memory limit,
 * then stops acknowledging; the sender's queue fills and its sends fail with QUEUE_FULL. Every send
 * the sender was told was delivered reaches the listener exactly once, in order, also across a
 * {@code stop()} and {@code start()} of the container in the middle.
 *
 * <p>Runs for {@value #DEFAULT_SECONDS} s of sending; {@code -Dbackpressure.seconds=30} runs the long
 * variant.
 */
@Timeout(180)
class BackPressureTests {

    static final int DEFAULT_SECONDS = 3;
    static final int QUEUE_BOUND = 50;
    static final int MAX_MESSAGE = 1024;
    static final long RECEIVE_MEMORY = 4 * 1024;

    private SlowListenerPair pair;

    @AfterEach
    void close() {
        if (pair != null) {
            pair.close();
        }
    }

    @Test
    void aSlowListenerSlowsItsSenderAndGetsEveryDeliveredMessageOnceAcrossAStop() throws Exception {
        pair = new SlowListenerPair(Duration.ofMillis(10),
                server -> server.maxMessageSize(MAX_MESSAGE).receiveMemoryLimit(RECEIVE_MEMORY).factory(f -> f.setMaxQueuedMessages(QUEUE_BOUND)),
                100);
        ReliableUdpTemplate template = pair.template;
        ManagedReliableUdpNode serverNode = pair.serverNode;
        UdpMessageListenerContainer container = pair.container;
        template.send("server", "slow", "-1").get(10, TimeUnit.SECONDS);   // connected

        long heapBefore = usedHeapAfterGc();
        Set<Integer> delivered = new ConcurrentSkipListSet<>();
        LongAdder queueFull = new LongAdder();
        LongAdder otherFailures = new LongAdder();
        AtomicLong maxHeldBytes = new AtomicLong();
        // futures are not kept (a refused send's exception is the sender's memory, not the receiver's): counted
        AtomicInteger outstanding = new AtomicInteger();
        long seconds = Long.getLong("backpressure.seconds", DEFAULT_SECONDS);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long stopAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) / 2;
        long sampleAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) * 3 / 4;
        long heapDuring = -1;
        Thread stopper = null;
        int attempted = 0;
        while (System.nanoTime() < end) {
            int i = attempted++;
            outstanding.incrementAndGet();
            CompletableFuture<SendResult> f = template.send("server", "slow", Integer.toString(i));
            f.whenComplete((r, e) -> {
                outstanding.decrementAndGet();
                if (e == null) {
                    delivered.add(i);
                } else if (e.getCause() instanceof ReliableUdpSendException s && s.reason() == DeliveryFailure.QUEUE_FULL
                        || e instanceof ReliableUdpSendException s2 && s2.reason() == DeliveryFailure.QUEUE_FULL) {
                    queueFull.increment();
                } else {
                    otherFailures.increment();
                }
            });
            if (i % 10 == 9) {
                LockSupport.parkNanos(1_000_000);   // at most 10,000 sends a second
                maxHeldBytes.accumulateAndGet(serverNode.stats().receiveMemoryBytes(), Math::max);
            }
            if (heapDuring < 0 && System.nanoTime() > sampleAt) {
                heapDuring = usedHeapAfterGc();   // while the sender still pushes and the receiver pushes back
            }
            if (stopper == null && System.nanoTime() > stopAt) {
                stopper = Thread.ofVirtual().start(() -> {
                    container.stop();      // hands over what it took, keeps the channel paused in the node
                    LockSupport.parkNanos(200_000_000);
                    container.start();     // the node hands over what it held, in order
                });
            }
        }
        Objects.requireNonNull(stopper).join(30_000);
        await().atMost(Duration.ofSeconds(120)).until(() -> outstanding.get() == 0);   // every send ended
        // the listener works through what was delivered (or the container gave some up, which fails below)
        await().atMost(Duration.ofSeconds(120))
                .until(() -> handledNumbers().containsAll(delivered) || container.getNotProcessedCount() > 0);
        System.out.printf("back-pressure: %d sends attempted in %d s, %d delivered, %d QUEUE_FULL; listener queue max %d (bound %d),"
                + " %d pauses, %d not processed; node held at most %d bytes (limit %d), refused %d packets;"
                + " used heap after GC %d KiB before, %d KiB at 3/4 of the run, %d KiB after (both applications, one JVM)%n",
                attempted, seconds,
                delivered.size(), queueFull.sum(), container.getMaxQueuedCount(), QUEUE_BOUND, container.getBackPressurePauseCount(),
                container.getNotProcessedCount(), maxHeldBytes.get(), RECEIVE_MEMORY, serverNode.stats().memoryRefusals(),
                heapBefore / 1024, heapDuring / 1024, usedHeapAfterGc() / 1024);

        // the sender saw back-pressure, and every send ended in delivery or QUEUE_FULL
        assertThat(queueFull.sum()).as("sends refused with QUEUE_FULL of %d attempted", attempted).isPositive();
        assertThat(otherFailures.sum()).isZero();
        assertThat(delivered.size() + queueFull.sum()).isEqualTo(attempted);
        // the receiver's queue stayed at its bound and the node held no more than its limit
        assertThat(container.getMaxQueuedCount()).isLessThanOrEqualTo(QUEUE_BOUND + 2);
        assertThat(container.getBackPressurePauseCount()).isPositive();
        assertThat(maxHeldBytes.get()).isLessThanOrEqualTo(RECEIVE_MEMORY);
        assertThat(serverNode.stats().memoryRefusals()).as("packets the receiver refused at its limit").isPositive();
        // every delivered message reached the listener exactly once, in the order sent
        List<Integer> handled = handledNumbers();
        handled.remove(Integer.valueOf(-1));
        assertThat(new HashSet<>(handled)).hasSameSizeAs(handled);
        assertThat(handled).isSorted();
        assertThat(new HashSet<>(handled)).isEqualTo(delivered);
        assertThat(container.getNotProcessedCount()).isZero();
    }

    private List<Integer> handledNumbers() {
        List<Integer> numbers = new ArrayList<>();
        synchronized (pair.listener.handled) {
            pair.listener.handled.forEach(t -> numbers.add(Integer.parseInt(t)));
        }
        return numbers;
    }

    /** For the printed figures only (no assertion: the bound is asserted on the queue and the node's held bytes). */
    private static long usedHeapAfterGc() {
        System.gc();
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}
