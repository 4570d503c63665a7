package io.reliableudp.spring.annotation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.MessageConfig;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReconnectPolicy;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.UdpChannels;
import io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory;
import io.reliableudp.spring.listener.SimpleUdpListenerEndpoint;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import io.reliableudp.transport.InMemoryNetwork;
import io.reliableudp.transport.ReliableUdpNode;
import io.reliableudp.transport.NodeConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.PropertySourcesPlaceholderConfigurer;
import org.springframework.core.env.MapPropertySource;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;

/** Manual use without Boot: {@code @EnableUdpListeners}, placeholders, autoStartup, peer filters, programmatic endpoints. */
@Timeout(60)
class EnableUdpListenersTests {

    /** The real protocol stack over the core's in-memory datagram network. */
    static final InMemoryNetwork NETWORK = new InMemoryNetwork();

    @Test
    void listenersWorkWithoutAutoConfiguration() throws Exception {
        try (AnnotationConfigApplicationContext server = context()) {
            ManagedReliableUdpNode serverNode = server.getBean(ManagedReliableUdpNode.class);
            try (AnnotationConfigApplicationContext client = context()) {
                ReliableUdpTemplate template = new ReliableUdpTemplate(client.getBean(ManagedReliableUdpNode.class));
                String address = "127.0.0.1:" + serverNode.localAddress().getPort();
                for (String channel : List.of("0", "1", "2")) {
                    template.send(address, channel, "on-" + channel).get(5, TimeUnit.SECONDS);
                }
                Listeners listeners = server.getBean(Listeners.class);
                await().atMost(Duration.ofSeconds(5)).until(() -> listeners.all.size() == 3 && listeners.one.size() == 1);
                assertThat(listeners.all).containsExactlyInAnyOrder("on-0", "on-1", "on-2");
                assertThat(listeners.one).containsExactly("on-1");
                await().atMost(Duration.ofSeconds(5)).until(() -> listeners.zero.size() == 1);
                assertThat(listeners.zero).containsExactly("on-0");
                UdpListenerEndpointRegistry registry = server.getBean(UdpListenerEndpointRegistry.class);
                // autoStartup = ${app.start} = false: registered, not started
                UdpMessageListenerContainer stopped = registry.getListenerContainer("notStarted");
                assertThat(stopped).isNotNull();
                assertThat(stopped.isRunning()).isFalse();
                assertThat(listeners.notStarted).isEmpty();
                // peer filter: this client is not among the configured peers
                assertThat(listeners.filtered).isEmpty();
                // a programmatic endpoint
                List<String> programmatic = new CopyOnWriteArrayList<>();
                DefaultMessageHandlerMethodFactory methodFactory = new DefaultMessageHandlerMethodFactory();
                methodFactory.afterPropertiesSet();
                SimpleUdpListenerEndpoint endpoint = new SimpleUdpListenerEndpoint("programmatic", m -> {
                    programmatic.add(new String((byte[]) m.getPayload(), StandardCharsets.UTF_8));
                    return null;
                });
                endpoint.setChannels(List.of("2"));
                registry.registerListenerContainer(endpoint, server.getBean(DefaultUdpListenerContainerFactory.class), methodFactory);
                template.send(address, "2", "later").get(5, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(5)).until(() -> programmatic.contains("later"));
            }
        }
    }

    private static AnnotationConfigApplicationContext context() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", Map.of(
                "app.channel", "1", "app.start", "false", "app.peers", "127.0.0.1:1, [::1]:2")));
        context.register(ManualConfig.class);
        context.refresh();
        return context;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableUdpListeners
    static class ManualConfig {

        @Bean
        static PropertySourcesPlaceholderConfigurer placeholders() {
            return new PropertySourcesPlaceholderConfigurer();
        }

        @Bean
        ManagedReliableUdpNode node() {
            NodeConfig config = NodeConfig.builder().message(MessageConfig.defaults()).build();
            return new ManagedReliableUdpNode(config, (c, l) -> ReliableUdpNode.start(c, l, NETWORK.open(c.bindAddress())), new UdpChannels(config, Map.of()), Map.of(),
                    ReconnectPolicy.DEFAULT, Duration.ofSeconds(1));
        }

        @Bean
        DefaultUdpListenerContainerFactory udpListenerContainerFactory(ManagedReliableUdpNode node) {
            return new DefaultUdpListenerContainerFactory(node, Executors.newVirtualThreadPerTaskExecutor());
        }

        @Bean
        Listeners listeners() {
            return new Listeners();
        }
    }

    /** A composed annotation: {@code @UdpMessageListener} works as a meta-annotation. */
    @java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
    @java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
    @UdpMessageListener(channels = "0")
    @interface OnChannelZero {
    }

    static class Listeners {
        final List<String> zero = new CopyOnWriteArrayList<>();
        final List<String> all = new CopyOnWriteArrayList<>();
        final List<String> one = new CopyOnWriteArrayList<>();
        final List<String> notStarted = new CopyOnWriteArrayList<>();
        final List<String> filtered = new CopyOnWriteArrayList<>();

        @OnChannelZero
        void zero(String text) {
            zero.add(text);
        }

        @UdpMessageListener
        void all(String text) {
            all.add(text);
        }

        @UdpMessageListener(channels = "${app.channel}")
        void one(String text) {
            one.add(text);
        }

        @UdpMessageListener(id = "notStarted", autoStartup = "${app.start}")
        void notStarted(String text) {
            notStarted.add(text);
        }

        @UdpMessageListener(peers = "${app.peers:}")
        void filtered(String text) {
            filtered.add(text);
        }
    }
}
