package io.reliableudp.spring.boot.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import org.springframework.context.SmartLifecycle;

/**
 * Meters of the listener containers (tag {@code listener}: the listener id): the messages in hand
 * ({@code reliable.udp.listener.queued}), the times a full queue paused the listener's channels
 * ({@code reliable.udp.listener.pauses}) and the messages a stopping container could not hand to its
 * listener ({@code reliable.udp.listener.not.processed}). Registered when the containers have started
 * (for the containers of the registry then); they read the containers' own counters.
 */
public final class ReliableUdpListenerMetrics implements SmartLifecycle {

    /** Meter: messages in hand (queued for the listener or running), a gauge. */
    public static final String QUEUED = "reliable.udp.listener.queued";
    /** Meter: times the queue reached its bound and the listener's channels were paused, a counter. */
    public static final String PAUSES = "reliable.udp.listener.pauses";
    /** Meter: messages a stopping container could not hand to its listener, a counter. */
    public static final String NOT_PROCESSED = "reliable.udp.listener.not.processed";

    private final MeterRegistry registry;
    private final UdpListenerEndpointRegistry listeners;
    private final Set<String> bound = new HashSet<>();
    private volatile boolean running;

    /**
     * Creates the meters' publisher.
     *
     * @param registry where the meters go
     * @param listeners the listener containers
     */
    public ReliableUdpListenerMetrics(MeterRegistry registry, UdpListenerEndpointRegistry listeners) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.listeners = Objects.requireNonNull(listeners, "listeners");
    }

    @Override
    public synchronized void start() {
        for (UdpMessageListenerContainer c : listeners.getListenerContainers()) {
            if (!bound.add(c.getId())) {
                continue;
            }
            Tags tags = Tags.of("listener", c.getId());
            Gauge.builder(QUEUED, c, UdpMessageListenerContainer::getQueuedCount).tags(tags)
                    .description("Messages the listener holds in hand (queued for it or running)").register(registry);
            FunctionCounter.builder(PAUSES, c, x -> x.getBackPressurePauseCount()).tags(tags)
                    .description("Times the listener's queue reached its bound and its channels were paused").register(registry);
            FunctionCounter.builder(NOT_PROCESSED, c, x -> x.getNotProcessedCount()).tags(tags)
                    .description("Messages a stopping listener container could not hand to its listener").register(registry);
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

    /** After the listener registry has started its containers. */
    @Override
    public int getPhase() {
        return UdpListenerEndpointRegistry.PHASE + 1;
    }
}
