package io.reliableudp.spring.support;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs tasks on an {@link Executor} (virtual threads by default) one at a time per key, in submission
 * order per key; tasks of different keys run concurrently. Idle keys hold no memory: a key's queue is
 * removed as soon as it drains.
 *
 * <p>Used to hand each (peer, channel) stream of messages to listeners in the order the node delivered
 * them, without ever blocking the node's receive thread.
 */
public final class KeyedSerialExecutor {

    private final Executor executor;
    private final ConcurrentHashMap<Object, SerialQueue> queues = new ConcurrentHashMap<>();
    private volatile boolean shutdown;

    /**
     * Creates the executor.
     *
     * @param executor where drains run (one drain at a time per key)
     */
    public KeyedSerialExecutor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /**
     * Queues a task for a key. Never blocks.
     *
     * @param key the ordering key (equal keys run serially, in submission order)
     * @param task the task; an exception it throws is passed to the thread's uncaught exception handler
     *     and does not stop later tasks of the key
     * @throws RejectedExecutionException when this executor was {@link #shutdown() shut down}, or the
     *     underlying executor refuses a new drain
     */
    public void execute(Object key, Runnable task) {
        boolean[] schedule = new boolean[1];
        SerialQueue queue = queues.compute(key, (k, q) -> {
            if (shutdown) {
                // checked under the key's lock: shutdown() drains each key under the same lock after setting it
                throw new RejectedExecutionException("the keyed serial executor is shut down");
            }
            SerialQueue qq = q == null ? new SerialQueue(k) : q;
            qq.tasks.add(task);
            if (!qq.running) {
                qq.running = true;
                schedule[0] = true;
            }
            return qq;
        });
        if (schedule[0]) {
            try {
                executor.execute(queue);
            } catch (RuntimeException e) {
                queues.remove(key, queue);
                throw e;
            }
        }
    }

    /**
     * Waits until no key has queued or running work.
     *
     * @param timeout the longest wait
     * @return true when idle, false when the timeout passed first
     */
    public boolean awaitIdle(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!queues.isEmpty()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return queues.isEmpty();
            }
        }
        return true;
    }

    /**
     * Refuses new tasks and takes the ones still queued (not started) out of every key's queue, as
     * {@code ExecutorService.shutdownNow} does, without interrupting the tasks that run: each key's
     * running task finishes and its drain ends.
     *
     * @return the tasks that will not run, in each key's order
     */
    public List<Runnable> shutdown() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>();
        for (Object key : queues.keySet()) {
            queues.computeIfPresent(key, (k, q) -> {
                left.addAll(q.tasks);
                q.tasks.clear();
                return q;
            });
        }
        return left;
    }

    /** Whether {@link #shutdown()} was called. */
    public boolean isShutdown() {
        return shutdown;
    }

    /** Keys with queued or running work right now. */
    public int activeKeys() {
        return queues.size();
    }

    private final class SerialQueue implements Runnable {
        private final Object key;
        // guarded by the map's lock on this key (all access inside compute)
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        private boolean running;

        SerialQueue(Object key) {
            this.key = key;
        }

        @Override
        public void run() {
            while (true) {
                Runnable[] next = new Runnable[1];
                queues.compute(key, (k, q) -> {
                    if (q != this) {
                        return q;
                    }
                    next[0] = tasks.poll();
                    if (next[0] == null) {
                        running = false;
                        return null;
                    }
                    return q;
                });
                if (next[0] == null) {
                    return;
                }
                try {
                    next[0].run();
                } catch (RuntimeException | Error e) {
                    Thread t = Thread.currentThread();
                    t.getUncaughtExceptionHandler().uncaughtException(t, e);
                }
            }
        }
    }
}
