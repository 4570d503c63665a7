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
 * @param register Whether this application's own registration in discovery (Eureka, or a Spring Cloud Registration such as Consul's) carries the node's bound UDP port (under the first of port-metadata-keys) and, with an identity, its public key, once the node has started.
 * @param publicKeyMetadataKey Instance metadata key of the X25519 public key (Base64) that a node registers and clients read.
 */
@ConfigurationProperties("reliable-udp.discovery")
public record ReliableUdpDiscoveryProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("10s") Duration refreshInterval,
        @DefaultValue({ "reliable-udp.port", "port.reliable-udp" }) List<String> portMetadataKeys,
        @DefaultValue("5s") Duration drainTimeout,
        @DefaultValue("160") int virtualNodes,
        @DefaultValue("true") boolean loadBalancer,
        @DefaultValue("true") boolean register,
        @DefaultValue("reliable-udp.public-key") String publicKeyMetadataKey) {
}
