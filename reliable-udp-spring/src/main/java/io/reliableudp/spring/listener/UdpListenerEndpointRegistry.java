package io.reliableudp.spring.listener;

import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Holds the listener containers by id and starts and stops them with the application context. Its
 * {@link #PHASE} is below the node's: listeners are ready before the node binds and keep taking
 * messages while the node drains on shutdown.
 */
public class UdpListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

    /** The lifecycle phase of the registry and its containers. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private final Map<String, UdpMessageListenerContainer> containers = Collections.synchronizedMap(new LinkedHashMap<>());
    private volatile boolean running;

    /**
     * Creates a container for an endpoint and registers it.
     *
     * @param endpoint the endpoint
     * @param factory the container factory
     * @param methodFactory resolves method arguments
     * @return the container (started when the registry is running and the container auto-starts)
     * @throws IllegalStateException when the id is taken
     */
    public UdpMessageListenerContainer registerListenerContainer(UdpListenerEndpoint endpoint, UdpListenerContainerFactory factory,
            MessageHandlerMethodFactory methodFactory) {
        synchronized (containers) {
            if (containers.containsKey(endpoint.getId())) {
                throw new IllegalStateException("another UDP listener is registered with id '" + endpoint.getId() + "'");
            }
            UdpMessageListenerContainer container = factory.createContainer(endpoint, methodFactory);
            containers.put(endpoint.getId(), container);
            if (running && container.isAutoStartup()) {
                container.start();
            }
            return container;
        }
    }

    /**
     * The container of a listener.
     *
     * @param id the listener id
     * @return the container, or null
     */
    public @Nullable UdpMessageListenerContainer getListenerContainer(String id) {
        return containers.get(id);
    }

    /** Every container. */
    public Collection<UdpMessageListenerContainer> getListenerContainers() {
        synchronized (containers) {
            return java.util.List.copyOf(containers.values());
        }
    }

    @Override
    public void start() {
        for (UdpMessageListenerContainer c : getListenerContainers()) {
            if (c.isAutoStartup()) {
                c.start();
            }
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        for (UdpMessageListenerContainer c : getListenerContainers()) {
            c.stop();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public void destroy() {
        stop();
    }
}
