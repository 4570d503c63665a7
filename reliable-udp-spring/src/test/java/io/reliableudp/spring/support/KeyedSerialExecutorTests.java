package io.reliableudp.spring.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class KeyedSerialExecutorTests {

    @Test
    void tasksOfAKeyRunOneAtATimeInOrderAndKeysRunConcurrently() {
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            KeyedSerialExecutor executor = new KeyedSerialExecutor(virtual);
            int keys = 20;
            int perKey = 2_000;
            Map<Integer, List<Integer>> seen = new ConcurrentHashMap<>();
            Map<Integer, AtomicInteger> inFlight = new ConcurrentHashMap<>();
            AtomicInteger maxConcurrentKeys = new AtomicInteger();
            AtomicInteger running = new AtomicInteger();
            List<String> violations = new CopyOnWriteArrayList<>();
            for (int k = 0; k < keys; k++) {
                seen.put(k, new ArrayList<>());
                inFlight.put(k, new AtomicInteger());
            }
            for (int i = 0; i < perKey; i++) {
                for (int k = 0; k < keys; k++) {
                    int key = k;
                    int value = i;
                    executor.execute(key, () -> {
                        if (inFlight.get(key).incrementAndGet() != 1) {
                            violations.add("key " + key + " ran twice at once");
                        }
                        maxConcurrentKeys.accumulateAndGet(running.incrementAndGet(), Math::max);
                        seen.get(key).add(value);
                        running.decrementAndGet();
                        inFlight.get(key).decrementAndGet();
                    });
                }
            }
            assertThat(executor.awaitIdle(Duration.ofSeconds(20))).isTrue();
            assertThat(violations).isEmpty();
            for (int k = 0; k < keys; k++) {
                assertThat(seen.get(k)).hasSize(perKey).isSorted();
            }
            assertThat(executor.activeKeys()).isZero();
        }
    }

    @Test
    void aFailingTaskDoesNotStopItsKey() {
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            KeyedSerialExecutor executor = new KeyedSerialExecutor(virtual);
            List<Integer> seen = new CopyOnWriteArrayList<>();
            executor.execute("k", () -> seen.add(1));
            executor.execute("k", () -> {
                throw new IllegalStateException("listener bug");
            });
            executor.execute("k", () -> seen.add(3));
            assertThat(executor.awaitIdle(Duration.ofSeconds(5))).isTrue();
            assertThat(seen).containsExactly(1, 3);
        }
    }

    @Test
    void shutdownHandsBackTheQueuedTasksInOrderLetsTheRunningOneFinishAndRefusesNewOnes() throws Exception {
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            KeyedSerialExecutor executor = new KeyedSerialExecutor(virtual);
            java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            List<Integer> ran = new CopyOnWriteArrayList<>();
            executor.execute("k", () -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                ran.add(0);
            });
            List<Runnable> queued = new ArrayList<>();
            for (int i = 1; i <= 5; i++) {
                int n = i;
                Runnable r = () -> ran.add(n);
                queued.add(r);
                executor.execute("k", r);
            }
            assertThat(started.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(executor.shutdown()).containsExactlyElementsOf(queued);
            assertThat(executor.isShutdown()).isTrue();
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> executor.execute("k", () -> ran.add(99)))
                    .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
            release.countDown();
            assertThat(executor.awaitIdle(Duration.ofSeconds(10))).isTrue();
            assertThat(ran).containsExactly(0);
        }
    }
}
