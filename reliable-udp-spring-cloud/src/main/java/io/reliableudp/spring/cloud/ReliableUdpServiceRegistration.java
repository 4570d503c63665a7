package io.reliableudp.spring.cloud;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.transport.NodeIdentity;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Puts this node's UDP port and, when it has an identity, its public key into the application's own
 * registration in service discovery, so that clients find both without an operator copying them into
 * {@code eureka.instance.metadata-map} (or Consul tags). The port is the one the node bound, so
 * {@code reliable-udp.port=0} works: the metadata is published when the node has started (a
 * {@link SmartLifecycle} one phase after it), through every {@link MetadataPublisher} bean the
 * auto-configuration found (Eureka's {@code ApplicationInfoManager}, a Spring Cloud
 * {@code Registration} such as Consul's, the simple discovery client's local instance).
 *
 * <p>The metadata is what the client side of this module reads: the port under the first of
 * {@code reliable-udp.discovery.port-metadata-keys} ({@value #PORT_METADATA_KEY} by default), the key
 * under {@value #PUBLIC_KEY_METADATA_KEY} (Base64 of its 32 bytes). A public key is not secret; the
 * private key never leaves the node.
 */
public final class ReliableUdpServiceRegistration implements SmartLifecycle {

    /** The default metadata key of the UDP port. */
    public static final String PORT_METADATA_KEY = "reliable-udp.port";

    /** The default metadata key of the node's X25519 public key (Base64). */
    public static final String PUBLIC_KEY_METADATA_KEY = "reliable-udp.public-key";

    /** Right after the node on start (its port is known then). */
    public static final int PHASE = ManagedReliableUdpNode.PHASE + 1;

    private static final Log logger = LogFactory.getLog(ReliableUdpServiceRegistration.class);

    /** Writes metadata into one registry's registration of this application. */
    @FunctionalInterface
    public interface MetadataPublisher {
        /**
         * Adds (or replaces) these entries in this application's registration metadata.
         *
         * @param metadata the entries
         */
        void publish(Map<String, String> metadata);
    }

    private final Supplier<ManagedReliableUdpNode> node;
    private final String portKey;
    private final String publicKeyKey;
    private final List<MetadataPublisher> publishers;
    private volatile Map<String, String> published = Map.of();
    private volatile boolean running;

    /**
     * Creates the registration.
     *
     * @param node the node (asked for when starting)
     * @param portKey the metadata key of the port
     * @param publicKeyKey the metadata key of the public key
     * @param publishers where the metadata goes
     */
    public ReliableUdpServiceRegistration(Supplier<ManagedReliableUdpNode> node, String portKey, String publicKeyKey,
            List<MetadataPublisher> publishers) {
        this.node = Objects.requireNonNull(node, "node");
        this.portKey = Objects.requireNonNull(portKey, "portKey");
        this.publicKeyKey = Objects.requireNonNull(publicKeyKey, "publicKeyKey");
        this.publishers = List.copyOf(publishers);
    }

    /**
     * The metadata of a running node: its bound port and, with an identity, its public key.
     *
     * @param node the running node
     * @return the entries, in that order
     */
    public Map<String, String> metadataOf(ManagedReliableUdpNode node) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(portKey, Integer.toString(node.localAddress().getPort()));
        NodeIdentity identity = node.config().identity();
        if (identity != null) {
            m.put(publicKeyKey, identity.publicKey().toBase64());
        }
        return m;
    }

    /** What was published last (empty before the node started). */
    public Map<String, String> published() {
        return published;
    }

    @Override
    public void start() {
        ManagedReliableUdpNode n = node.get();
        if (n.isRunning()) {
            Map<String, String> metadata = java.util.Collections.unmodifiableMap(metadataOf(n));
            for (MetadataPublisher p : publishers) {
                try {
                    p.publish(metadata);
                } catch (RuntimeException e) {
                    // the application still runs; clients fall back to reliable-udp.peers.<name>.port
                    logger.warn("reliable-udp: the node's discovery metadata " + metadata + " could not be published by " + p, e);
                }
            }
            published = metadata;
            if (!publishers.isEmpty()) {
                logger.info("reliable-udp: registered " + metadata + " in this application's discovery metadata");
            }
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
