package io.reliableudp.spring.cloud;

import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.spring.core.UdpPeerGroup;
import io.reliableudp.transport.PeerKey;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;

/**
 * The instances of one discovery service behind one peer name ({@code reliable-udp.peers.<name>.service-id}):
 * membership as last resolved, the choice of an instance per message (by key on a {@link UdpHashRing},
 * else by the {@link Balancer}), and the draining of departed instances.
 *
 * <p>An instance that departs stops being routable at once (new messages go elsewhere; messages not
 * yet handed to its connection are re-routed by the directory); its connection stays open while
 * messages handed to it are in flight, and is closed when the last one completed or after the drain
 * timeout, whichever comes first: what is still in flight then fails with the transport's reason
 * ({@code CLOSED}), named as a departure. An instance that comes back while draining is routable again
 * and keeps its connection.
 *
 * <p>Thread-safe: membership changes under the group's lock and are published as one immutable
 * snapshot; {@link #isMember}, {@link #isRoutable} and keyed {@link #choose} read the snapshot only.
 */
public final class DiscoveryPeerGroup implements UdpPeerGroup {

    private static final Log logger = LogFactory.getLog(DiscoveryPeerGroup.class);

    /** Where an instance is in its life in the group. */
    public enum InstanceState {
        /** Discovered: messages are routed to it. */
        ROUTABLE,
        /** Departed from discovery: no new message goes to it; its connection closes when drained. */
        DRAINING
    }

    /**
     * One discovered instance with a usable UDP address.
     *
     * @param id the discovery instance id (else {@code host:port})
     * @param address the UDP address
     * @param publicKey the X25519 public key the instance registered in its metadata, or null when it registered none
     */
    public record Instance(String id, InetSocketAddress address, @Nullable PeerKey publicKey) {

        /**
         * An instance that registered no public key.
         *
         * @param id the discovery instance id
         * @param address the UDP address
         */
        public Instance(String id, InetSocketAddress address) {
            this(id, address, null);
        }
    }

    /** Chooses an instance for a message without a key. */
    @FunctionalInterface
    public interface Balancer {
        /**
         * Chooses.
         *
         * @param group the group (instance ids: {@link DiscoveryPeerGroup#addressOfInstance})
         * @param routable the routable instances, in a stable order, never empty
         * @param excluded instances that already failed to take this message
         * @return one of {@code routable} not in {@code excluded}, or null for none
         */
        @Nullable InetSocketAddress choose(DiscoveryPeerGroup group, List<InetSocketAddress> routable,
                Collection<InetSocketAddress> excluded);
    }

    /** What the group tells metrics and logs. */
    public interface Listener {
        /**
         * An instance joined.
         *
         * @param group the group
         * @param instance the instance
         */
        default void joined(DiscoveryPeerGroup group, Instance instance) {
        }

        /**
         * An instance departed and drains.
         *
         * @param group the group
         * @param instance the instance
         * @param inFlight messages in flight to it at that moment
         */
        default void departed(DiscoveryPeerGroup group, Instance instance, int inFlight) {
        }

        /**
         * A departed instance's connection was closed.
         *
         * @param group the group
         * @param instance the instance
         * @param timedOut true when messages were still in flight at the drain timeout (they fail)
         * @param stillInFlight how many were
         */
        default void drained(DiscoveryPeerGroup group, Instance instance, boolean timedOut, int stillInFlight) {
        }
    }

    /** Opens and closes connections for the group (the node's peer directory). */
    public interface Connections {
        /**
         * Connects to an instance (without waiting).
         *
         * @param address the instance
         */
        void connect(InetSocketAddress address);

        /**
         * Closes the connection to an instance, failing what is still pending.
         *
         * @param address the instance
         */
        void disconnect(InetSocketAddress address);

        /**
         * Whether a connection to the instance is up.
         *
         * @param address the instance
         * @return true when connected
         */
        boolean isConnected(InetSocketAddress address);
    }

    private final String name;
    private final String serviceId;
    private final @Nullable Integer configuredPort;
    private final int virtualNodes;
    private final Balancer balancer;
    private final Duration drainTimeout;
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();

