package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.spring.core.ReliableUdpOperations;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.support.SendResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Test support: keyed reliable messages flowing to the "orders" service from a background thread
 * while a test changes the instances, every send's future kept, so that the test can check that
 * messages kept flowing and that each message was delivered or failed with a reason.
 */
final class MessageFlow implements AutoCloseable {

    /** One send: its text, key and future. */
    record Sent(String text, String key, CompletableFuture<SendResult> future) {
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final ReliableUdpOperations template;
    private final String peer;
    private final int keys;
    private final AtomicInteger seq = new AtomicInteger();
    private final Map<String, AtomicInteger> perKey = new ConcurrentHashMap<>();
    private volatile boolean stop;
    private final Thread thread;

    MessageFlow(ReliableUdpOperations template, String peer, int keys, Duration pause) {
        this.template = template;
        this.peer = peer;
        this.keys = keys;
        this.thread = Thread.ofPlatform().name("test-flow").daemon().unstarted(() -> {
            while (!stop) {
                sendRound();
                LockSupport.parkNanos(pause.toNanos());
            }
        });
    }

    MessageFlow start() {
        thread.start();
        return this;
    }

    /** One message per key. */
    void sendRound() {
        for (int k = 0; k < keys; k++) {
            String key = "entity-" + k;
            int n = perKey.computeIfAbsent(key, x -> new AtomicInteger()).getAndIncrement();
            String text = key + ":" + n + ":" + seq.getAndIncrement();
            CompletableFuture<SendResult> f;
            try {
                f = template.sendWithKey(peer, key, "0", text);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            sent.add(new Sent(text, key, f));
        }
    }

    int sentCount() {
        return sent.size();
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The outcome of the flow once every future settled. */
    record Outcome(int delivered, int failed, List<String> failures) {
    }

    /**
     * Waits for every future (bounded), then checks the rule: each message acknowledged was received by
     * an instance, each message not acknowledged failed with a {@link ReliableUdpSendException} naming
     * a reason; nothing is left pending.
     */
    Outcome settle(UdpServers servers, Duration within) {
        close();
        await().atMost(within).until(() -> sent.stream().allMatch(s -> s.future().isDone()));
        int delivered = 0;
        List<String> failures = new ArrayList<>();
        for (Sent s : sent) {
            try {
                s.future().join();
                delivered++;
            } catch (CompletionException e) {
                assertThat(e.getCause()).as("failure of %s", s.text()).isInstanceOf(ReliableUdpSendException.class);
                ReliableUdpSendException f = (ReliableUdpSendException) e.getCause();
                assertThat(f.reason()).isNotNull();
                failures.add(s.text() + " " + f.reason() + ": " + f.getMessage());
            }
        }
        // acknowledged means the instance's node received it
        List<String> acked = sent.stream().filter(s -> !s.future().isCompletedExceptionally()).map(Sent::text).toList();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(acked.stream().filter(t -> servers.where(t) == null).toList()).as("acknowledged but never received").isEmpty());
        return new Outcome(delivered, failures.size(), failures);
    }
}
