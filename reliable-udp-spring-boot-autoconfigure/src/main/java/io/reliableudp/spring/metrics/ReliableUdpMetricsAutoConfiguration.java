package io.reliableudp.spring.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.reliableudp.transport.ReliableUdpNode;
import java.util.Map;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Micrometer meters for every {@link ReliableUdpNode} bean, when Micrometer and a
 * {@link MeterRegistry} are present. Runs after the starter's node and Boot's registries.
 */
@AutoConfiguration(afterName = {
        "io.reliableudp.spring.autoconfigure.ReliableUdpAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ ReliableUdpNode.class, MeterRegistry.class })
@EnableConfigurationProperties(ReliableUdpMetricsProperties.class)
public final class ReliableUdpMetricsAutoConfiguration {

    /** Not for direct use: instantiated by Spring. */
    public ReliableUdpMetricsAutoConfiguration() {
    }

    /**
     * The meters of every node bean, tagged with its bean name.
     *
     * @param registry the application's registry
     * @param nodes the node beans by name
     * @param properties refresh interval
     * @param environment where {@code reliable-udp.peers.*} is read
     * @return the publisher (a {@code SmartLifecycle})
     */
    @Bean
    @ConditionalOnMissingBean
    public ReliableUdpMetrics reliableUdpMetrics(MeterRegistry registry, Map<String, ReliableUdpNode> nodes,
            ReliableUdpMetricsProperties properties, Environment environment) {
        return new ReliableUdpMetrics(registry, nodes, ConfiguredPeers.from(environment), properties.refreshInterval());
    }
}