    private volatile Snapshot snapshot = Snapshot.EMPTY;
    private volatile @Nullable Connections connections;
    private volatile @Nullable TaskScheduler scheduler;
    /** Instance id to why it was rejected (no port, bad port, unresolvable host), as last resolved. */
    private volatile Map<String, String> rejected = Map.of();

    /**
     * Creates an empty group.
     *
     * @param name the peer name
     * @param serviceId the discovery service id
     * @param configuredPort the UDP port of instances whose metadata names none, or null
     * @param virtualNodes ring points per instance
     * @param balancer the choice without a key
     * @param drainTimeout how long a departed instance's in-flight messages may take
     */
    public DiscoveryPeerGroup(String name, String serviceId, @Nullable Integer configuredPort, int virtualNodes,
            Balancer balancer, Duration drainTimeout) {
        this.name = Objects.requireNonNull(name, "name");
        this.serviceId = Objects.requireNonNull(serviceId, "serviceId");
        this.configuredPort = configuredPort;
        if (virtualNodes < 1) {
            throw new IllegalArgumentException("virtualNodes must be >= 1, was " + virtualNodes);
        }
        this.virtualNodes = virtualNodes;
        this.balancer = Objects.requireNonNull(balancer, "balancer");
        this.drainTimeout = Objects.requireNonNull(drainTimeout, "drainTimeout");
    }

    /** A balancer that takes the routable instances in turn. */
    public static Balancer roundRobin() {
        AtomicInteger next = new AtomicInteger();
        return (group, routable, excluded) -> {
            int start = Math.floorMod(next.getAndIncrement(), routable.size());
            for (int i = 0; i < routable.size(); i++) {
                InetSocketAddress a = routable.get((start + i) % routable.size());
                if (!excluded.contains(a)) {
                    return a;
                }
            }
            return null;
        };
    }

    @Override
    public String name() {
        return name;
    }

    /** The discovery service id. */
    public String serviceId() {
        return serviceId;
    }

    /** The configured fallback UDP port, or null. */
    public @Nullable Integer configuredPort() {
        return configuredPort;
    }

