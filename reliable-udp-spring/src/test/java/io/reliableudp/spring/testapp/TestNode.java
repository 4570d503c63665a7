package io.reliableudp.spring.testapp;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.spring.annotation.EnableUdpListeners;
import io.reliableudp.spring.annotation.UdpListenerConfigUtils;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReconnectPolicy;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.UdpChannels;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory;
import io.reliableudp.transport.InMemoryNetwork;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * One node of the Spring library's tests as a plain Spring application (no Boot): an application context
 * with {@link EnableUdpListeners}, a {@link ManagedReliableUdpNode} running the real protocol stack on
 * the core's {@link InMemoryNetwork}, a {@link ReliableUdpTemplate} and the default listener container
 * factory, plus the test's own {@code @Configuration} classes (its listeners). Two of them on one
 * network are the two applications of a messaging test; a node names the other as a peer with
 * {@link Builder#peer(String, TestNode)}.
 *
 * <pre>{@code
 * InMemoryNetwork network = new InMemoryNetwork();
 * try (TestNode server = TestNode.builder(network).channel("events", DeliveryMode.RELIABLE_ORDERED)
 *         .configuration(ServerListeners.class).start();
 *      TestNode client = TestNode.builder(network).channel("events", DeliveryMode.RELIABLE_ORDERED)
 *         .peer("server", server).start()) {
 *     client.template().send("server", "events", "hello").get();
 * }
 * }</pre>
 */
public final class TestNode implements AutoCloseable {

    private final AnnotationConfigApplicationContext context;

    private TestNode(AnnotationConfigApplicationContext context) {
        this.context = context;
    }

    /**
     * A node on a network.
     *
     * @param network the in-memory network its socket is opened on
     * @return the builder
     */
    public static Builder builder(InMemoryNetwork network) {
        return new Builder(network);
    }

    /** The application context. */
    public AnnotationConfigApplicationContext context() {
        return context;
    }

    /** The node. */
    public ManagedReliableUdpNode node() {
        return context.getBean(ManagedReliableUdpNode.class);
    }

    /** The template. */
    public ReliableUdpTemplate template() {
        return context.getBean(ReliableUdpTemplate.class);
    }

    /**
     * A bean of the context (e.g. the test's listeners).
     *
     * @param type its type
     * @param <T> the type
     * @return the bean
     */
    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** The node's bound address (127.0.0.1 and its port on the in-memory network). */
    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", node().localAddress().getPort());
    }

    /** {@code 127.0.0.1:port}: how a template names this node without a configured peer name. */
    public String target() {
        return "127.0.0.1:" + node().localAddress().getPort();
    }

    @Override
    public void close() {
        context.close();
    }

    /** How a test node is built. */
    public static final class Builder {

        private final InMemoryNetwork network;
        private final List<ChannelConfig> channels = new ArrayList<>();
        private final Map<Integer, String> channelNames = new LinkedHashMap<>();
        private final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
        private final List<Class<?>> configurations = new ArrayList<>();
        private final List<Consumer<AnnotationConfigApplicationContext>> customizers = new ArrayList<>();
        private ReconnectPolicy reconnectPolicy = ReconnectPolicy.DEFAULT;
        private Duration drainTimeout = Duration.ofSeconds(2);
        private Consumer<ReliableUdpTemplate> templateCustomizer = t -> { };
        private Consumer<DefaultUdpListenerContainerFactory> factoryCustomizer = f -> { };
        private boolean autoStartup = true;
        private Consumer<NodeConfig.Builder> nodeConfig = b -> { };
        private UnaryOperator<ReliableUdpNodeFactory> nodeFactory = f -> f;

        private Builder(InMemoryNetwork network) {
            this.network = Objects.requireNonNull(network, "network");
        }

        /**
         * Adds a channel at the next index (without any, the core's default channels, named by index).
         *
         * @param name its name
         * @param mode its delivery mode
         * @return this
         */
        public Builder channel(String name, DeliveryMode mode) {
            return channel(name, ChannelConfig.of(mode));
        }

        /**
         * Adds a channel at the next index.
         *
         * @param name its name
         * @param config its settings
         * @return this
         */
        public Builder channel(String name, ChannelConfig config) {
            channelNames.put(channels.size(), name);
            channels.add(config);
            return this;
        }

        /**
         * Names a peer.
         *
         * @param name the name
         * @param address its address
         * @return this
         */
        public Builder peer(String name, InetSocketAddress address) {
            peers.put(name, address);
            return this;
        }

        /**
         * Names another test node as a peer.
         *
         * @param name the name
         * @param node the node (started)
         * @return this
         */
        public Builder peer(String name, TestNode node) {
            return peer(name, node.address());
        }

        /**
         * Sets the reconnect backoff of named peers.
         *
         * @param reconnectPolicy the policy
         * @return this
         */
        public Builder reconnectPolicy(ReconnectPolicy reconnectPolicy) {
            this.reconnectPolicy = reconnectPolicy;
            return this;
        }

        /**
         * Sets how long the node drains when its context closes (default 2 s).
         *
         * @param drainTimeout the timeout
         * @return this
         */
        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        /**
         * Adds configuration classes (the test's listeners and beans).
         *
         * @param classes the classes
         * @return this
         */
        public Builder configuration(Class<?>... classes) {
            configurations.addAll(List.of(classes));
            return this;
        }

        /**
         * Adjusts the template (default peer, ack modes, observation registry...).
         *
         * @param customizer the adjustment
         * @return this
         */
        public Builder template(Consumer<ReliableUdpTemplate> customizer) {
            this.templateCustomizer = templateCustomizer.andThen(customizer);
            return this;
        }

        /**
         * Adjusts the default listener container factory.
         *
         * @param customizer the adjustment
         * @return this
         */
        public Builder containerFactory(Consumer<DefaultUdpListenerContainerFactory> customizer) {
            this.factoryCustomizer = factoryCustomizer.andThen(customizer);
            return this;
        }

        /**
         * Registers more beans before the context refreshes.
         *
         * @param customizer what to register
         * @return this
         */
        public Builder context(Consumer<AnnotationConfigApplicationContext> customizer) {
            customizers.add(customizer);
            return this;
        }

        /**
         * Adjusts the node's settings (a fixed port, timeouts...); the channels are the builder's.
         *
         * @param customizer the adjustment
         * @return this
         */
        public Builder nodeConfig(Consumer<NodeConfig.Builder> customizer) {
            this.nodeConfig = nodeConfig.andThen(customizer);
            return this;
        }

        /**
         * Wraps the factory that starts the node on the network (to hold or gate what it does).
         *
         * @param wrapper takes the network's factory, returns the one to use
         * @return this
         */
        public Builder nodeFactory(UnaryOperator<ReliableUdpNodeFactory> wrapper) {
            this.nodeFactory = wrapper;
            return this;
        }

        /**
         * Whether the node starts with the context (default true).
         *
         * @param autoStartup false to start it by hand
         * @return this
         */
        public Builder autoStartup(boolean autoStartup) {
            this.autoStartup = autoStartup;
            return this;
        }

        /**
         * Builds and refreshes the context: the node is bound (and connecting to its named peers) when this returns.
         *
         * @return the running node
         */
        public TestNode start() {
            MessageConfig message = channels.isEmpty() ? MessageConfig.defaults()
                    : MessageConfig.builder().channels(channels).build();
            NodeConfig.Builder configBuilder = NodeConfig.builder().message(message);
            nodeConfig.accept(configBuilder);
            NodeConfig config = configBuilder.build();
            UdpChannels udpChannels = new UdpChannels(config, channelNames);
            UdpPeerDirectory directory = new UdpPeerDirectory(peers, reconnectPolicy);
            ReliableUdpNodeFactory onTheNetwork = (c, l) -> ReliableUdpNode.start(c, l, network.open(c.bindAddress()));
            ManagedReliableUdpNode node = new ManagedReliableUdpNode(config, nodeFactory.apply(onTheNetwork), udpChannels, directory,
                    drainTimeout);
            node.setAutoStartup(autoStartup);
            ReliableUdpTemplate template = new ReliableUdpTemplate(node);
            templateCustomizer.accept(template);
            ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
            DefaultUdpListenerContainerFactory factory = new DefaultUdpListenerContainerFactory(node, executor);
            factory.setReplyTemplate(template);
            factory.setMessageMapper(template.getMessageMapper());
            factoryCustomizer.accept(factory);

            AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
            context.registerBean(ManagedReliableUdpNode.class, () -> node);
            context.registerBean(ReliableUdpTemplate.class, () -> template);
            context.registerBean(UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME, DefaultUdpListenerContainerFactory.class,
                    () -> factory);
            context.registerBean("testNodeListenerExecutor", ExecutorService.class, () -> executor,
                    bd -> bd.setDestroyMethodName("close"));
            context.register(ListenersEnabled.class);
            configurations.forEach(context::register);
            customizers.forEach(c -> c.accept(context));
            node.setEventPublisher(context, executor);
            try {
                context.refresh();
            } catch (RuntimeException e) {
                context.close();
                throw e;
            }
            return new TestNode(context);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableUdpListeners
    static class ListenersEnabled {
    }
}
