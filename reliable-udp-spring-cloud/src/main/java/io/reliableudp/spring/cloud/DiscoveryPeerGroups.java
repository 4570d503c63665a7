package io.reliableudp.spring.cloud;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.spring.core.UdpPeerGroupProvider;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerKey;
import io.reliableudp.transport.PeerState;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.discovery.event.HeartbeatEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * The peer groups backed by discovery services and their refresh: every service's instances are
 * re-resolved from the {@link DiscoveryClient} when the node has started, on every Spring Cloud
 * {@link HeartbeatEvent} (the registry changed or was polled) and on a period; each discovered
 * instance needs a UDP port (instance metadata, else the peer's configured port), and one without is
 * rejected: counted, logged once, listed in health. Runs after the node starts and stops before it.
 *
 * <p>A failing registry (the DiscoveryClient throws) keeps the instances last resolved: an outage of
 * discovery does not drain a healthy service. An empty answer is an answer: every instance departs.
 */
public final class DiscoveryPeerGroups implements UdpPeerGroupProvider, SmartLifecycle, ApplicationListener<HeartbeatEvent> {

    /** After the node on start, before it on stop. */
    public static final int PHASE = ManagedReliableUdpNode.PHASE + 1;

    private static final Log logger = LogFactory.getLog(DiscoveryPeerGroups.class);

    private final Map<String, DiscoveryPeerGroup> groups;
    private final DiscoveryClient discoveryClient;
    private final List<String> portMetadataKeys;
    private String publicKeyMetadataKey = ReliableUdpServiceRegistration.PUBLIC_KEY_METADATA_KEY;
    private final Duration refreshInterval;
    private final Supplier<ManagedReliableUdpNode> node;
    private final Supplier<@Nullable TaskScheduler> scheduler;
    private org.springframework.scheduling.concurrent.@Nullable SimpleAsyncTaskScheduler ownScheduler;
    private final Object refreshLock = new Object();
    private final AtomicBoolean refreshPending = new AtomicBoolean();
    private final AtomicLong refreshes = new AtomicLong();
    private final AtomicLong refreshFailures = new AtomicLong();
    private final List<RejectionListener> rejectionListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    private volatile boolean running;
    private volatile @Nullable ScheduledFuture<?> periodic;
    private volatile @Nullable TaskScheduler activeScheduler;

    /** Told when a discovered instance is rejected (once per instance and reason). */
    @FunctionalInterface
    public interface RejectionListener {
        /**
         * An instance was rejected.
         *
         * @param group the group
         * @param instanceId the discovery instance id
         * @param reason why
         */
        void rejected(DiscoveryPeerGroup group, String instanceId, String reason);
    }

    /**
     * Creates the groups' refresher.
     *
     * @param groups the groups
     * @param discoveryClient the application's (composite) discovery client
     * @param portMetadataKeys metadata keys of the UDP port, in order
     * @param refreshInterval the period of re-resolution
     * @param node the node (asked for when starting)
     * @param scheduler runs refreshes and drain timeouts (asked for when starting; null: one of its own on virtual threads)
     */
    public DiscoveryPeerGroups(Collection<DiscoveryPeerGroup> groups, DiscoveryClient discoveryClient, List<String> portMetadataKeys,
            Duration refreshInterval, Supplier<ManagedReliableUdpNode> node, Supplier<@Nullable TaskScheduler> scheduler) {
        Map<String, DiscoveryPeerGroup> byName = new LinkedHashMap<>();
        groups.forEach(g -> byName.put(g.name(), g));
        this.groups = Map.copyOf(byName);
        this.discoveryClient = Objects.requireNonNull(discoveryClient, "discoveryClient");
        this.portMetadataKeys = List.copyOf(portMetadataKeys);
        if (refreshInterval.isNegative() || refreshInterval.isZero()) {
            throw new IllegalArgumentException("the refresh interval must be > 0, was " + refreshInterval);
        }
        this.refreshInterval = refreshInterval;
        this.node = node;
        this.scheduler = scheduler;
    }

    /**
     * Sets the metadata key of an instance's public key (an instance that registered one has it in
     * {@link DiscoveryPeerGroup.Instance#publicKey()}).
     *
     * @param key the key, {@value ReliableUdpServiceRegistration#PUBLIC_KEY_METADATA_KEY} by default
     */
    public void setPublicKeyMetadataKey(String key) {
        this.publicKeyMetadataKey = Objects.requireNonNull(key, "key");
    }

    @Override
    public Collection<DiscoveryPeerGroup> peerGroups() {
        return groups.values();
    }

    /**
     * A group by peer name.
     *
     * @param name the peer name
     * @return the group, or null
     */
    public @Nullable DiscoveryPeerGroup group(String name) {
        return groups.get(name);
    }

    /**
     * Adds a rejection listener (metrics).
     *
     * @param listener the listener
     */
    public void addRejectionListener(RejectionListener listener) {
        rejectionListeners.add(listener);
    }

    /** How many refreshes ran. */
    public long refreshCount() {
        return refreshes.get();
    }

    /** How many refreshes of a service failed (the DiscoveryClient threw). */
    public long refreshFailureCount() {
        return refreshFailures.get();
    }

    @Override
    public void start() {
        if (groups.isEmpty()) {
            running = true;   // no peer has a service-id: nothing to resolve
            return;
        }
        ManagedReliableUdpNode n = node.get();
        TaskScheduler s = scheduler.get();
        if (s == null) {
            org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler own = new org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler();
            own.setVirtualThreads(true);
            own.setThreadNamePrefix("rudp-discovery-");
            ownScheduler = own;
            s = own;
        }
        activeScheduler = s;
        TaskScheduler used = s;
        DiscoveryPeerGroup.Connections connections = new NodeConnections(n);
        groups.values().forEach(g -> g.attach(connections, used));
        running = true;
        refresh();
        periodic = used.scheduleWithFixedDelay(this::refreshQuietly, refreshInterval);
    }

    @Override
    public void stop() {
        running = false;
        ScheduledFuture<?> p = periodic;
        periodic = null;
        if (p != null) {
            p.cancel(false);
        }
        groups.values().forEach(g -> g.attach(null, null));
        org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler own = ownScheduler;
        ownScheduler = null;
        if (own != null) {
            own.close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * Re-resolves on a heartbeat of the discovery client (off the publishing thread, coalesced).
     *
     * @param event the heartbeat
     */
    @Override
    public void onApplicationEvent(HeartbeatEvent event) {
        TaskScheduler s = activeScheduler;
        if (!running || s == null || !refreshPending.compareAndSet(false, true)) {
            return;
        }
        try {
            s.schedule(() -> {
                refreshPending.set(false);
                refreshQuietly();
            }, java.time.Instant.now());
        } catch (RuntimeException e) {
            refreshPending.set(false);
            logger.debug("reliable-udp discovery refresh not scheduled: " + e);
        }
    }

    private void refreshQuietly() {
        try {
            if (running) {
                refresh();
            }
        } catch (RuntimeException e) {
            logger.warn("reliable-udp discovery refresh failed", e);
        }
    }

    /** Re-resolves every service now (on the caller's thread). */
    public void refresh() {
        synchronized (refreshLock) {
            refreshes.incrementAndGet();
            for (DiscoveryPeerGroup g : groups.values()) {
                List<ServiceInstance> found;
                try {
                    found = discoveryClient.getInstances(g.serviceId());
                } catch (RuntimeException e) {
                    refreshFailures.incrementAndGet();
                    logger.warn("reliable-udp service '" + g.name() + "': discovery of '" + g.serviceId()
                            + "' failed; keeping the " + g.instances().size() + " instance(s) last resolved: " + e);
                    continue;
                }
                List<DiscoveryPeerGroup.Instance> usable = new ArrayList<>();
                Map<String, String> rejected = new LinkedHashMap<>();
                for (ServiceInstance si : found == null ? List.<ServiceInstance>of() : found) {
                    String id = si.getInstanceId() != null && !si.getInstanceId().isBlank()
                            ? si.getInstanceId() : si.getHost() + ":" + si.getPort();
                    Object result = toInstance(g, id, si);
                    if (result instanceof DiscoveryPeerGroup.Instance i) {
                        usable.add(i);
                    } else {
                        rejected.put(id, (String) result);
                    }
                }
                Map<String, String> before = g.rejected();
                rejected.forEach((id, reason) -> {
                    if (!reason.equals(before.get(id))) {
                        logger.warn("reliable-udp service '" + g.name() + "': instance " + id + " of '" + g.serviceId()
                                + "' rejected: " + reason);
                        rejectionListeners.forEach(l -> l.rejected(g, id, reason));
                    }
                });
                g.setRejected(rejected);
                g.update(usable);
                g.reconnectRoutable();
            }
        }
    }

    /** The instance, or the reason it is rejected. */
    private Object toInstance(DiscoveryPeerGroup g, String id, ServiceInstance si) {
        Map<String, String> metadata = si.getMetadata() == null ? Map.of() : si.getMetadata();
        Integer port = null;
        for (String key : portMetadataKeys) {
            String value = metadata.get(key);
            if (value != null) {
                try {
                    port = Integer.parseInt(value.trim());
                } catch (NumberFormatException e) {
                    return "metadata " + key + "='" + value + "' is not a port";
                }
                if (port < 1 || port > 65_535) {
                    return "metadata " + key + "=" + port + " is not a port (1..65535)";
                }
                break;
            }
        }
        if (port == null) {
            port = g.configuredPort();
        }
        if (port == null) {
            return "no UDP port: the metadata has none of " + portMetadataKeys + " and reliable-udp.peers." + g.name()
                    + ".port is not set";
        }
        if (si.getHost() == null || si.getHost().isBlank()) {
            return "no host";
        }
        InetSocketAddress address = new InetSocketAddress(si.getHost(), port);
        if (address.isUnresolved()) {
            return "host " + si.getHost() + " cannot be resolved";
        }
        PeerKey publicKey = null;
        String key = metadata.get(publicKeyMetadataKey);
        if (key != null && !key.isBlank()) {
            try {
                publicKey = PeerKey.fromBase64(key.trim());
            } catch (IllegalArgumentException e) {
                return "metadata " + publicKeyMetadataKey + " is not an X25519 public key (32 bytes in Base64)";
            }
        }
        return new DiscoveryPeerGroup.Instance(id, address, publicKey);
    }

    /** The node's connections as a group sees them. */
    private record NodeConnections(ManagedReliableUdpNode node) implements DiscoveryPeerGroup.Connections {

        @Override
        public void connect(InetSocketAddress address) {
            if (!node.isRunning()) {
                return;
            }
            node.peerDirectory().resolve(address).whenComplete((p, e) -> {
                if (e != null) {
                    logger.debug("reliable-udp: connect to instance " + UdpAddresses.format(address) + " failed: " + e.getMessage());
                }
            });
        }

        @Override
        public void disconnect(InetSocketAddress address) {
            if (!node.isRunning()) {
                return;
            }
            Peer p = node.peer(address);
            if (p != null) {
                p.disconnect();
            }
        }

        @Override
        public boolean isConnected(InetSocketAddress address) {
            if (!node.isRunning()) {
                return false;
            }
            Peer p = node.peer(address);
            return p != null && (p.state() == PeerState.CONNECTED || p.state() == PeerState.CONNECTING);
        }
    }
}