    /**
     * Adds a listener.
     *
     * @param listener the listener
     */
    public void addListener(Listener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Attaches the connections and the scheduler of drain timeouts (when the node runs).
     *
     * @param connections the node's connections, or null to detach
     * @param scheduler runs drain timeouts
     */
    public void attach(@Nullable Connections connections, @Nullable TaskScheduler scheduler) {
        this.connections = connections;
        this.scheduler = scheduler;
    }

    @Override
    public List<InetSocketAddress> instances() {
        return snapshot.routable;
    }

    /**
     * Every member (routable and draining) with its state, in order.
     *
     * @return address to state
     */
    public Map<Instance, InstanceState> members() {
        Map<Instance, InstanceState> m = new LinkedHashMap<>();
        for (Member member : snapshot.members.values()) {
            m.put(member.instance, member.state);
        }
        return m;
    }

    /**
     * Messages in flight to an instance (handed to its connection, not yet acknowledged or failed).
     *
     * @param address the instance
     * @return the count (0 for a non-member)
     */
    public int inFlight(InetSocketAddress address) {
        Member m = snapshot.members.get(address);
        return m == null ? 0 : m.inFlight.get();
    }

    /** Discovered instances that were rejected, by instance id, with the reason (as last resolved). */
    public Map<String, String> rejected() {
        return rejected;
    }

    void setRejected(Map<String, String> now) {
        this.rejected = Collections.unmodifiableMap(new LinkedHashMap<>(now));
    }

    /**
     * The address of a routable instance by its discovery id.
     *
     * @param instanceId the id
     * @return the address, or null
     */
    public @Nullable InetSocketAddress addressOfInstance(String instanceId) {
        return snapshot.byId.get(instanceId);
    }

    @Override
    public @Nullable InetSocketAddress choose(@Nullable Object key, Collection<InetSocketAddress> excluded) {
        Snapshot s = snapshot;
        if (s.routable.isEmpty()) {
            return null;
        }
        if (key != null) {
            return s.ring.owner(key, excluded);
        }
        InetSocketAddress chosen = balancer.choose(this, s.routable, excluded);
        // a balancer that answers with a stale or excluded instance is overruled: the ring's next one
        if (chosen != null && s.isRoutable(chosen) && !excluded.contains(chosen)) {
            return chosen;
        }
        return roundRobinFallback(s, excluded);
    }

    private final AtomicInteger fallback = new AtomicInteger();

    private @Nullable InetSocketAddress roundRobinFallback(Snapshot s, Collection<InetSocketAddress> excluded) {
        int start = Math.floorMod(fallback.getAndIncrement(), s.routable.size());
        for (int i = 0; i < s.routable.size(); i++) {
            InetSocketAddress a = s.routable.get((start + i) % s.routable.size());
            if (!excluded.contains(a)) {
                return a;
            }
        }
        return null;
    }

    @Override
    public boolean isMember(InetSocketAddress address) {
        return snapshot.members.containsKey(address);
    }

    @Override
    public boolean isRoutable(InetSocketAddress address) {
        return snapshot.isRoutable(address);
    }

    @Override
    public void handedOff(InetSocketAddress instance, CompletableFuture<?> outcome) {
        Member m = snapshot.members.get(instance);
        if (m == null) {
            return;
        }
        m.inFlight.incrementAndGet();
        outcome.whenComplete((r, e) -> {
            if (m.inFlight.decrementAndGet() == 0 && m.state == InstanceState.DRAINING) {
                finishDrain(m, false);
            }
        });
    }

    @Override
    public String instanceLabel(InetSocketAddress instance) {
        Member m = snapshot.members.get(instance);
        return m == null ? UdpAddresses.format(instance) : m.instance.id + " (" + UdpAddresses.format(instance) + ")";
    }

    /**
     * Replaces the membership with what discovery returned: new instances join (and are connected),
     * missing ones depart (and drain), departed ones that are back are routable again.
     *
     * @param discovered the instances now, with usable addresses
     * @return the instances that joined
     */
    public List<Instance> update(List<Instance> discovered) {
        List<Instance> joined = new ArrayList<>();
        List<Member> departed = new ArrayList<>();
        synchronized (lock) {
            Snapshot s = snapshot;
            Map<InetSocketAddress, Member> next = new LinkedHashMap<>();
            for (Instance i : discovered) {
                if (next.containsKey(i.address())) {
                    continue;   // two registrations of one address: one member
                }
                Member m = s.members.get(i.address());
                if (m == null || !m.instance.id.equals(i.id())) {
                    if (m != null) {
                        departed.add(m);   // a new instance reuses the address of an old one
                    }
                    m = new Member(i);
                    joined.add(i);
                } else if (m.state == InstanceState.DRAINING) {
                    m.revive();
                    logger.info("reliable-udp service '" + name + "': instance " + i.id() + " is back while draining; routable again");
                }
                next.put(i.address(), m);
            }
            for (Member m : s.members.values()) {
                if (!next.containsKey(m.instance.address()) && m.state == InstanceState.ROUTABLE) {
                    departed.add(m);
                }
            }
            for (Member m : departed) {
                m.state = InstanceState.DRAINING;
            }
            // draining members stay members (inbound naming, in-flight counting) until drained
            for (Member m : s.members.values()) {
                if (m.state == InstanceState.DRAINING && !next.containsKey(m.instance.address())) {
                    next.put(m.instance.address(), m);
                }
            }
            snapshot = new Snapshot(next, virtualNodes);
        }
        for (Instance i : joined) {
            logger.info("reliable-udp service '" + name + "': instance " + i.id() + " joined at " + UdpAddresses.format(i.address()));
            listeners.forEach(l -> l.joined(this, i));
            Connections c = connections;
            if (c != null) {
                c.connect(i.address());
            }
        }
        for (Member m : departed) {
            int inFlight = m.inFlight.get();
            logger.info("reliable-udp service '" + name + "': instance " + m.instance.id() + " departed; draining "
                    + inFlight + " message(s) in flight (up to " + drainTimeout + ")");
            listeners.forEach(l -> l.departed(this, m.instance, inFlight));
            startDrain(m);
        }
        return joined;
    }

    /** Connects to routable instances whose connection is down (called on every refresh). */
    void reconnectRoutable() {
        Connections c = connections;
        if (c == null) {
            return;
        }
        for (InetSocketAddress a : snapshot.routable) {
            try {
                if (!c.isConnected(a)) {
                    c.connect(a);
                }
            } catch (RuntimeException e) {
                logger.debug("reliable-udp service '" + name + "': connect to " + a + " failed: " + e);
            }
        }
    }

    private void startDrain(Member m) {
        if (m.inFlight.get() == 0) {
            finishDrain(m, false);
            return;
        }
        TaskScheduler s = scheduler;
        if (s == null) {
            finishDrain(m, true);
            return;
        }
        int generation = m.generation.get();
        try {
            m.timeout = s.schedule(() -> {
                if (m.generation.get() == generation) {
                    finishDrain(m, true);
                }
            }, Instant.now().plus(drainTimeout));
        } catch (RuntimeException e) {
            finishDrain(m, true);
        }
        if (m.inFlight.get() == 0) {
            finishDrain(m, false);   // the last one completed while the timeout was being scheduled
        }
    }

    private void finishDrain(Member m, boolean timedOut) {
        int still;
        boolean ours;
        synchronized (lock) {
            if (m.state != InstanceState.DRAINING || m.drained) {
                return;
            }
            ours = snapshot.members.get(m.instance.address()) == m;   // not when a new instance took the address
            m.drained = true;
            ScheduledFuture<?> t = m.timeout;
            if (t != null) {
                t.cancel(false);
            }
            still = m.inFlight.get();
        }
        Connections c = connections;
        if (c != null && ours) {
            try {
                c.disconnect(m.instance.address());   // what is still pending fails with CLOSED (named as a departure)
            } catch (RuntimeException e) {
                logger.debug("reliable-udp service '" + name + "': disconnect of " + m.instance.id() + " failed: " + e);
            }
        }
        synchronized (lock) {
            Snapshot s = snapshot;
            if (s.members.get(m.instance.address()) == m) {
                Map<InetSocketAddress, Member> next = new LinkedHashMap<>(s.members);
                next.remove(m.instance.address());
                snapshot = new Snapshot(next, virtualNodes);
            }
        }
        if (timedOut && still > 0) {
            logger.warn("reliable-udp service '" + name + "': instance " + m.instance.id() + " closed at the drain timeout with "
                    + still + " message(s) in flight; they fail with CLOSED (they may have arrived)");
        } else {
            logger.info("reliable-udp service '" + name + "': instance " + m.instance.id() + " drained and closed");
        }
        listeners.forEach(l -> l.drained(this, m.instance, timedOut && still > 0, still));
    }

    @Override
    public String toString() {
        return "DiscoveryPeerGroup[" + name + " = service " + serviceId + ", " + snapshot.routable + "]";
    }

    /** One member's mutable state. */
    private static final class Member {
        final Instance instance;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger generation = new AtomicInteger();
        volatile InstanceState state = InstanceState.ROUTABLE;
        boolean drained;
        @Nullable ScheduledFuture<?> timeout;

        Member(Instance instance) {
            this.instance = instance;
        }

        void revive() {
            generation.incrementAndGet();
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            timeout = null;
            state = InstanceState.ROUTABLE;
        }
    }

    /** The membership at one moment: immutable. */
    private static final class Snapshot {
        static final Snapshot EMPTY = new Snapshot(Map.of(), 1);

        final Map<InetSocketAddress, Member> members;
        final List<InetSocketAddress> routable;
        final Map<String, InetSocketAddress> byId;
        final UdpHashRing<InetSocketAddress> ring;

        Snapshot(Map<InetSocketAddress, Member> all, int virtualNodes) {
            this.members = new HashMap<>(all);
            List<InetSocketAddress> r = new ArrayList<>();
            Map<String, InetSocketAddress> ids = new HashMap<>();
            for (Member m : all.values()) {
                if (m.state == InstanceState.ROUTABLE) {
                    r.add(m.instance.address());
                    ids.put(m.instance.id(), m.instance.address());
                }
            }
            this.routable = List.copyOf(r);
            this.byId = Map.copyOf(ids);
            Map<InetSocketAddress, String> idOf = new HashMap<>();
            ids.forEach((id, a) -> idOf.put(a, id));
            this.ring = new UdpHashRing<>(routable, idOf::get, virtualNodes);
        }

        boolean isRoutable(InetSocketAddress a) {
            Member m = members.get(a);
            return m != null && m.state == InstanceState.ROUTABLE;
        }
    }
}
