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
import io.reliableudp.spring.cloud.ReliableUdpServiceRegistration;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
import org.springframework.cloud.client.serviceregistry.AbstractAutoServiceRegistration;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.cloud.client.serviceregistry.ServiceRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

/**
 * Auto-configuration of peers from Spring Cloud discovery: every {@code reliable-udp.peers.<name>} with a
 * {@code service-id} becomes a {@link DiscoveryPeerGroup} of the node's peer directory, refreshed from the
 * application's {@link DiscoveryClient}; the node's own bound port and public key in this application's
 * registration ({@link ReliableUdpServiceRegistration}); with Micrometer, meters per service and instance; with Boot's
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
        DiscoveryPeerGroups peerGroups = new DiscoveryPeerGroups(groups, client, discovery.portMetadataKeys(), discovery.refreshInterval(),
                node::getObject, () -> ReliableUdpAutoConfiguration.scheduler(schedulers, ownScheduler));
        peerGroups.setPublicKeyMetadataKey(discovery.publicKeyMetadataKey());
        return peerGroups;
    }

    /**
     * The node's bound port and public key in this application's own registration metadata, through
     * every {@link ReliableUdpServiceRegistration.MetadataPublisher} bean.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "reliable-udp.discovery", name = "register", havingValue = "true", matchIfMissing = true)
    ReliableUdpServiceRegistration reliableUdpServiceRegistration(ReliableUdpDiscoveryProperties discovery,
            ObjectProvider<ManagedReliableUdpNode> node, ObjectProvider<ReliableUdpServiceRegistration.MetadataPublisher> publishers) {
        String portKey = discovery.portMetadataKeys().isEmpty() ? ReliableUdpServiceRegistration.PORT_METADATA_KEY
                : discovery.portMetadataKeys().get(0);
        return new ReliableUdpServiceRegistration(node::getObject, portKey, discovery.publicKeyMetadataKey(),
                publishers.orderedStream().toList());
    }

    /**
     * Eureka: the metadata goes in through {@code ApplicationInfoManager.registerAppMetadata}, which marks
     * the instance dirty; the Eureka client sends it with its next instance-info replication
     * ({@code eureka.client.instance-info-replication-interval-seconds}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "com.netflix.appinfo.ApplicationInfoManager")
    static final class EurekaRegistrationConfiguration {

        @Bean
        ReliableUdpServiceRegistration.MetadataPublisher reliableUdpEurekaMetadataPublisher(
                ObjectProvider<com.netflix.appinfo.ApplicationInfoManager> applicationInfoManager) {
            return new EurekaMetadataPublisher(applicationInfoManager);
        }
    }

    /**
     * Any other Spring Cloud {@link Registration} (Consul's, Zookeeper's): the metadata goes into the
     * registration's metadata map, and when its auto-registration has already registered the
     * application (a web application registers when its web server started, before the node binds), the
     * registration is sent again so that the registry has the entries.
     */
    @Bean
    ReliableUdpServiceRegistration.MetadataPublisher reliableUdpRegistrationMetadataPublisher(ObjectProvider<Registration> registrations,
            ObjectProvider<ServiceRegistry<?>> serviceRegistry, ObjectProvider<AbstractAutoServiceRegistration<?>> autoRegistrations) {
        return new RegistrationMetadataPublisher(registrations, serviceRegistry, autoRegistrations);
    }

    /** Through Eureka's {@code ApplicationInfoManager}. */
    private record EurekaMetadataPublisher(ObjectProvider<com.netflix.appinfo.ApplicationInfoManager> manager)
            implements ReliableUdpServiceRegistration.MetadataPublisher {

        @Override
        public void publish(Map<String, String> metadata) {
            manager.ifAvailable(m -> m.registerAppMetadata(metadata));
        }

        @Override
        public String toString() {
            return "Eureka ApplicationInfoManager";
        }
    }

    /** Through a Spring Cloud {@link Registration}, sent again when already registered. */
    private record RegistrationMetadataPublisher(ObjectProvider<Registration> registrations, ObjectProvider<ServiceRegistry<?>> serviceRegistry,
            ObjectProvider<AbstractAutoServiceRegistration<?>> autoRegistrations) implements ReliableUdpServiceRegistration.MetadataPublisher {

        @Override
        @SuppressWarnings({ "unchecked", "rawtypes" })
        public void publish(Map<String, String> metadata) {
            boolean registered = autoRegistrations.stream().anyMatch(AbstractAutoServiceRegistration::isRunning);
            ServiceRegistry registry = serviceRegistry.getIfUnique();
            registrations.forEach(r -> {
                Map<String, String> m = r.getMetadata();
                if (m == null) {
                    return;
                }
                m.putAll(metadata);
                if (registered && registry != null) {
                    registry.register(r);
                }
            });
        }

        @Override
        public String toString() {
            return "Spring Cloud Registration";
        }
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
