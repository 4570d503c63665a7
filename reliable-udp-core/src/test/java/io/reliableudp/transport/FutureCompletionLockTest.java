package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.link.LinkConditionerConfig;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Delivery futures complete outside every peer lock: a callback chained without {@code ...Async} on
 * one peer's future may send to or disconnect another peer while that peer's own callback does the
 * same to the first, and no thread waits for a lock the other holds. The two callbacks meet at a
 * barrier first, so that were they run under their peer's lock both locks would be held when each
 * reaches for the other's (the deadlock every time, not by chance).
 */
@Timeout(60)
class FutureCompletionLockTest {

    private static final LinkConditionerConfig BLACK_HOLE =
            new LinkConditionerConfig(0, 0, 1.0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 7);

    @Test
    void callbacksThatReachForAnotherPeerDoNotDeadlock() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        RecordingListener serverEvents = new RecordingListener();
        ReliableUdpNode server = ReliableUdpNode.start(NodeConfig.builder().build(), serverEvents, network.open());
        ReliableUdpNode c1 = ReliableUdpNode.start(NodeConfig.builder().acceptIncoming(false).build(),
                new RecordingListener(), network.open());
        ReliableUdpNode c2 = ReliableUdpNode.start(NodeConfig.builder().acceptIncoming(false).build(),
                new RecordingListener(), network.open());
        boolean deadlock = true;
        try {
            c1.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            c2.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.connected.size() == 2);
            Peer p1 = serverEvents.connected.get(0);
            Peer p2 = serverEvents.connected.get(1);
            server.setLinkConditioner(BLACK_HOLE); // nothing the server sends arrives: its sends stay pending

            CyclicBarrier bothInCallbacks = new CyclicBarrier(2);
            CompletableFuture<Delivery> f1 = p1.send(0, new byte[] {1});
            CompletableFuture<Delivery> f2 = p2.send(0, new byte[] {2});
            f1.whenComplete((d, e) -> meetThen(bothInCallbacks, () -> p2.send(0, new byte[] {3})));
            f2.whenComplete((d, e) -> meetThen(bothInCallbacks, () -> p1.send(0, new byte[] {4})));

            Thread t1 = Thread.ofPlatform().daemon().name("disconnects-p1").start(p1::disconnect);
            Thread t2 = Thread.ofPlatform().daemon().name("disconnects-p2").start(p2::disconnect);
            t1.join(10_000);
            t2.join(10_000);

            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long[] deadlocked = threads.findDeadlockedThreads();
            List<String> names = new ArrayList<>();
            if (deadlocked != null) {
                Arrays.stream(threads.getThreadInfo(deadlocked)).forEach(i -> names.add(i.getThreadName()));
            }
            deadlock = deadlocked != null;
            assertThat(deadlocked).as("deadlocked threads %s", names).isNull();
            assertThat(t1.isAlive() || t2.isAlive()).as("both disconnects returned").isFalse();
            assertThat(f1).isCompletedExceptionally();
            assertThat(f2).isCompletedExceptionally();
        } finally {
            c1.close();
            c2.close();
            if (!deadlock) {
                server.close(); // a deadlocked server's close would wait for the locks for ever
            }
        }
    }

    private static void meetThen(CyclicBarrier barrier, Runnable then) {
        try {
            barrier.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (BrokenBarrierException | TimeoutException e) {
            return;
        }
        then.run();
    }
}
