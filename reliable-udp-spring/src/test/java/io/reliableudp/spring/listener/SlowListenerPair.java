package io.reliableudp.spring.listener;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The two applications of the back-pressure and stop tests: a server whose one listener ({@code slow},
 * on channel {@code slow} and on channel {@code waiting}, whose senders wait for the listener) takes a
 * while per message, and a client that sends to it.
 */
final class SlowListenerPair implements AutoCloseable {

    final AnnotationConfigApplicationContext server;
    final AnnotationConfigApplicationContext client;
    final ManagedReliableUdpNode serverNode;
    final ReliableUdpTemplate template;
    final UdpMessageListenerContainer container;
    final SlowListener listener;

    /**
     * Starts both applications.
     *
     * @param listenerTime what the listener takes per message
     * @param serverSettings settings of the server beyond its channels
     * @param clientQueue the most messages the client queues on channel {@code slow}
     */
    SlowListenerPair(Duration listenerTime, Consumer<ListenerTestApp> serverSettings, int clientQueue) {
        ListenerTestApp serverApp = channels(new ListenerTestApp(), ChannelConfig.DEFAULT_MAX_QUEUED_MESSAGES);
        serverSettings.accept(serverApp);
        server = serverApp.start(SlowListenerConfig.class);
        client = channels(new ListenerTestApp(), clientQueue).replyTimeout(Duration.ofSeconds(30)).peer("server", server).start();
        serverNode = server.getBean(ManagedReliableUdpNode.class);
        template = client.getBean(ReliableUdpTemplate.class);
        container = Objects.requireNonNull(server.getBean(UdpListenerEndpointRegistry.class).getListenerContainer("slow"));
        listener = server.getBean(SlowListener.class);
        listener.millis = listenerTime.toMillis();
    }

    private static ListenerTestApp channels(ListenerTestApp app, int slowQueue) {
        return app.channel("slow", new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, slowQueue, ChannelConfig.DEFAULT_MAX_QUEUED_BYTES),
                AckMode.RECEIVED).channel("waiting", DeliveryMode.RELIABLE_ORDERED, AckMode.PROCESSED);
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }

    static class SlowListener {
        final List<String> handled = Collections.synchronizedList(new ArrayList<>());
        volatile long millis;

        @UdpMessageListener(id = "slow", channels = { "slow", "waiting" })
        void onMessage(String text) throws InterruptedException {
            Thread.sleep(millis);
            handled.add(text);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class SlowListenerConfig {
        @Bean
        SlowListener slowListener() {
            return new SlowListener();
        }
    }
}
