package io.reliableudp.spring.cloud.autoconfigure;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How peers from service discovery are resolved, under {@code reliable-udp.discovery.*} (the peers
 * themselves are {@code reliable-udp.peers.<name>.service-id}).
 *
 * @param enabled Whether peers with a service-id are resolved from the DiscoveryClient.
 * @param refreshInterval How often every service's instances are re-resolved (besides on each Spring Cloud HeartbeatEvent).
 * @param portMetadataKeys Instance metadata keys that carry the UDP port, tried in order (the Kubernetes discovery client publishes a port named reliable-udp as port.reliable-udp).
 * @param drainTimeout How long a departed instance's connection stays open for messages in flight to it; those still in flight then fail with CLOSED.
 * @param virtualNodes Points per instance on the consistent-hash ring of keyed sends (more: a more even share of keys).
 * @param loadBalancer Whether sends without a key ask Spring Cloud LoadBalancer (when a LoadBalancerClient bean exists) instead of taking instances in turn.
 */
@ConfigurationProperties("reliable-udp.discovery")
public record ReliableUdpDiscoveryProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("10s") Duration refreshInterval,
        @DefaultValue({ "reliable-udp.port", "port.reliable-udp" }) List<String> portMetadataKeys,
        @DefaultValue("5s") Duration drainTimeout,
        @DefaultValue("160") int virtualNodes,
        @DefaultValue("true") boolean loadBalancer) {
}
