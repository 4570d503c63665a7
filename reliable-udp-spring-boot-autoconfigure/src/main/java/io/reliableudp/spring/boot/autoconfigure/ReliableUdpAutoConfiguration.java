package io.reliableudp.spring.boot.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.annotation.EnableUdpListeners;
import io.reliableudp.spring.annotation.UdpListenerConfigUtils;
import io.reliableudp.spring.core.AckMode;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReconnectPolicy;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import io.reliableudp.spring.core.UdpChannels;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.core.UdpPeerGroup;
import io.reliableudp.spring.core.UdpPeerGroupProvider;
import io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory;
import io.reliableudp.spring.listener.UdpContainerCustomizer;
import io.reliableudp.spring.listener.UdpMessageFilter;
import io.reliableudp.spring.listener.UdpMessageInterceptor;
import io.reliableudp.spring.listener.UdpListenerErrorHandler;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.OpenTelemetryReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.OpenTelemetryReliableUdpTemplateObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpTemplateObservationConvention;
import io.reliableudp.spring.support.DefaultUdpHeaderMapper;
import io.reliableudp.spring.support.ReliableUdpMessageConverters;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.UdpHeaderMapper;
import io.reliableudp.spring.support.UdpTypeMapper;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.task.SimpleAsyncTaskSchedulerBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import tools.jackson.databind.json.JsonMapper;

