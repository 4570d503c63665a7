package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.reliableudp.spring.core.UdpRttSampleSource;
import io.reliableudp.spring.core.UdpRttSampleSubscriber;
import io.reliableudp.spring.boot.metrics.StatsFlattener.Key;
import io.reliableudp.spring.boot.metrics.StatsFlattener.Values;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReliableUdpNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The meters of one node in one registry. {@link #refresh()} snapshots the node and its peers and
 * publishes the values into cells the meters read. The gauges of a meter name are the rows of one
 * Micrometer {@link MultiGauge} (tags {@code node}, then {@code peer} and the extra tags of each row):
 * every refresh hands it the rows that exist now, and it registers the new ones and removes those whose
 * peer or channel went. Counters and time gauges have no such multi-row meter in Micrometer (a
 * {@code MultiGauge} row is a plain {@code Gauge}: a counter there would lose its counter type, the
 * {@code _total} of Prometheus and its rate semantics; a time gauge its unit conversion), so they are
 * registered and removed here along the same rows.
 *
 * <p>Peers are grouped by name: a configured peer is its own group; every other peer falls in the
 * group {@value io.reliableudp.spring.core.UdpPeerDirectory#OTHER}, whose counters are the sum over its peers (kept monotonic:
 * the last counts of a departed peer stay in the sum) and whose gauges merge as each
 * {@link MeterSpec.Merge} says. Not thread-safe: the owner serialises calls, except
 * {@link #onRttSample}, which the node calls on its receive thread for every RTT sample: it records
 * into the {@code reliable.udp.rtt.samples} timer of the peer's group, found with two map lookups
 * (address to name, name to timer) and no allocation.
 */
final class NodeMetrics implements UdpRttSampleSubscriber {

    /** Bound on meters per group, against a core that would report unbounded counter names or channels. */
    static final int MAX_METERS_PER_GROUP = 4096;

    private static final System.Logger LOG = System.getLogger(NodeMetrics.class.getName());

    /** RTT histogram buckets (service level objectives), in milliseconds. */
    private static final long[] RTT_BUCKETS_MILLIS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};

    private final String nodeName;
    private final ReliableUdpNode node;
    private final MeterRegistry registry;
    private final UdpPeerDirectory names;
    private final boolean expectEveryConfiguredPeer;
    private final MeterSet nodeMeters;
    /** One multi-row gauge per gauge meter name. */
    private final Map<MeterSpec, MultiGauge> multiGauges = new LinkedHashMap<>();
    private final Map<String, Group> groups = new TreeMap<>();
    private final Set<String> seenConfiguredPeers = new HashSet<>();
    private Map<Key, Double> lastNodeCounters = Map.of();
    /** The RTT timer of each group name; written by both threads, under itself when registering or removing. */
    private final Map<String, Timer> rttTimers = new ConcurrentHashMap<>();
    private final Function<String, Timer> newRttTimer = this::registerRttTimer;
    private volatile boolean closed;

    NodeMetrics(String nodeName, ReliableUdpNode node, MeterRegistry registry, UdpPeerDirectory names,
            boolean expectEveryConfiguredPeer) {
        this.nodeName = nodeName;
        this.node = node;
        this.registry = registry;
        this.names = names;
        this.expectEveryConfiguredPeer = expectEveryConfiguredPeer;
        this.nodeMeters = new MeterSet(Tags.empty());
        for (MeterSpec spec : MeterSpec.ALL.values()) {
            if (spec.type() == MeterSpec.Type.GAUGE) {
                multiGauges.put(spec, MultiGauge.builder(spec.name()).tags("node", nodeName)
                        .baseUnit(spec.baseUnit()).description(spec.description()).register(registry));
            }
        }
    }

    String nodeName() {
        return nodeName;
    }

    /** Subscribes to the node's RTT samples, when it offers them (again after {@link #close()}). */
    void subscribe() {
        synchronized (rttTimers) {
            closed = false;
        }
        if (node instanceof UdpRttSampleSource source) {
            source.addRttSampleSubscriber(this);
        }
    }

    /** Records one RTT sample (receive thread). */
    @Override
    public void onRttSample(Peer peer, float rttMillis) {
        if (!(rttMillis >= 0) || closed) {
            return;
        }
        Timer timer = rttTimer(names.tagName(peer));
        if (timer != null) {
            timer.record((long) (rttMillis * 1e6), TimeUnit.NANOSECONDS);
        }
    }

    /** The RTT timer of a group, registered on first use; null once closed. */
    private @Nullable Timer rttTimer(String name) {
        Timer timer = rttTimers.get(name);
        if (timer != null) {
            return timer;
        }
        synchronized (rttTimers) {
            return closed ? null : rttTimers.computeIfAbsent(name, newRttTimer);
        }
    }

    private Timer registerRttTimer(String name) {
        return Timer.builder(MeterSpec.RTT_SAMPLES.name())
                .description(MeterSpec.RTT_SAMPLES.description())
                .tags(Tags.of("node", nodeName, "peer", name))
                .serviceLevelObjectives(rttBuckets())
                .register(registry);
    }

    private void removeRttTimer(String name) {
        synchronized (rttTimers) {
            Timer timer = rttTimers.remove(name);
            if (timer != null) {
                registry.remove(timer);
            }
        }
    }

    void refresh() {
        boolean open = node.isOpen();
        if (open) {
            Values nodeValues = StatsFlattener.node(node.stats(), true);
            lastNodeCounters = nodeValues.counters;
            nodeMeters.publish(nodeValues.counters, nodeValues.gauges);
        } else {
            // a closed (or not yet started) node may refuse stats(): keep the last counts, zero the gauges
            nodeMeters.publish(lastNodeCounters, Map.of(Key.of(MeterSpec.NODE_OPEN), 0.0, Key.of(MeterSpec.CONNECTIONS), 0.0));
        }

        Map<String, List<Peer>> live = new TreeMap<>();
        if (open) {
            for (Peer peer : node.peers()) {
                String name = names.tagName(peer);
                live.computeIfAbsent(name, n -> new ArrayList<>()).add(peer);
                if (!UdpPeerDirectory.OTHER.equals(name)) {
                    seenConfiguredPeers.add(name);
                }
            }
        }
        for (String name : names.byName().keySet()) {
            if (expectEveryConfiguredPeer || seenConfiguredPeers.contains(name)) {
                groups.computeIfAbsent(name, Group::new).expected = true;
            }
        }
        for (String name : live.keySet()) {
            groups.computeIfAbsent(name, Group::new);
        }
        // a peer that sent samples and went before any refresh: its group removes the timer
        for (String name : rttTimers.keySet()) {
            groups.computeIfAbsent(name, Group::new);
        }
        for (Group group : groups.values()) {
            group.update(live.getOrDefault(group.name, List.of()));
        }
        // every gauge row that exists now: the multi-gauges register new rows and remove the rows that went
        Map<MeterSpec, List<MultiGauge.Row<?>>> rows = new HashMap<>();
        nodeMeters.addRows(rows);
        for (Group group : groups.values()) {
            group.meters.addRows(rows);
        }
        multiGauges.forEach((spec, gauge) -> gauge.register(rows.getOrDefault(spec, List.of()), false));
    }

    /** Stops taking RTT samples and removes every meter of this node. */
    void close() {
        if (node instanceof UdpRttSampleSource source) {
            source.removeRttSampleSubscriber(this);
        }
        synchronized (rttTimers) {
            closed = true;
            rttTimers.values().forEach(registry::remove);
            rttTimers.clear();
        }
        nodeMeters.removeAll();
        for (Group group : groups.values()) {
            group.meters.removeAll();
        }
        multiGauges.values().forEach(gauge -> gauge.register(List.of(), false));
    }

    /** The peers of one name, with the counts of departed ones. */
    private final class Group {
        final String name;
        final MeterSet meters;
        final Map<Peer, Map<Key, Double>> lastCounters = new IdentityHashMap<>();
        final Map<Key, Double> retired = new HashMap<>();
        boolean expected;

        Group(String name) {
            this.name = name;
            this.meters = new MeterSet(Tags.of("peer", name));
        }

        void update(List<Peer> livePeers) {
            Set<Peer> liveSet = Collections.newSetFromMap(new IdentityHashMap<>());
            liveSet.addAll(livePeers);
            for (Iterator<Map.Entry<Peer, Map<Key, Double>>> it = lastCounters.entrySet().iterator(); it.hasNext();) {
                Map.Entry<Peer, Map<Key, Double>> departed = it.next();
                if (!liveSet.contains(departed.getKey())) {
                    Map<Key, Double> last = finalCounters(departed.getKey(), departed.getValue());
                    last.forEach((k, value) -> retired.merge(k, value, Double::sum));
                    it.remove();
                }
            }
            Map<Key, Double> counters = new HashMap<>();
            Map<Key, GaugeMerge> gauges = new HashMap<>();
            for (Peer peer : livePeers) {
                PeerStats stats = peer.stats();
                Values v = StatsFlattener.peer(stats);
                lastCounters.put(peer, v.counters);
                v.counters.forEach((k, value) -> counters.merge(k, value, Double::sum));
                v.gauges.forEach((k, value) -> gauges.computeIfAbsent(k, x -> new GaugeMerge(k.spec().merge())).add(value));
            }
            // counters of departed peers count only for keys a live peer still produces
            counters.replaceAll((k, v) -> v + retired.getOrDefault(k, 0.0));
            Map<Key, Double> gaugeValues = new HashMap<>();
            gauges.forEach((k, m) -> gaugeValues.put(k, m.value()));
            if (expected) {
                gaugeValues.putIfAbsent(Key.of(MeterSpec.PEER_CONNECTED), 0.0);
            }
            meters.publish(counters, gaugeValues);
            // the RTT timer (fed by onRttSample) lives while the group has peers, so it shows from the start
            if (livePeers.isEmpty()) {
                removeRttTimer(name);
            } else {
                rttTimer(name);
            }
        }

        private Map<Key, Double> finalCounters(Peer peer, Map<Key, Double> last) {
            try {
                Map<Key, Double> now = StatsFlattener.peer(peer.stats()).counters;
                // never less than what was published: counters stay monotonic
                last.forEach((k, v) -> now.merge(k, v, Math::max));
                return now;
            } catch (RuntimeException e) {
                return last;
            }
        }
    }

    private static Duration[] rttBuckets() {
        Duration[] buckets = new Duration[RTT_BUCKETS_MILLIS.length];
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = Duration.ofMillis(RTT_BUCKETS_MILLIS[i]);
        }
        return buckets;
    }

    /** Merges the gauge values of several peers. */
    private static final class GaugeMerge {
        private final MeterSpec.Merge merge;
        private double acc;
        private int n;

        GaugeMerge(MeterSpec.Merge merge) {
            this.merge = merge;
        }

        void add(double value) {
            if (n == 0) {
                acc = value;
            } else {
                acc = switch (merge) {
                    case SUM, MEAN -> acc + value;
                    case MIN -> Math.min(acc, value);
                    case MAX -> Math.max(acc, value);
                };
            }
            n++;
        }

        double value() {
            return merge == MeterSpec.Merge.MEAN && n > 0 ? acc / n : acc;
        }
    }

    /** A value the meters read; written by refresh, read by any scraping thread. */
    static final class Cell {
        private volatile double value;

        double get() {
            return value;
        }

        void set(double v) {
            value = v;
        }
    }

    /**
     * The cells of one tag set (the node's, or one peer group's), keyed by meter and extra tags; the
     * counters and time gauges among them registered here, the gauges handed to the multi-gauges as rows.
     */
    private final class MeterSet {
        /** Tags beyond {@code node}: the {@code peer} of a group, none for the node's own meters. */
        final Tags rowTags;
        private final Map<Key, Cell> cells = new HashMap<>();
        private final Map<Key, Meter> registered = new HashMap<>();
        private Set<Key> present = Set.of();
        private boolean warned;

        MeterSet(Tags rowTags) {
            this.rowTags = rowTags;
        }

        /** Drops what is no longer produced, updates values, creates cells (and meters) for what is new. */
        void publish(Map<Key, Double> counters, Map<Key, Double> gauges) {
            present = new HashSet<>(counters.keySet());
            present.addAll(gauges.keySet());
            cells.keySet().removeIf(k -> {
                if (present.contains(k) || k.spec().type() == MeterSpec.Type.GAUGE) {
                    return false;   // a gauge's cell goes with its row (addRows)
                }
                Meter meter = registered.remove(k);
                if (meter != null) {
                    registry.remove(meter);
                }
                return true;
            });
            counters.forEach((k, v) -> {
                Cell cell = cell(k);
                if (cell != null) {
                    cell.set(Math.max(cell.get(), v)); // monotonic even if a snapshot went back
                }
            });
            gauges.forEach((k, v) -> {
                Cell cell = cell(k);
                if (cell != null) {
                    cell.set(v);
                }
            });
        }

        /**
         * Adds a row per gauge published last, by meter; the cells of gauges no longer published go, and
         * their rows, left out, are removed by the multi-gauge.
         */
        void addRows(Map<MeterSpec, List<MultiGauge.Row<?>>> rows) {
            cells.keySet().removeIf(k -> k.spec().type() == MeterSpec.Type.GAUGE && !present.contains(k));
            cells.forEach((key, cell) -> {
                if (key.spec().type() == MeterSpec.Type.GAUGE) {
                    rows.computeIfAbsent(key.spec(), s -> new ArrayList<>()).add(MultiGauge.Row.of(rowTags.and(key.tags()), cell, Cell::get));
                }
            });
        }

        private @Nullable Cell cell(Key key) {
            Cell cell = cells.get(key);
            if (cell != null) {
                return cell;
            }
            if (cells.size() >= MAX_METERS_PER_GROUP) {
                if (!warned) {
                    warned = true;
                    LOG.log(System.Logger.Level.WARNING, "reliable-udp metrics: more than {0} meters for node {1} {2}; ignoring {3}{4}",
                            MAX_METERS_PER_GROUP, nodeName, rowTags, key.spec().name(), key.tags());
                }
                return null;
            }
            cell = new Cell();
            cells.put(key, cell);
            if (key.spec().type() != MeterSpec.Type.GAUGE) {
                registered.put(key, register(key, cell));
            }
            return cell;
        }

        private Meter register(Key key, Cell cell) {
            MeterSpec spec = key.spec();
            Tags tags = Tags.of("node", nodeName).and(rowTags).and(key.tags());
            return switch (spec.type()) {
                case COUNTER -> FunctionCounter.builder(spec.name(), cell, Cell::get)
                        .tags(tags).baseUnit(spec.baseUnit()).description(spec.description()).register(registry);
                case TIME_GAUGE -> TimeGauge.builder(spec.name(), cell, TimeUnit.SECONDS, Cell::get)
                        .tags(tags).description(spec.description()).strongReference(true).register(registry);
                case GAUGE -> throw new IllegalStateException("gauges are rows of their multi-gauge: " + spec.name());
                case TIMER -> throw new IllegalStateException("timers are registered by their group: " + spec.name());
            };
        }

        void removeAll() {
            registered.values().forEach(registry::remove);
            registered.clear();
            cells.clear();
        }
    }
}
