package io.reliableudp.spring.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory;
import io.reliableudp.spring.listener.UdpContainerCustomizer;
import io.reliableudp.spring.listener.UdpListenerErrorHandler;
import io.reliableudp.spring.listener.UdpMessageFilter;
import io.reliableudp.spring.listener.UdpMessageInterceptor;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOff;

/**
 * Applies the auto-configuration's wiring to a {@link DefaultUdpListenerContainerFactory}: the node,
 * the listener executor, the reply template, the unique {@link UdpListenerErrorHandler} bean (the
 * recoverer), the retry back off ({@code reliable-udp.listener.retry.*}, or the
 * {@code reliableUdpListenerBackOff} bean), the concurrency, the {@code reliable-udp.listener.*} properties, the drain timeout, the observations,
 * and the unique {@link UdpMessageFilter}, {@link UdpMessageInterceptor} and {@link UdpContainerCustomizer} beans (as Boot's
 * Kafka configuration applies a {@code RecordFilterStrategy}, a {@code RecordInterceptor} and a {@code ContainerCustomizer}). Inject it to build
 * a factory of your own that keeps that wiring (as Boot's {@code ConcurrentKafkaListenerContainerFactoryConfigurer}):
 *
 * <pre>{@code
 * @Bean
 * DefaultUdpListenerContainerFactory slowListeners(UdpListenerContainerFactoryConfigurer configurer) {
 *     DefaultUdpListenerContainerFactory factory = new DefaultUdpListenerContainerFactory();
 *     configurer.configure(factory);
 *     factory.setAutoStartup(false);      // then change what differs
 *     return factory;
 * }
 * }</pre>
 */
public final class UdpListenerContainerFactoryConfigurer {

    private final ManagedReliableUdpNode node;
    private final ReliableUdpTemplate replyTemplate;
    private final Executor executor;
    private final ReliableUdpProperties.Listener listener;
    private final @Nullable BackOff backOff;
    private final Duration shutdownTimeout;
    private final @Nullable UdpListenerErrorHandler errorHandler;
    private final ObservationRegistry observationRegistry;
    private final @Nullable ReliableUdpListenerObservationConvention observationConvention;
    private final Hooks hooks;

    /**
     * The hooks every container of the factory gets.
     *
     * @param filter the filter bean, or null
     * @param interceptor the interceptor bean, or null
     * @param customizer the customizer bean, or null
     */
    record Hooks(@Nullable UdpMessageFilter filter, @Nullable UdpMessageInterceptor interceptor, @Nullable UdpContainerCustomizer customizer) {
    }

    UdpListenerContainerFactoryConfigurer(ManagedReliableUdpNode node, ReliableUdpTemplate replyTemplate, Executor executor,
            ReliableUdpProperties.Listener listener, @Nullable BackOff backOff, Duration shutdownTimeout, @Nullable UdpListenerErrorHandler errorHandler,
            ObservationRegistry observationRegistry, @Nullable ReliableUdpListenerObservationConvention observationConvention, Hooks hooks) {
        this.node = node;
        this.replyTemplate = replyTemplate;
        this.executor = executor;
        this.listener = listener;
        this.backOff = backOff;
        this.shutdownTimeout = shutdownTimeout;
        this.errorHandler = errorHandler;
        this.observationRegistry = observationRegistry;
        this.observationConvention = observationConvention;
        this.hooks = hooks;
    }

    /**
     * Configures a factory with the auto-configuration's settings.
     *
     * @param factory the factory to configure
     */
    public void configure(DefaultUdpListenerContainerFactory factory) {
        factory.setNode(node);
        factory.setExecutor(executor);
        factory.setReplyTemplate(replyTemplate);
        factory.setErrorHandler(errorHandler);
        factory.setAutoStartup(listener.autoStartup());
        factory.setConcurrency(listener.concurrency());
        factory.setErrorReplyDetails(listener.errorReplyDetails());
        factory.setMaxQueuedMessages(listener.maxQueuedMessages());
        factory.setBackOff(backOff);
        factory.setShutdownTimeout(shutdownTimeout);
        factory.setObservationRegistry(observationRegistry);
        factory.setObservationConvention(observationConvention);
        factory.setMessageFilter(hooks.filter());
        factory.setMessageInterceptor(hooks.interceptor());
        factory.setContainerCustomizer(hooks.customizer());
    }
}
