package io.reliableudp.spring.listener;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.spring.annotation.EnableUdpListeners;
import io.reliableudp.spring.annotation.UdpListenerConfigUtils;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReconnectPolicy;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.UdpChannels;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.support.DefaultUdpHeaderMapper;
import io.reliableudp.spring.support.ReliableUdpMessageConverters;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.testapp.AppPair;
import io.reliableudp.transport.InMemoryNetwork;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;
import tools.jackson.databind.json.JsonMapper;

/**
 * One application of a test, on plain Spring (no Boot auto-configuration): a node over the core's
 * in-memory network (the real protocol stack), a template and the default container factory under
 * {@code @EnableUdpListeners}, with JSON payloads. The container and Integration tests of this module
 * start their applications with it:
 *
 * <pre>{@code
 * server = new ListenerTestApp().channel("work", DeliveryMode.RELIABLE_ORDERED).start(ServerConfig.class);
 * client = new ListenerTestApp().channel("work", DeliveryMode.RELIABLE_ORDERED).peer("server", server).start();
 * }</pre>
 */
public final class ListenerTestApp {

    /** The network every test application joins. */
    public static final InMemoryNetwork NETWORK = new InMemoryNetwork();

    private final List<String> names = new ArrayList<>();
    private final List<ChannelConfig> channels = new ArrayList<>();
    private final Map<String, AckMode> ackModes = new LinkedHashMap<>();
    private final Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
    private final List<String> inboundHeaders = new ArrayList<>();
    private final List<PeerIdentity> allowedPeers = new ArrayList<>();
    private @org.jspecify.annotations.Nullable NodeIdentity identity;
    private long receiveMemoryLimit = -1;
    private int maxMessageSize = -1;
    private Duration replyTimeout = Duration.ofSeconds(20);
    private Consumer<DefaultUdpListenerContainerFactory> factory = f -> { };

    /** A channel, at the next index. */
    public ListenerTestApp channel(String name, DeliveryMode mode) {
        return channel(name, ChannelConfig.of(mode), AckMode.RECEIVED);
    }

    /** A channel with its ack mode, at the next index. */
    public ListenerTestApp channel(String name, DeliveryMode mode, AckMode ackMode) {
        return channel(name, ChannelConfig.of(mode), ackMode);
    }

    /** A channel with its queue limits and ack mode, at the next index. */
    public ListenerTestApp channel(String name, ChannelConfig config, AckMode ackMode) {
        names.add(name);
        channels.add(config);
        ackModes.put(name, ackMode);
        return this;
    }

    /** A named peer: the node of another test application. */
    public ListenerTestApp peer(String name, AnnotationConfigApplicationContext other) {
        peers.put(name, new InetSocketAddress("127.0.0.1", other.getBean(ManagedReliableUdpNode.class).localAddress().getPort()));
        return this;
    }

    /** A named peer at an address. */
    public ListenerTestApp peer(String name, InetSocketAddress address) {
        peers.put(name, address);
        return this;
    }

    /** The node's own key and the keys of the peers it lets in, by name. */
    public ListenerTestApp identity(NodeIdentity own, PeerIdentity... allowed) {
        this.identity = own;
        allowedPeers.addAll(List.of(allowed));
        return this;
    }

    /** The node's receive memory limit. */
    public ListenerTestApp receiveMemoryLimit(long bytes) {
        this.receiveMemoryLimit = bytes;
        return this;
    }

    /** The node's largest message. */
    public ListenerTestApp maxMessageSize(int bytes) {
        this.maxMessageSize = bytes;
        return this;
    }

    /** The template's reply timeout (default 20 s). */
    public ListenerTestApp replyTimeout(Duration timeout) {
        this.replyTimeout = timeout;
        return this;
    }

    /** Carried headers the application accepts from peers. */
    public ListenerTestApp inboundHeaders(String... headers) {
        inboundHeaders.addAll(List.of(headers));
        return this;
    }

    /** Changes the default container factory (a filter, an interceptor, a back off, a queue bound). */
    public ListenerTestApp factory(Consumer<DefaultUdpListenerContainerFactory> change) {
        this.factory = this.factory.andThen(change);
        return this;
    }

