package io.reliableudp.spring.boot.autoconfigure.health;

import io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration;
import io.reliableudp.spring.boot.health.ReliableUdpHealthIndicator;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.transport.ReliableUdpNode;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;

/**
 * The {@code reliableUdp} health contributor: one {@link ReliableUdpHealthIndicator} for a single
 * node, a composite keyed by bean name when there are several. Switched off with
 * {@code management.health.reliable-udp.enabled=false}.
 */
@AutoConfiguration(afterName = "io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration",
        beforeName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass(HealthContributor.class)
@ConditionalOnBean(ReliableUdpNode.class)
@ConditionalOnEnabledHealthIndicator("reliable-udp")
@EnableConfigurationProperties(ReliableUdpHealthProperties.class)
public final class ReliableUdpHealthContributorAutoConfiguration {

    /**
     * The health of every node bean.
     *
     * @param directories the peer directory beans (names of peers)
     * @param nodes node beans by name
     * @param properties thresholds
     * @return an indicator (one node) or a composite by bean name (several)
     */
    @Bean
    @ConditionalOnMissingBean(name = { "reliableUdpHealthIndicator", "reliableUdpHealthContributor" })
    HealthContributor reliableUdpHealthContributor(Map<String, ReliableUdpNode> nodes, ObjectProvider<UdpPeerDirectory> directories,
            ReliableUdpHealthProperties properties) {
        UdpPeerDirectory names = ReliableUdpAutoConfiguration.peerNames(directories, nodes);
        if (nodes.size() == 1) {
            return new ReliableUdpHealthIndicator(nodes.values().iterator().next(), names, properties.maxRtt(), properties.maxLoss(), true);
        }
        return CompositeHealthContributor.fromMap(nodes,
                node -> new ReliableUdpHealthIndicator(node, names, properties.maxRtt(), properties.maxLoss(), false));
    }
}