/**
 * Auto-configuration of reliable-udp: the node (bound when the context starts, drained when it stops),
 * the template, the payload converter, the listener executor and the {@code @UdpMessageListener}
 * infrastructure. Every bean backs off when the application declares its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration",
        "org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass(ReliableUdpNode.class)
@ConditionalOnBooleanProperty(name = "reliable-udp.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ ReliableUdpProperties.class, ReliableUdpTypeProperties.class })
@Import({ ReliableUdpAutoConfiguration.JsonConverterConfiguration.class, ReliableUdpAutoConfiguration.PlainConverterConfiguration.class,
        ReliableUdpAutoConfiguration.ListenerConfiguration.class })
public final class ReliableUdpAutoConfiguration {

    /** Bean name of the executor listeners run on. */
    public static final String LISTENER_EXECUTOR_BEAN_NAME = "reliableUdpListenerExecutor";

    /** Bean name of the scheduler built when the application has no {@link TaskScheduler} bean. */
    public static final String TASK_SCHEDULER_BEAN_NAME = "reliableUdpTaskScheduler";

    @Bean
    @ConditionalOnMissingBean
    NodeConfig reliableUdpNodeConfig(ReliableUdpProperties properties, ObjectProvider<ReliableUdpNodeCustomizer> customizers) {
        NodeConfig.Builder builder = NodeConfigMapper.toBuilder(properties);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    ReliableUdpNodeFactory reliableUdpNodeFactory() {
        return ReliableUdpNode::start;
    }

    @Bean
    @ConditionalOnMissingBean
    UdpChannels reliableUdpChannels(NodeConfig config, ReliableUdpProperties properties) {
        return new UdpChannels(config, NodeConfigMapper.channelNames(properties));
    }

    @Bean(name = LISTENER_EXECUTOR_BEAN_NAME, defaultCandidate = false)
    @ConditionalOnMissingBean(name = LISTENER_EXECUTOR_BEAN_NAME)
    @ConditionalOnThreading(Threading.VIRTUAL)
    SimpleAsyncTaskExecutor reliableUdpVirtualListenerExecutor() {
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("rudp-listener-");
        executor.setVirtualThreads(true);
        return executor;
    }

    @Bean(name = LISTENER_EXECUTOR_BEAN_NAME, defaultCandidate = false)
    @ConditionalOnMissingBean(name = LISTENER_EXECUTOR_BEAN_NAME)
    @ConditionalOnThreading(Threading.PLATFORM)
    SimpleAsyncTaskExecutor reliableUdpListenerExecutor() {
        // Listener methods run on virtual threads even when the application's own executors use
        // platform threads (Boot's default): the container runs one task per serial (peer, channel)
        // queue while it has work, which is what virtual threads are cheap for, and a blocking listener
        // then costs no OS thread. An application that wants platform threads defines this bean.
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("rudp-listener-");
        executor.setVirtualThreads(true);
        return executor;
    }

    /** The scheduler of reconnects and metric refreshes when the application has none of its own. */
    @Bean(name = TASK_SCHEDULER_BEAN_NAME, defaultCandidate = false)
    @ConditionalOnMissingBean({ TaskScheduler.class })
    SimpleAsyncTaskScheduler reliableUdpTaskScheduler(ObjectProvider<SimpleAsyncTaskSchedulerBuilder> builder) {
        return builder.getIfAvailable(SimpleAsyncTaskSchedulerBuilder::new).threadNamePrefix("rudp-scheduler-").build();
    }

    /**
     * The application's unique {@link TaskScheduler}, else the one of {@link #TASK_SCHEDULER_BEAN_NAME}.
     *
     * @param application the application's schedulers
     * @param own the scheduler built from Boot's builder when the application has none
     * @return the scheduler to use, or null (then the user of it runs its own)
     */
    public static @Nullable TaskScheduler scheduler(ObjectProvider<TaskScheduler> application, ObjectProvider<TaskScheduler> own) {
        TaskScheduler scheduler = application.getIfUnique();
        return scheduler != null ? scheduler : own.getIfAvailable();
    }

    /**
     * The named peers ({@code reliable-udp.peers.*}) and their reconnect backoff: the node uses it, and
     * metrics, health and the endpoint read peer names from it.
     */
    @Bean
    @ConditionalOnMissingBean
    UdpPeerDirectory reliableUdpPeerDirectory(ReliableUdpProperties properties, ObjectProvider<UdpPeerGroupProvider> groupProviders) {
        ReliableUdpProperties.Reconnect r = properties.reconnect();
        ReconnectPolicy policy;
        try {
            policy = new ReconnectPolicy(r.initialBackoff(), r.maxBackoff(), r.multiplier());
        } catch (IllegalArgumentException e) {
            String field = e.getMessage() == null ? "" : e.getMessage().split(" ")[0];
            String property = "reliable-udp.reconnect." + switch (field) {
                case "initialBackoff" -> "initial-backoff";
                case "maxBackoff" -> "max-backoff";
                default -> "multiplier";
            };
            throw new InvalidReliableUdpPropertyException(property, null, e.getMessage(),
                    "use a positive initial backoff, a max backoff at least as long, and a multiplier within 1..100");
        }
        Map<String, InetSocketAddress> peers = NodeConfigMapper.peers(properties);
        List<UdpPeerGroup> groups = groupProviders.orderedStream().flatMap(p -> p.peerGroups().stream())
                .map(UdpPeerGroup.class::cast).toList();
        Set<String> groupNames = new HashSet<>();
        groups.forEach(g -> groupNames.add(g.name()));
        properties.peers().forEach((name, peer) -> {
            if (peer.isService() && !groupNames.contains(name)) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.peers." + name + ".service-id", peer.serviceId(),
                        "a peer from service discovery needs reliable-udp-spring-cloud and a DiscoveryClient",
                        "add io.reliableudp:reliable-udp-spring-cloud and a Spring Cloud discovery client, or give the peer an address");
            }
        });
        try {
            return new UdpPeerDirectory(peers, policy, groups);
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.peers", null, e.getMessage(),
                    "give each peer its own name (not 'other') and its own address");
        }
    }

    /**
     * The peer names metrics, health and the endpoint use: the unique {@link UdpPeerDirectory} bean,
     * else the directories of the managed nodes among the node beans.
     *
     * @param directories the directory beans
     * @param nodes the node beans
     * @return the names
     */
    public static UdpPeerDirectory peerNames(ObjectProvider<UdpPeerDirectory> directories, Map<String, ReliableUdpNode> nodes) {
        UdpPeerDirectory unique = directories.getIfUnique();
        return unique != null ? unique : UdpPeerDirectory.namesOf(nodes.values());
    }

    @Bean
    @ConditionalOnMissingBean
    ManagedReliableUdpNode reliableUdpNode(NodeConfig config, ReliableUdpNodeFactory factory, UdpChannels channels,
            UdpPeerDirectory directory, ReliableUdpProperties properties, ApplicationEventPublisher publisher,
            @Qualifier(LISTENER_EXECUTOR_BEAN_NAME) Executor executor, ObjectProvider<TaskScheduler> schedulers,
            @Qualifier(TASK_SCHEDULER_BEAN_NAME) ObjectProvider<TaskScheduler> ownScheduler) {
        if (properties.drainTimeout().isNegative()) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.drain-timeout", properties.drainTimeout().toString(),
                    "must be >= 0", "use 0 to close at once, or a duration such as 5s");
        }
        ManagedReliableUdpNode node = new ManagedReliableUdpNode(config, factory, channels, directory, properties.drainTimeout());
        node.setEventPublisher(publisher, executor);
        node.setTaskScheduler(scheduler(schedulers, ownScheduler));
        return node;
    }

    /**
     * Reads rotated key files again ({@code reliable-udp.security.reload-interval}); it runs only when the
     * interval is above 0 and at least one key comes from a resource.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(prefix = "reliable-udp.security", name = "reload-interval")
    SecurityKeyReloader reliableUdpSecurityKeyReloader(ManagedReliableUdpNode node, ReliableUdpProperties properties,
            ObjectProvider<TaskScheduler> schedulers,
            @Qualifier(TASK_SCHEDULER_BEAN_NAME) ObjectProvider<TaskScheduler> ownScheduler) {
        ReliableUdpProperties.Security security = properties.security();
        TaskScheduler scheduler = scheduler(schedulers, ownScheduler);
        if (scheduler == null && security.reloadInterval().isPositive()) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.security.reload-interval", security.reloadInterval().toString(),
                    "no TaskScheduler to run the reloads", "define a TaskScheduler bean, or set the interval to 0");
        }
        return new SecurityKeyReloader(node, security, scheduler, SecurityKeys.load(security));
    }

    /** The one message mapper of the template and the listener containers: converter, header mapper, type ids. */
    @Bean
    @ConditionalOnMissingBean
    ReliableUdpMessageMapper reliableUdpMessageMapper(
            @Qualifier(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME) MessageConverter converter,
            ObjectProvider<UdpHeaderMapper> headerMapper, ReliableUdpTypeProperties types, ReliableUdpProperties properties) {
        Map<String, Class<?>> mappings = new java.util.LinkedHashMap<>();
        types.mappings().forEach((id, className) -> {
            try {
                mappings.put(id, org.springframework.util.ClassUtils.forName(className.trim(), ReliableUdpAutoConfiguration.class.getClassLoader()));
            } catch (ClassNotFoundException | LinkageError e) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.types.mappings." + id, className,
                        "no such class", "name a class of the application, e.g. com.example.Position");
            }
        });
        UdpTypeMapper typeMapper;
        try {
            typeMapper = new UdpTypeMapper(mappings, types.trustedPackages(), types.sendClassNames());
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.types.mappings", null, e.getMessage(),
                    "map each class to one type id");
        }
        return new ReliableUdpMessageMapper(converter, headerMapper.getIfUnique(() -> defaultHeaderMapper(properties.headers())), typeMapper);
    }

    private static DefaultUdpHeaderMapper defaultHeaderMapper(ReliableUdpProperties.Headers headers) {
        DefaultUdpHeaderMapper mapper = new DefaultUdpHeaderMapper();
        mapper.setInboundHeaderNames(headers.inbound().toArray(String[]::new));
        mapper.setOutboundHeaderNames(headers.outbound().toArray(String[]::new));
        return mapper;
    }

    @Bean
    @ConditionalOnMissingBean
    ReliableUdpTemplate reliableUdpTemplate(ManagedReliableUdpNode node, ReliableUdpProperties properties,
            ReliableUdpMessageMapper messageMapper, ObjectProvider<ObservationRegistry> observationRegistry,
            ObjectProvider<ReliableUdpTemplateObservationConvention> convention) {
        ReliableUdpTemplate template = new ReliableUdpTemplate(node);
        template.setMessageMapper(messageMapper);
        try {
            template.setReplyTimeout(properties.template().replyTimeout());
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.template.reply-timeout",
                    properties.template().replyTimeout().toString(), e.getMessage(), "use a positive duration such as 5s");
        }
        ReliableUdpProperties.Template t = properties.template();
        if (t.defaultPeer() != null) {
            try {
                if (node.peerDirectory().group(t.defaultPeer()) == null) {
                    node.peerDirectory().parseTarget(t.defaultPeer());
                }
            } catch (IllegalArgumentException e) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.template.default-peer", t.defaultPeer(),
                        "neither a configured peer " + node.peerDirectory().names() + " nor host:port",
                        "name a peer of reliable-udp.peers or write host:port");
            }
            template.setDefaultPeer(t.defaultPeer());
        }
        setChannel("reliable-udp.template.default-channel", t.defaultChannel(), template::setDefaultChannel);
        setChannel("reliable-udp.template.default-unreliable-channel", t.defaultUnreliableChannel(), template::setDefaultUnreliableChannel);
        properties.channels().forEach((name, channel) -> {
            if (channel.ackMode() != AckMode.RECEIVED) {
                try {
                    template.setAckMode(name, channel.ackMode());
                } catch (IllegalArgumentException e) {
                    throw new InvalidReliableUdpPropertyException("reliable-udp.channels." + name + ".ack-mode", channel.ackMode().name(),
                            e.getMessage(), "use ack-mode received on unreliable channels");
                }
            }
        });
        if (t.observationEnabled()) {
            template.setObservationRegistry(observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP));
            template.setObservationConvention(convention.getIfUnique(() ->
                    properties.observation().convention() == ReliableUdpProperties.ObservationConventionKind.OPEN_TELEMETRY
                            ? OpenTelemetryReliableUdpTemplateObservationConvention.INSTANCE : null));
        }
        return template;
    }

    /**
     * Request/reply over the template (its defaults, mapper, observations and reply timeout): a bean of
     * its own type, so injecting {@code ReliableUdpOperations} or {@code ReliableUdpTemplate} stays unambiguous.
     */
    @Bean
    @ConditionalOnMissingBean
    ReplyingReliableUdpTemplate replyingReliableUdpTemplate(ReliableUdpTemplate template) {
        return new ReplyingReliableUdpTemplate(template);
    }

    private static void setChannel(String property, @Nullable String value, Consumer<String> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException(property, value, e.getMessage(), "name one of the configured channels (reliable-udp.channels)");
        }
    }

    /** The payload converter with JSON (Jackson 3 on the class path). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JsonMapper.class)
    static final class JsonConverterConfiguration {

        @Bean(name = UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
        @ConditionalOnMissingBean(name = UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
        CompositeMessageConverter reliableUdpMessageConverter(ObjectProvider<JsonMapper> jsonMapper) {
            JsonMapper mapper = jsonMapper.getIfUnique(() -> JsonMapper.builder().build());
            return ReliableUdpMessageConverters.create(new JacksonJsonMessageConverter(mapper));
        }
    }

    /** The payload converter without JSON. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("tools.jackson.databind.json.JsonMapper")
    static final class PlainConverterConfiguration {

        @Bean(name = UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
        @ConditionalOnMissingBean(name = UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
        CompositeMessageConverter reliableUdpMessageConverter() {
            return ReliableUdpMessageConverters.create(null);
        }
    }

    /** Bean name of a {@link BackOff} that replaces {@code reliable-udp.listener.retry.*} for every listener. */
    public static final String LISTENER_BACK_OFF_BEAN_NAME = "reliableUdpListenerBackOff";

    private static @Nullable BackOff listenerBackOff(ReliableUdpProperties.Listener listener) {
        ReliableUdpProperties.Retry r = listener.retry();
        if (r.maxRetries() <= 0) {
            if (r.maxRetries() < 0) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.listener.retry.max-retries",
                        Integer.toString(r.maxRetries()), "must be >= 0", "use 0 for no retries");
            }
            return null;
        }
        if (r.multiplier() < 1 || r.initialInterval().isNegative() || r.maxInterval().compareTo(r.initialInterval()) < 0) {
            throw new InvalidReliableUdpPropertyException("reliable-udp.listener.retry", null,
                    "needs multiplier >= 1, initial-interval >= 0, max-interval >= initial-interval",
                    "e.g. initial-interval 100ms, multiplier 2, max-interval 10s");
        }
        ExponentialBackOff b = new ExponentialBackOff(r.initialInterval().toMillis(), r.multiplier());
        b.setMaxInterval(r.maxInterval().toMillis());
        b.setMaxAttempts(r.maxRetries());
        return b;
    }

    /** The {@code @UdpMessageListener} infrastructure. */
    @Configuration(proxyBeanMethods = false)
    @EnableUdpListeners
    static final class ListenerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        UdpListenerContainerFactoryConfigurer udpListenerContainerFactoryConfigurer(ManagedReliableUdpNode node,
                ReliableUdpTemplate template, ReliableUdpProperties properties,
                @Qualifier(LISTENER_EXECUTOR_BEAN_NAME) Executor executor,
                ObjectProvider<UdpListenerErrorHandler> errorHandler, ObjectProvider<ObservationRegistry> observationRegistry,
                ObjectProvider<ReliableUdpListenerObservationConvention> convention,
                @Qualifier(LISTENER_BACK_OFF_BEAN_NAME) ObjectProvider<BackOff> backOff, ObjectProvider<UdpMessageFilter> filter,
                ObjectProvider<UdpMessageInterceptor> interceptor, ObjectProvider<UdpContainerCustomizer> customizer) {
            BackOff retry = backOff.getIfAvailable(() -> listenerBackOff(properties.listener()));
            if (properties.listener().concurrency() < 1) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.listener.concurrency",
                        Integer.toString(properties.listener().concurrency()), "must be >= 1", "use 1 (serial) or more");
            }
            if (properties.listener().maxQueuedMessages() < 1) {
                throw new InvalidReliableUdpPropertyException("reliable-udp.listener.max-queued-messages",
                        Integer.toString(properties.listener().maxQueuedMessages()), "must be >= 1",
                        "use the default 1000, or a bound that fits the heap (messages x their size)");
            }
            return new UdpListenerContainerFactoryConfigurer(node, template, executor, properties.listener(), retry,
                    properties.drainTimeout(), errorHandler.getIfUnique(),
                    properties.listener().observationEnabled() ? observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP)
                            : ObservationRegistry.NOOP,
                    convention.getIfUnique(() ->
                            properties.observation().convention() == ReliableUdpProperties.ObservationConventionKind.OPEN_TELEMETRY
                                    ? OpenTelemetryReliableUdpListenerObservationConvention.INSTANCE : null),
                    new UdpListenerContainerFactoryConfigurer.Hooks(filter.getIfUnique(), interceptor.getIfUnique(),
                            customizer.getIfUnique()));
        }

        @Bean(name = UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
        @ConditionalOnMissingBean(name = UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
        DefaultUdpListenerContainerFactory udpListenerContainerFactory(UdpListenerContainerFactoryConfigurer configurer) {
            DefaultUdpListenerContainerFactory factory = new DefaultUdpListenerContainerFactory();
            configurer.configure(factory);
            return factory;
        }
    }
}
