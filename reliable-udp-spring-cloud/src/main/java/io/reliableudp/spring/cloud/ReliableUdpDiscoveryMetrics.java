package io.reliableudp.spring.cloud;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer meters of the discovery-backed peers, tagged {@code service} (the peer name) and, per
 * instance, {@code instance} (the discovery instance id):
 * <ul>
 * <li>{@code reliable.udp.discovery.instances} (gauge, {@code service}, {@code state} routable|draining)</li>
 * <li>{@code reliable.udp.discovery.instance.in.flight} (gauge, {@code service}, {@code instance}): messages
 * handed to the instance's connection and not yet settled; removed when the instance has drained</li>
 * <li>{@code reliable.udp.discovery.instance.changes} (counter, {@code service}, {@code instance},
 * {@code change} joined|departed|drained|drain-timed-out)</li>
 * <li>{@code reliable.udp.discovery.instance.rejected} (counter, {@code service}, {@code instance}): a
 * discovered instance without a usable UDP port or host, once per instance and reason</li>
 * <li>{@code reliable.udp.discovery.refresh.failures} (function counter): re-resolutions where the
 * DiscoveryClient threw</li>
 * </ul>
 * Instance tags grow with the instances a service has had since start (a restarted pod has a new id):
 * in-flight gauges are removed on drain, the counters stay (Micrometer has no expiry of its own).
 */
public final class ReliableUdpDiscoveryMetrics implements MeterBinder {

    private final DiscoveryPeerGroups groups;
    private final Map<String, Gauge> inFlightGauges = new ConcurrentHashMap<>();

    /**
     * Creates the binder.
     *
     * @param groups the groups
     */
    public ReliableUdpDiscoveryMetrics(DiscoveryPeerGroups groups) {
        this.groups = Objects.requireNonNull(groups, "groups");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        io.micrometer.core.instrument.FunctionCounter.builder("reliable.udp.discovery.refresh.failures", groups,
                DiscoveryPeerGroups::refreshFailureCount).description("re-resolutions where the DiscoveryClient threw").register(registry);
        for (DiscoveryPeerGroup g : groups.peerGroups()) {
            Gauge.builder("reliable.udp.discovery.instances", g, x -> count(x, DiscoveryPeerGroup.InstanceState.ROUTABLE))
                    .tags("service", g.name(), "state", "routable").description("instances messages are routed to").register(registry);
            Gauge.builder("reliable.udp.discovery.instances", g, x -> count(x, DiscoveryPeerGroup.InstanceState.DRAINING))
                    .tags("service", g.name(), "state", "draining").description("departed instances whose connection drains").register(registry);
            g.addListener(new DiscoveryPeerGroup.Listener() {
                @Override
                public void joined(DiscoveryPeerGroup group, DiscoveryPeerGroup.Instance instance) {
                    change(registry, group, instance, "joined");
                    inFlightGauges.computeIfAbsent(group.name() + '\u0000' + instance.id(), k -> Gauge
                            .builder("reliable.udp.discovery.instance.in.flight", group, x -> x.inFlight(instance.address()))
                            .tags("service", group.name(), "instance", instance.id())
                            .description("messages in flight to the instance").register(registry));
                }

                @Override
                public void departed(DiscoveryPeerGroup group, DiscoveryPeerGroup.Instance instance, int inFlight) {
                    change(registry, group, instance, "departed");
                }

                @Override
                public void drained(DiscoveryPeerGroup group, DiscoveryPeerGroup.Instance instance, boolean timedOut, int stillInFlight) {
                    change(registry, group, instance, timedOut ? "drain-timed-out" : "drained");
                    Gauge gauge = inFlightGauges.remove(group.name() + '\u0000' + instance.id());
                    if (gauge != null) {
                        registry.remove(gauge);
                    }
                }
            });
            // instances that joined before the binder was bound
            g.members().keySet().forEach(i -> inFlightGauges.computeIfAbsent(g.name() + '\u0000' + i.id(), k -> Gauge
                    .builder("reliable.udp.discovery.instance.in.flight", g, x -> x.inFlight(i.address()))
                    .tags("service", g.name(), "instance", i.id()).register(registry)));
        }
        groups.addRejectionListener((group, instanceId, reason) -> Counter.builder("reliable.udp.discovery.instance.rejected")
                .tags(Tags.of("service", group.name(), "instance", instanceId))
                .description("discovered instances without a usable UDP port or host").register(registry).increment());
    }

    private static void change(MeterRegistry registry, DiscoveryPeerGroup group, DiscoveryPeerGroup.Instance instance, String change) {
        Counter.builder("reliable.udp.discovery.instance.changes")
                .tags("service", group.name(), "instance", instance.id(), "change", change)
                .description("instances joining, departing and drained").register(registry).increment();
    }

    private static double count(DiscoveryPeerGroup g, DiscoveryPeerGroup.InstanceState state) {
        return g.members().values().stream().filter(s -> s == state).count();
    }
}
