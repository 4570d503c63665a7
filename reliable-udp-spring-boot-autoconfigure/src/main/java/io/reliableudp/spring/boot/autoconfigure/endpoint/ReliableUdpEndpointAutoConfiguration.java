package io.reliableudp.spring.boot.autoconfigure.endpoint;

import io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration;
import io.reliableudp.spring.boot.actuate.endpoint.ReliableUdpEndpoint;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.transport.ReliableUdpNode;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code reliableudp} actuator endpoint, when it is available under the exposure and access
 * rules ({@code management.endpoints.web.exposure.include=reliableudp}).
 */
@AutoConfiguration(afterName = "io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration")
@ConditionalOnClass(ConditionalOnAvailableEndpoint.class)
@ConditionalOnBean(ReliableUdpNode.class)
@ConditionalOnAvailableEndpoint(ReliableUdpEndpoint.class)
public final class ReliableUdpEndpointAutoConfiguration {

    /**
     * The endpoint over every node bean.
     *
     * @param directories the peer directory beans (names of peers)
     * @param nodes node beans by name
     * @return the endpoint
     */
    @Bean
    @ConditionalOnMissingBean
    ReliableUdpEndpoint reliableUdpEndpoint(Map<String, ReliableUdpNode> nodes, ObjectProvider<UdpPeerDirectory> directories) {
        return new ReliableUdpEndpoint(nodes, ReliableUdpAutoConfiguration.peerNames(directories, nodes));
    }
}
