package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.reliableudp.transport.ReliableUdpNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

/**
 * Publishes the statistics of reliable-UDP nodes as Micrometer meters (catalogue in
 * {@code docs/metrics.md}). Every {@code refresh-interval} it reads each node's and each peer's
 * statistics once, registers the meters of peers that appeared and removes those of peers that
 * went; scrapes only read published values, they never call into the node. The one exception is
 * the {@code reliable.udp.rtt.samples} timer: a node that is a
 * {@link io.reliableudp.spring.core.UdpRttSampleSource} (the starter's node) hands it every RTT sample
 * the packet layer takes, on its receive thread, from {@link #start()} to {@link #stop()}.
 *
 * <p>Tags are bounded: {@code node} is the node's bean name, {@code peer} the configured name of
 * the peer ({@code reliable-udp.peers.<name>.address}) or {@value io.reliableudp.spring.core.UdpPeerDirectory#OTHER} (the sum or
 * mean over all unnamed peers), {@code channel} the channel index.
 *
 * <p>A {@link MeterBinder}: Boot binds it to the application's registry (each registry, when there
 * are several and no composite) as it binds every binder bean. A {@link SmartLifecycle}: starts after
 * the nodes exist, stops (removing its meters) before they close. A failing refresh is logged and
 * counted; it never stops the schedule.
 */
public final class ReliableUdpMetrics implements MeterBinder, SmartLifecycle {

    private static final System.Logger LOG = System.getLogger(ReliableUdpMetrics.class.getName());

    private final Map<String, ReliableUdpNode> nodeBeans;
    private final UdpPeerDirectory names;
    private final List<MeterRegistry> registries = new ArrayList<>();
    private final List<NodeMetrics> nodes = new ArrayList<>();
    private final Duration refreshInterval;
    private final AtomicLong refreshFailures = new AtomicLong();
    private final @Nullable TaskScheduler taskScheduler;
    private @Nullable ScheduledFuture<?> schedule;
    private @Nullable SimpleAsyncTaskScheduler ownScheduler;
    private volatile boolean running;

    /**
     * Creates the meters' publisher.
     *
     * @param nodes the nodes by name (the {@code node} tag)
     * @param names the configured peer names
     * @param refreshInterval how often statistics are read
     * @param taskScheduler runs the refresh (the application's scheduler), or null for one of its own
     */
    public ReliableUdpMetrics(Map<String, ReliableUdpNode> nodes, UdpPeerDirectory names,
            Duration refreshInterval, @Nullable TaskScheduler taskScheduler) {
        this.nodeBeans = Map.copyOf(nodes);
        this.names = names;
        this.taskScheduler = taskScheduler;
        this.refreshInterval = refreshInterval;
    }

    /**
     * Adds the meters of every node to a registry (once per registry); when already started, they are
     * refreshed at once.
     *
     * @param registry where the meters go
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        if (registries.stream().anyMatch(r -> r == registry)) {
            return;
        }
        registries.add(registry);
        boolean single = nodeBeans.size() == 1;
        nodeBeans.forEach((name, node) -> {
            NodeMetrics metrics = new NodeMetrics(name, node, registry, names, single);
            nodes.add(metrics);
            if (running) {
                metrics.subscribe();
                refresh(metrics);
            }
        });
    }

    /** Reads every node's statistics into the meters now (also called on schedule). Never throws. */
    public synchronized void refresh() {
        for (NodeMetrics node : nodes) {
            refresh(node);
        }
    }

    private void refresh(NodeMetrics node) {
        try {
            node.refresh();
        } catch (RuntimeException e) {
            long n = refreshFailures.incrementAndGet();
            if (n == 1 || n % 1000 == 0) {
                LOG.log(System.Logger.Level.WARNING, "reliable-udp metrics: refresh of node " + node.nodeName()
                        + " failed (" + n + " failures so far)", e);
            }
        }
    }

    /** Refreshes that failed (logged). */
    public long refreshFailures() {
        return refreshFailures.get();
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        for (NodeMetrics node : nodes) {
            node.subscribe();
        }
        refresh();
        TaskScheduler scheduler = taskScheduler;
        if (scheduler == null) {
            SimpleAsyncTaskScheduler own = new SimpleAsyncTaskScheduler();
            own.setThreadNamePrefix("reliable-udp-metrics-");
            ownScheduler = own;
            scheduler = own;
        }
        schedule = scheduler.scheduleAtFixedRate(this::refresh, Instant.now().plus(refreshInterval), refreshInterval);
        running = true;
    }

    @Override
    public synchronized void stop() {
        ScheduledFuture<?> s = schedule;
        if (s != null) {
            s.cancel(false);
            schedule = null;
        }
        SimpleAsyncTaskScheduler own = ownScheduler;
        if (own != null) {
            own.close();
            ownScheduler = null;
        }
        for (NodeMetrics node : nodes) {
            node.close();
        }
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
