package io.reliableudp.spring.listener;

import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.backoff.BackOff;

/**
 * The default container factory: shared executor, reply template, error handler, observations, and the
 * hooks every container it makes gets: a {@link UdpMessageFilter}, a {@link UdpMessageInterceptor} and a
 * {@link UdpContainerCustomizer} (applied last).
 */
public class DefaultUdpListenerContainerFactory implements UdpListenerContainerFactory {

    private @Nullable ManagedReliableUdpNode node;
    private @Nullable Executor executor;
    private @Nullable ReliableUdpTemplate replyTemplate;
    private @Nullable UdpListenerErrorHandler errorHandler;
    private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private @Nullable ReliableUdpListenerObservationConvention observationConvention;
    private boolean autoStartup = true;
    private java.time.Duration shutdownTimeout = java.time.Duration.ofSeconds(5);
    private @Nullable ReliableUdpMessageMapper messageMapper;
    private @Nullable BackOff backOff;
    private int concurrency = 1;
    private boolean errorReplyDetails;
    private int maxQueuedMessages = UdpMessageListenerContainer.DEFAULT_MAX_QUEUED_MESSAGES;
    private @Nullable UdpMessageFilter messageFilter;
    private @Nullable UdpMessageInterceptor messageInterceptor;
    private @Nullable UdpContainerCustomizer containerCustomizer;

    /**
     * Sets the filter of the containers; see {@link UdpMessageListenerContainer#setMessageFilter}.
     *
     * @param messageFilter the filter, or null for none
     */
    public void setMessageFilter(@Nullable UdpMessageFilter messageFilter) {
        this.messageFilter = messageFilter;
    }

    /**
     * Sets the interceptor of the containers; see {@link UdpMessageListenerContainer#setMessageInterceptor}.
     *
     * @param messageInterceptor the interceptor, or null for none
     */
    public void setMessageInterceptor(@Nullable UdpMessageInterceptor messageInterceptor) {
        this.messageInterceptor = messageInterceptor;
    }

    /**
     * Sets what changes each container once the factory configured it.
     *
     * @param containerCustomizer the customizer, or null for none
     */
    public void setContainerCustomizer(@Nullable UdpContainerCustomizer containerCustomizer) {
        this.containerCustomizer = containerCustomizer;
    }

    /**
     * Sets the most messages each listener holds in hand before its channels are paused in the node;
     * see {@link UdpMessageListenerContainer#setMaxQueuedMessages}.
     *
     * @param maxQueuedMessages at least 1
     */
    public void setMaxQueuedMessages(int maxQueuedMessages) {
        if (maxQueuedMessages < 1) {
            throw new IllegalArgumentException("maxQueuedMessages must be >= 1, was " + maxQueuedMessages);
        }
        this.maxQueuedMessages = maxQueuedMessages;
    }

    /**
     * Sets whether error replies carry the exception's class name and message (default false: a
     * category only); see {@link UdpMessageListenerContainer#setErrorReplyDetails}.
     *
     * @param errorReplyDetails the flag
     */
    public void setErrorReplyDetails(boolean errorReplyDetails) {
        this.errorReplyDetails = errorReplyDetails;
    }

    /**
     * Sets the default retry of failed listener calls (an endpoint's own wins).
     *
     * @param backOff the back off, or null for no retries
     */
    public void setBackOff(@Nullable BackOff backOff) {
        this.backOff = backOff;
    }

    /**
     * Sets the default concurrency of unordered channels (an endpoint's own wins).
     *
     * @param concurrency at least 1
     */
    public void setConcurrency(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1, was " + concurrency);
        }
        this.concurrency = concurrency;
    }

    /**
     * Sets the message mapper of the containers (default: the reply template's, else the default mapper).
     *
     * @param messageMapper the mapper, or null for the default
     */
    public void setMessageMapper(@Nullable ReliableUdpMessageMapper messageMapper) {
        this.messageMapper = messageMapper;
    }

    /**
     * Sets how long a stopping container waits for the messages it already took.
     *
     * @param shutdownTimeout the timeout
     */
    public void setShutdownTimeout(java.time.Duration shutdownTimeout) {
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
    }

    /**
     * Creates the factory.
     *
     * @param node the node
     * @param executor runs listeners (virtual threads in the auto-configuration)
     */
    public DefaultUdpListenerContainerFactory(ManagedReliableUdpNode node, Executor executor) {
        this.node = Objects.requireNonNull(node, "node");
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /**
     * Creates a factory to be configured with {@link #setNode} and {@link #setExecutor} (with Boot:
     * by the {@code UdpListenerContainerFactoryConfigurer}, which applies the properties).
     */
    public DefaultUdpListenerContainerFactory() {
    }

    /**
     * Sets the node whose messages the containers receive.
     *
     * @param node the node
     */
    public void setNode(ManagedReliableUdpNode node) {
        this.node = Objects.requireNonNull(node, "node");
    }

    /**
     * Sets the executor listeners run on.
     *
     * @param executor the executor
     */
    public void setExecutor(Executor executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    /**
     * Sets the template used to send replies.
     *
     * @param replyTemplate the template, or null (replies are dropped with a warning)
     */
    public void setReplyTemplate(@Nullable ReliableUdpTemplate replyTemplate) {
        this.replyTemplate = replyTemplate;
    }

    /**
     * Sets the default error handler.
     *
     * @param errorHandler the handler, or null to log failures
     */
    public void setErrorHandler(@Nullable UdpListenerErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
    }

    /**
     * Sets the observation registry.
     *
     * @param observationRegistry the registry
     */
    public void setObservationRegistry(ObservationRegistry observationRegistry) {
        this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry");
    }

    /**
     * Sets a custom observation convention.
     *
     * @param observationConvention the convention, or null for the default
     */
    public void setObservationConvention(@Nullable ReliableUdpListenerObservationConvention observationConvention) {
        this.observationConvention = observationConvention;
    }

    /**
     * Sets whether containers start with the registry by default.
     *
     * @param autoStartup the flag
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public UdpMessageListenerContainer createContainer(UdpListenerEndpoint endpoint, MessageHandlerMethodFactory methodFactory) {
        ManagedReliableUdpNode n = node;
        Executor e = executor;
        if (n == null || e == null) {
            throw new IllegalStateException("the container factory needs a node and an executor (setNode, setExecutor)");
        }
        UdpMessageListenerContainer container = new UdpMessageListenerContainer(endpoint, endpoint.createHandler(methodFactory),
                n, e, replyTemplate, errorHandler);
        container.setShutdownTimeout(shutdownTimeout);
        container.setErrorReplyDetails(errorReplyDetails);
        container.setMaxQueuedMessages(maxQueuedMessages);
        if (endpoint.getBackOff() == null) {
            container.setBackOff(backOff);
        }
        if (endpoint.getConcurrency() == null) {
            container.setConcurrency(concurrency);
        }
        if (messageMapper != null) {
            container.setMessageMapper(messageMapper);
        }
        container.setObservationRegistry(observationRegistry);
        container.setObservationConvention(observationConvention);
        container.setAutoStartup(endpoint.getAutoStartup() != null ? endpoint.getAutoStartup() : autoStartup);
        container.setMessageFilter(messageFilter);
        container.setMessageInterceptor(messageInterceptor);
        if (containerCustomizer != null) {
            containerCustomizer.configure(container);
        }
        return container;
    }
}
