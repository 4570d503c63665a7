package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.transport.NodeConfig;

/**
 * Changes the node's settings after the {@code reliable-udp.*} properties were applied (e.g. a
 * {@link io.reliableudp.message.MessageConfig} built in code, a key from a vault). Customizers run in
 * {@link org.springframework.core.Ordered} order; a value they set that the node rejects fails startup
 * with the field named.
 */
@FunctionalInterface
public interface ReliableUdpNodeCustomizer {

    /**
     * Customizes the builder.
     *
     * @param builder the builder, holding the configured values
     */
    void customize(NodeConfig.Builder builder);
}
