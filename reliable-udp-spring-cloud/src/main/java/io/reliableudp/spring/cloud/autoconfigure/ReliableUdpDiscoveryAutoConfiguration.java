package io.reliableudp.spring.cloud.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import io.reliableudp.spring.boot.autoconfigure.InvalidReliableUdpPropertyException;
import io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration;
import io.reliableudp.spring.boot.autoconfigure.ReliableUdpProperties;
import io.reliableudp.spring.cloud.DiscoveryPeerGroup;
import io.reliableudp.spring.cloud.DiscoveryPeerGroups;
import io.reliableudp.spring.cloud.LoadBalancerClientBalancer;
import io.reliableudp.spring.cloud.ReliableUdpDiscoveryHealthIndicator;
import io.reliableudp.spring.cloud.ReliableUdpDiscoveryMetrics;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.cloud.client.discovery.DiscoveryClient;
import org.springframework.cloud.client.loadbalancer.LoadBalancerClient;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

/**
 * Auto-configuration of peers from Spring Cloud discovery: every {@code reliable-udp.peers.<name>} with a
 * {@code service-id} becomes a {@link DiscoveryPeerGroup} of the node's peer directory, refreshed from the
 * application's {@link DiscoveryClient}; with Micrometer, meters per service and instance; with Boot's
 * health, the {@code reliableUdpDiscovery} indicator.
 */
@AutoConfiguration(beforeName = "io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration",
        afterName = {
                "org.springframework.cloud.client.discovery.composite.CompositeDiscoveryClientAutoConfiguration",
                "org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClientAutoConfiguration",
                "org.springframework.cloud.client.loadbalancer.LoadBalancerAutoConfiguration" })
@ConditionalOnClass({ DiscoveryClient.class, ManagedReliableUdpNode.class })
@ConditionalOnProperty(prefix = "reliable-udp.discovery", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(ReliableUdpDiscoveryProperties.class)
public final class ReliableUdpDiscoveryAutoConfiguration {

    /**
     * The groups of the peers with a service-id and their refresher (a {@code UdpPeerGroupProvider} the
     * peer directory reads, a lifecycle that starts after the node, a listener of heartbeats).
     */
    @Bean
    @ConditionalOnMissingBean
    DiscoveryPeerGroups reliableUdpDiscoveryPeerGroups(ReliableUdpProperties properties, ReliableUdpDiscoveryProperties discovery,
            ObjectProvider<DiscoveryClient> discoveryClient, ObjectProvider<LoadBalancerClient> loadBalancer,
            ObjectProvider<ManagedReliableUdpNode> node, ObjectProvider<TaskScheduler> schedulers,
            @Qualifier(ReliableUdpAutoConfiguration.TASK_SCHEDULER_BEAN_NAME) ObjectProvider<TaskScheduler> ownScheduler) {
        if (discovery.virtualNodes() < 1 || discovery.virtualNodes() > 10_000) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.discovery.virtual-nodes", String.valueOf(discovery.virtualNodes()),
                    "must be within 1..10000", "use the default 160");
        }
        if (discovery.drainTimeout().isNegative()) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.discovery.drain-timeout", discovery.drainTimeout().toString(),
                    "must be >= 0", "use 0 to close at once, or a duration such as 5s");
        }
        if (discovery.refreshInterval().isNegative() || discovery.refreshInterval().isZero()) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.discovery.refresh-interval", discovery.refreshInterval().toString(),
                    "must be > 0", "use a duration such as 10s");
        }
        LoadBalancerClient lb = discovery.loadBalancer() ? loadBalancer.getIfUnique() : null;
        List<DiscoveryPeerGroup> groups = new ArrayList<>();
        properties.peers().forEach((name, peer) -> {
            if (!peer.isService()) {
                return;
            }
            Integer port = peer.port();
            if (port != null && (port < 1 || port > 65_535)) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.peers." + name + ".port", String.valueOf(port),
                        "not a UDP port", "use 1..65535, the port the instances listen on");
            }
            DiscoveryPeerGroup.Balancer balancer = lb != null ? new LoadBalancerClientBalancer(lb) : DiscoveryPeerGroup.roundRobin();
            groups.add(new DiscoveryPeerGroup(name, peer.serviceId().trim(), port, discovery.virtualNodes(), balancer, discovery.drainTimeout()));
        });
        DiscoveryClient client = discoveryClient.getIfAvailable();
        if (client == null) {
            if (!groups.isEmpty()) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.peers." + groups.get(0).name() + ".service-id",
                        groups.get(0).serviceId(), "no DiscoveryClient bean",
                        "add a Spring Cloud discovery client (Eureka, Consul, Kubernetes, or spring.cloud.discovery.client.simple.instances)");
            }
            client = new org.springframework.cloud.client.discovery.simple.SimpleDiscoveryClient(
                    new org.springframework.cloud.client.discovery.simple.SimpleDiscoveryProperties());
        }
        return new DiscoveryPeerGroups(groups, client, discovery.portMetadataKeys(), discovery.refreshInterval(),
                node::getObject, () -> ReliableUdpAutoConfiguration.scheduler(schedulers, ownScheduler));
    }

    /** Meters per service and instance. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static final class DiscoveryMetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ReliableUdpDiscoveryMetrics reliableUdpDiscoveryMetrics(DiscoveryPeerGroups groups) {
            return new ReliableUdpDiscoveryMetrics(groups);
        }
    }

    /** The {@code reliableUdpDiscovery} health indicator. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static final class DiscoveryHealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "reliableUdpDiscoveryHealthIndicator")
        HealthIndicator reliableUdpDiscoveryHealthIndicator(DiscoveryPeerGroups groups, ObjectProvider<ManagedReliableUdpNode> node) {
            return new ReliableUdpDiscoveryHealthIndicator(groups, node::getIfUnique);
        }
    }
}
