package io.reliableudp.spring.cloud;

import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.cloud.client.ServiceInstance;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;

/**
 * Sends without a key balanced by Spring Cloud LoadBalancer: the application's {@link LoadBalancerClient}
 * chooses a {@link ServiceInstance} of the service (its configured {@code ReactorLoadBalancer}: round
 * robin, random, zone or health aware), matched to a routable instance by instance id, else by host.
 * A re-route (some instance already failed), an answer that matches no routable instance, or a
 * failing client fall back to round robin, so that the choice never blocks on a retry and never picks
 * an instance discovery no longer lists.
 */
public final class LoadBalancerClientBalancer implements DiscoveryPeerGroup.Balancer {

    private static final Log logger = LogFactory.getLog(LoadBalancerClientBalancer.class);

    private final LoadBalancerClient client;
    private final DiscoveryPeerGroup.Balancer fallback = DiscoveryPeerGroup.roundRobin();

    /**
     * Creates the balancer.
     *
     * @param client the application's load balancer client
     */
    public LoadBalancerClientBalancer(LoadBalancerClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public @Nullable InetSocketAddress choose(DiscoveryPeerGroup group, List<InetSocketAddress> routable,
            Collection<InetSocketAddress> excluded) {
        if (excluded.isEmpty()) {
            try {
                ServiceInstance chosen = client.choose(group.serviceId());
                InetSocketAddress a = chosen == null ? null : match(group, routable, chosen);
                if (a != null) {
                    return a;
                }
            } catch (RuntimeException e) {
                logger.debug("reliable-udp service '" + group.name() + "': the load balancer failed, taking instances in turn: " + e);
            }
        }
        return fallback.choose(group, routable, excluded);
    }

    private static @Nullable InetSocketAddress match(DiscoveryPeerGroup group, List<InetSocketAddress> routable, ServiceInstance chosen) {
        if (chosen.getInstanceId() != null) {
            InetSocketAddress byId = group.addressOfInstance(chosen.getInstanceId());
            if (byId != null) {
                return byId;
            }
        }
        for (InetSocketAddress a : routable) {
            if (a.getHostString().equals(chosen.getHost())
                    || (a.getAddress() != null && a.getAddress().getHostAddress().equals(chosen.getHost()))) {
                return a;
            }
        }
        return null;
    }
}
