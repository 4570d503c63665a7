package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

/**
 * The membership rules of one group without a network: departed instances drain (closed when their
 * last message in flight settles, or at the drain timeout), come back while draining, and are never
 * chosen once departed.
 */
class DiscoveryPeerGroupTests {

    private final SimpleAsyncTaskScheduler scheduler = new SimpleAsyncTaskScheduler();
    private final Set<InetSocketAddress> disconnected = ConcurrentHashMap.newKeySet();
    private final List<String> events = new CopyOnWriteArrayList<>();

    private static final InetSocketAddress A = new InetSocketAddress("127.0.0.1", 40001);
    private static final InetSocketAddress B = new InetSocketAddress("127.0.0.1", 40002);

    @AfterEach
    void close() {
        scheduler.close();
    }

    private DiscoveryPeerGroup group(Duration drainTimeout) {
        DiscoveryPeerGroup g = new DiscoveryPeerGroup("orders", "orders", null, 64, DiscoveryPeerGroup.roundRobin(), drainTimeout);
        g.attach(new DiscoveryPeerGroup.Connections() {
            @Override
            public void connect(InetSocketAddress address) {
                events.add("connect " + address.getPort());
            }

            @Override
            public void disconnect(InetSocketAddress address) {
                disconnected.add(address);
                events.add("disconnect " + address.getPort());
            }

            @Override
            public boolean isConnected(InetSocketAddress address) {
                return true;
            }
        }, scheduler);
        g.addListener(new DiscoveryPeerGroup.Listener() {
            @Override
            public void drained(DiscoveryPeerGroup group, DiscoveryPeerGroup.Instance instance, boolean timedOut, int stillInFlight) {
                events.add("drained " + instance.id() + " timedOut=" + timedOut + " still=" + stillInFlight);
            }
        });
        return g;
    }

    @Test
    void aDepartedInstanceClosesWhenItsLastMessageInFlightSettles() {
        DiscoveryPeerGroup g = group(Duration.ofSeconds(30));
        g.update(List.of(new DiscoveryPeerGroup.Instance("a", A), new DiscoveryPeerGroup.Instance("b", B)));
        assertThat(events).contains("connect 40001", "connect 40002");
        CompletableFuture<Object> inFlight = new CompletableFuture<>();
        g.handedOff(A, inFlight);
        assertThat(g.inFlight(A)).isEqualTo(1);

        g.update(List.of(new DiscoveryPeerGroup.Instance("b", B)));
        assertThat(g.isRoutable(A)).isFalse();
        assertThat(g.isMember(A)).as("still a member while draining").isTrue();
        assertThat(g.instances()).containsExactly(B);
        for (int k = 0; k < 100; k++) {
            assertThat(g.choose("key-" + k, List.of())).isEqualTo(B);
            assertThat(g.choose(null, List.of())).isEqualTo(B);
        }
        assertThat(disconnected).isEmpty();

        inFlight.complete("acked");
        assertThat(disconnected).containsExactly(A);
        assertThat(g.isMember(A)).isFalse();
        assertThat(events).contains("drained a timedOut=false still=0");
    }

    @Test
    void aDrainThatTakesTooLongClosesAtTheTimeout() {
        DiscoveryPeerGroup g = group(Duration.ofMillis(200));
        g.update(List.of(new DiscoveryPeerGroup.Instance("a", A)));
        g.handedOff(A, new CompletableFuture<>());   // never acknowledged
        g.update(List.of());
        assertThat(g.instances()).isEmpty();
        assertThat(g.choose("k", List.of())).isNull();
        // the timeout runs on the scheduler: the close, then the listener
        await().atMost(Duration.ofSeconds(5)).until(() -> events.contains("drained a timedOut=true still=1"));
        assertThat(disconnected).containsExactly(A);
        assertThat(g.isMember(A)).isFalse();
    }

    @Test
    void anInstanceThatComesBackWhileDrainingIsRoutableAndKeepsItsConnection() {
        DiscoveryPeerGroup g = group(Duration.ofMillis(300));
        g.update(List.of(new DiscoveryPeerGroup.Instance("a", A), new DiscoveryPeerGroup.Instance("b", B)));
        CompletableFuture<Object> inFlight = new CompletableFuture<>();
        g.handedOff(A, inFlight);
        g.update(List.of(new DiscoveryPeerGroup.Instance("b", B)));
        g.update(List.of(new DiscoveryPeerGroup.Instance("a", A), new DiscoveryPeerGroup.Instance("b", B)));
        assertThat(g.isRoutable(A)).isTrue();
        inFlight.complete("acked");
        // the cancelled drain timeout (300 ms) must not close it later either: nothing for twice as long
        await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(disconnected::isEmpty);
        assertThat(g.instances()).containsExactlyInAnyOrder(A, B);
    }

    @Test
    void anExcludedInstanceIsSkippedAndAKeyedChoiceMovesToTheNextOwner() {
        DiscoveryPeerGroup g = group(Duration.ofSeconds(1));
        g.update(List.of(new DiscoveryPeerGroup.Instance("a", A), new DiscoveryPeerGroup.Instance("b", B)));
        for (int k = 0; k < 50; k++) {
            InetSocketAddress owner = g.choose("key-" + k, List.of());
            InetSocketAddress other = owner.equals(A) ? B : A;
            assertThat(g.choose("key-" + k, List.of(owner))).isEqualTo(other);
            assertThat(g.choose("key-" + k, List.of(A, B))).isNull();
            assertThat(g.choose(null, List.of(owner))).isEqualTo(other);
        }
    }
}
