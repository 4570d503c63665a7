package io.reliableudp.spring.cloud;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of the discovery-backed peers, with details per service and instance: {@code UP} when every
 * service has at least one routable instance, else {@code DEGRADED} (sends to that service fail with
 * {@code NOT_CONNECTED}; the application itself is not down). Details per service: its service id, each
 * member's address, state (routable, draining), connection state and messages in flight, and the
 * rejected instances with their reason.
 */
public final class ReliableUdpDiscoveryHealthIndicator implements HealthIndicator {

    /** The status of a service without a routable instance (as the node indicator's DEGRADED). */
    public static final Status DEGRADED = new Status("DEGRADED", "a service from discovery has no routable instance");

    private final DiscoveryPeerGroups groups;
    private final Supplier<@Nullable ManagedReliableUdpNode> node;

    /**
     * Creates the indicator.
     *
     * @param groups the groups
     * @param node the node (connection states), asked for on each check
     */
    public ReliableUdpDiscoveryHealthIndicator(DiscoveryPeerGroups groups, Supplier<@Nullable ManagedReliableUdpNode> node) {
        this.groups = Objects.requireNonNull(groups, "groups");
        this.node = Objects.requireNonNull(node, "node");
    }

    @Override
    public Health health() {
        boolean degraded = false;
        Map<String, Object> services = new LinkedHashMap<>();
        ManagedReliableUdpNode n = node.get();
        for (DiscoveryPeerGroup g : groups.peerGroups()) {
            Map<String, Object> instances = new LinkedHashMap<>();
            g.members().forEach((instance, state) -> {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("address", UdpAddresses.format(instance.address()));
                d.put("state", state.name().toLowerCase(java.util.Locale.ROOT));
                Peer p = n != null && n.isRunning() ? n.peer(instance.address()) : null;
                d.put("connection", p == null ? "none" : p.state().name().toLowerCase(java.util.Locale.ROOT));
                d.put("inFlight", g.inFlight(instance.address()));
                if (instance.publicKey() != null) {
                    // the key the instance registered, and whether its handshake proved that key
                    d.put("publicKey", instance.publicKey().toBase64());
                    PeerIdentity proved = p == null ? null : p.identity();
                    if (proved != null) {
                        d.put("provedRegisteredKey", proved.key().equals(instance.publicKey()));
                    }
                }
                instances.put(instance.id(), d);
            });
            Map<String, Object> service = new LinkedHashMap<>();
            service.put("serviceId", g.serviceId());
            service.put("routable", g.instances().size());
            service.put("instances", instances);
            if (!g.rejected().isEmpty()) {
                service.put("rejected", g.rejected());
            }
            services.put(g.name(), service);
            degraded |= g.instances().isEmpty();
        }
        return Health.status(degraded ? DEGRADED : Status.UP).withDetail("services", services).build();
    }
}
