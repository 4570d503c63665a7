package io.reliableudp.spring.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.boot.metrics.ReliableUdpListenerMetrics;
import io.reliableudp.spring.boot.metrics.ReliableUdpMetrics;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.transport.ReliableUdpNode;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.TaskScheduler;

/**
 * Micrometer meters for every {@link ReliableUdpNode} bean, when Micrometer and a
 * {@link MeterRegistry} are present. Runs after the starter's node and Boot's registries.
 */
@AutoConfiguration(afterName = {
        "io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ ReliableUdpNode.class, MeterRegistry.class })
@EnableConfigurationProperties(ReliableUdpMetricsProperties.class)
public final class ReliableUdpMetricsAutoConfiguration {

    /**
     * The meters of every node bean, tagged with its bean name: a {@code MeterBinder} that Boot binds to
     * the application's registry.
     *
     * @param directories the peer directory beans (names of peers)
     * @param nodes the node beans by name
     * @param properties refresh interval
     * @param schedulers the application's schedulers
     * @param ownScheduler the starter's scheduler when the application has none
     * @return the publisher (a {@code SmartLifecycle})
     */
    @Bean
    @ConditionalOnMissingBean
    ReliableUdpMetrics reliableUdpMetrics(Map<String, ReliableUdpNode> nodes, ObjectProvider<UdpPeerDirectory> directories,
            ReliableUdpMetricsProperties properties, ObjectProvider<TaskScheduler> schedulers,
            @Qualifier(ReliableUdpAutoConfiguration.TASK_SCHEDULER_BEAN_NAME) ObjectProvider<TaskScheduler> ownScheduler) {
        return new ReliableUdpMetrics(nodes, ReliableUdpAutoConfiguration.peerNames(directories, nodes), properties.refreshInterval(),
                ReliableUdpAutoConfiguration.scheduler(schedulers, ownScheduler));
    }

    /**
     * The meters of the listener containers (queued, pauses, not processed), tagged with the listener id.
     *
     * @param registry the application's registry
     * @param listeners the listener registry
     * @return the publisher (a {@code SmartLifecycle} that binds once the containers have started)
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(UdpListenerEndpointRegistry.class)
    ReliableUdpListenerMetrics reliableUdpListenerMetrics(MeterRegistry registry, UdpListenerEndpointRegistry listeners) {
        return new ReliableUdpListenerMetrics(registry, listeners);
    }
}
