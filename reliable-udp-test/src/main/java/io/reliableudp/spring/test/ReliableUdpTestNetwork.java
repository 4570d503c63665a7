package io.reliableudp.spring.test;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.transport.InMemoryNetwork;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One in-memory datagram network for tests: the core's {@link InMemoryNetwork} with a
 * {@link ReliableUdpNodeFactory} that starts the real node on it (every layer runs: handshake,
 * encryption, channels, resends; only the socket is replaced), and link conditioners per directed link.
 *
 * <p>A node asks for its port through {@code reliable-udp.port} as usual: 0 picks a free one (on
 * 127.0.0.1), a fixed one is taken as is (a second node on it fails as a taken UDP port does). Every
 * node of every application context started with the same network reaches the others by
 * {@code 127.0.0.1:port}. {@link #shared()} is the network of {@link InMemoryReliableUdp}. Thread-safe.
 */
public final class ReliableUdpTestNetwork {

    /** The latency of a held link: long enough that nothing arrives while a test holds it. */
    private static final double HOLD_MILLIS = 3_600_000;

    private static final ReliableUdpTestNetwork SHARED = new ReliableUdpTestNetwork();

    private final InMemoryNetwork network;

    /** A new, empty network (its nodes reach only each other). */
    public ReliableUdpTestNetwork() {
        this(new InMemoryNetwork());
    }

    /**
     * A network over an existing in-memory network.
     *
     * @param network the core's network
     */
    public ReliableUdpTestNetwork(InMemoryNetwork network) {
        this.network = Objects.requireNonNull(network, "network");
    }

    /** The network every test annotated with {@link InMemoryReliableUdp} shares in this JVM. */
    public static ReliableUdpTestNetwork shared() {
        return SHARED;
    }

    /** The core's network (ports, counters of lost datagrams). */
    public InMemoryNetwork network() {
        return network;
    }

    /** Starts real nodes on this network: register it as the {@code reliableUdpNodeFactory} bean. */
    public ReliableUdpNodeFactory nodeFactory() {
        return (config, listener) -> ReliableUdpNode.start(config, listener, network.open(config.bindAddress()));
    }

    /**
     * Puts a context started by hand ({@code new SpringApplicationBuilder(App.class).initializers(...)})
     * on this network: registers the {@code reliableUdpTestNetwork} and {@code reliableUdpNodeFactory}
     * beans, as {@link InMemoryReliableUdp} does for the test's own context.
     *
     * @return the initializer
     */
    public ApplicationContextInitializer<ConfigurableApplicationContext> initializer() {
        return context -> {
            context.getBeanFactory().registerSingleton(InMemoryReliableUdpContextCustomizerFactory.NETWORK_BEAN_NAME, this);
            context.getBeanFactory().registerSingleton(InMemoryReliableUdpContextCustomizerFactory.NODE_FACTORY_BEAN_NAME, nodeFactory());
        };
    }

    /**
     * Conditions the datagrams from one address to another (one direction).
     *
     * @param from the sender's address ({@code 127.0.0.1:port})
     * @param to the receiver's address
     * @param config the conditioner (loss, delay, jitter, duplicates, reordering, bandwidth), or null
     *     for a perfect link again (delivering what the old one still held)
     */
    public void condition(InetSocketAddress from, InetSocketAddress to, @Nullable LinkConditionerConfig config) {
        network.condition(from, to, config);
    }

    /**
     * Conditions both directions between two addresses with the same settings (each direction has
     * its own conditioner and random sequence).
     *
     * @param a one end
     * @param b the other end
     * @param config the conditioner, or null for perfect links
     */
    public void conditionBoth(InetSocketAddress a, InetSocketAddress b, @Nullable LinkConditionerConfig config) {
        network.condition(a, b, config);
        network.condition(b, a, config);
    }

    /**
     * Holds every datagram from one address to another until {@link #release}: e.g. the acks of a
     * receiver, to leave the sender's reliable messages pending.
     *
     * @param from the sender's address
     * @param to the receiver's address
     */
    public void hold(InetSocketAddress from, InetSocketAddress to) {
        network.condition(from, to, new LinkConditionerConfig(HOLD_MILLIS, 0, 0, 0, 1, 0, 0, 0, 0, 0, 64L << 20, 1));
    }

    /**
     * Delivers what {@link #hold} kept and makes the link perfect again.
     *
     * @param from the sender's address
     * @param to the receiver's address
     */
    public void release(InetSocketAddress from, InetSocketAddress to) {
        network.condition(from, to, null);
    }

    @Override
    public String toString() {
        return "ReliableUdpTestNetwork[" + network + "]";
    }
}