    /**
     * Starts the application.
     *
     * @param configurations the test's own configuration classes (listeners, flows)
     * @return the running context
     */
    public AnnotationConfigApplicationContext start(Class<?>... configurations) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(ListenerTestApp.class, () -> this);
        context.register(Infrastructure.class);
        if (configurations.length > 0) {
            context.register(configurations);
        }
        context.refresh();
        return context;
    }

    /**
     * Starts the two applications of a test with the same settings: a server, and a client that names it {@code server}.
     *
     * @param app the settings, called once for each application
     * @param serverConfigurations the server's own configuration classes (listeners, flows)
     * @return the running pair
     */
    public static AppPair<AnnotationConfigApplicationContext> startPair(Supplier<ListenerTestApp> app, Class<?>... serverConfigurations) {
        return AppPair.start(() -> app.get().start(serverConfigurations), server -> app.get().peer("server", server).start());
    }

    /** The node, template, converter and container factory of a test application. */
    @Configuration(proxyBeanMethods = false)
    @EnableUdpListeners
    static class Infrastructure {

        @Bean
        ManagedReliableUdpNode reliableUdpNode(ListenerTestApp app) {
            MessageConfig.Builder message = MessageConfig.builder();
            if (!app.channels.isEmpty()) {
                message.channels(app.channels);
            }
            if (app.receiveMemoryLimit > 0) {
                message.receiveMemoryLimit(app.receiveMemoryLimit);
            }
            if (app.maxMessageSize > 0) {
                message.maxMessageSize(app.maxMessageSize);
            }
            NodeConfig.Builder node = NodeConfig.builder().message(message.build());
            if (app.identity != null) {
                node.identity(app.identity).allowedPeers(app.allowedPeers);
            }
            NodeConfig config = node.build();
            Map<Integer, String> byIndex = new LinkedHashMap<>();
            for (int i = 0; i < app.names.size(); i++) {
                byIndex.put(i, app.names.get(i));
            }
            return new ManagedReliableUdpNode(config, (c, l) -> ReliableUdpNode.start(c, l, NETWORK.open(c.bindAddress())),
                    new UdpChannels(config, byIndex), new UdpPeerDirectory(app.peers, ReconnectPolicy.DEFAULT), Duration.ofSeconds(1));
        }

        @Bean(name = UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
        CompositeMessageConverter reliableUdpMessageConverter() {
            return ReliableUdpMessageConverters.create(new JacksonJsonMessageConverter(JsonMapper.builder().build()));
        }

        @Bean
        ReliableUdpMessageMapper reliableUdpMessageMapper(
                @Qualifier(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME) CompositeMessageConverter converter, ListenerTestApp app) {
            DefaultUdpHeaderMapper headers = new DefaultUdpHeaderMapper();
            headers.setInboundHeaderNames(app.inboundHeaders.toArray(String[]::new));
            return new ReliableUdpMessageMapper(converter, headers);
        }

        @Bean
        ReliableUdpTemplate reliableUdpTemplate(ManagedReliableUdpNode node, ReliableUdpMessageMapper mapper, ListenerTestApp app) {
            ReliableUdpTemplate template = new ReliableUdpTemplate(node);
            template.setMessageMapper(mapper);
            template.setReplyTimeout(app.replyTimeout);
            app.ackModes.forEach((channel, mode) -> {
                if (mode != AckMode.RECEIVED) {
                    template.setAckMode(channel, mode);
                }
            });
            return template;
        }

        @Bean(name = UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
        DefaultUdpListenerContainerFactory udpListenerContainerFactory(ManagedReliableUdpNode node, ReliableUdpTemplate template,
                ListenerTestApp app) {
            DefaultUdpListenerContainerFactory factory = new DefaultUdpListenerContainerFactory(node, Executors.newVirtualThreadPerTaskExecutor());
            factory.setReplyTemplate(template);
            app.factory.accept(factory);
            return factory;
        }
    }
}
