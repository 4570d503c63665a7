package io.reliableudp.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.tck.TestObservationRegistry;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.annotation.UdpListenerConfigUtils;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.core.ReliableUdpOperations;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpOperations;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import io.reliableudp.spring.core.UdpChannels;
import io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory;
import io.reliableudp.spring.listener.UdpListenerContainerFactory;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.ReceiveThreadMode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.JacksonJsonMessageConverter;
import org.springframework.messaging.converter.MessageConverter;
import tools.jackson.databind.json.JsonMapper;

@Timeout(60)
class ReliableUdpAutoConfigurationTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpAutoConfiguration.class))
            .withBean(ReliableUdpNodeFactory.class, network::nodeFactory);

    @Test
    void defaultBeansAndASensibleNode() {
        runner.run(context -> {
            assertThat(context).hasNotFailed()
                    .hasSingleBean(NodeConfig.class)
                    .hasSingleBean(ManagedReliableUdpNode.class)
                    .hasSingleBean(ReliableUdpTemplate.class)
                    .hasSingleBean(UdpChannels.class)
                    .hasSingleBean(UdpListenerEndpointRegistry.class)
                    .hasBean(UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
                    .hasBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
                    .hasBean(ReliableUdpAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME);
            ManagedReliableUdpNode node = context.getBean(ManagedReliableUdpNode.class);
            assertThat(node.isRunning()).isTrue();
            assertThat(node.isOpen()).isTrue();
            assertThat(node.localAddress().getAddress().isLoopbackAddress()).isTrue();
            NodeConfig config = context.getBean(NodeConfig.class);
            assertThat(config.message().channels()).hasSize(4);
            assertThat(config.encrypted()).isFalse();
            assertThat(config.receiveThreadMode()).isEqualTo(ReceiveThreadMode.PLATFORM);
            assertThat(config.batchedIo()).isEqualTo(io.reliableudp.transport.BatchedIo.OFF);
            assertThat(config.sendMode()).isEqualTo(io.reliableudp.message.MessageConfig.SendMode.IMMEDIATE);
            assertThat(config.message().ackDelaySeconds()).isEqualTo(0.001);
            assertThat(config.message().fastRecovery()).isTrue();
            assertThat(config.receiveBusyPoll()).isZero();
            UdpChannels channels = context.getBean(UdpChannels.class);
            assertThat(channels.resolve("reliable-ordered").index()).isZero();
            assertThat(channels.resolve("unreliable").mode()).isEqualTo(DeliveryMode.UNRELIABLE);
            assertThat(channels.resolve("3").name()).isEqualTo("unreliable-sequenced");
            SimpleAsyncTaskExecutor executor = context.getBean(ReliableUdpAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME, SimpleAsyncTaskExecutor.class);
            java.util.concurrent.CompletableFuture<Boolean> virtual = new java.util.concurrent.CompletableFuture<>();
            executor.execute(() -> virtual.complete(Thread.currentThread().isVirtual()));
            assertThat(virtual.get()).as("listener methods run on virtual threads in Boot's default (platform) threading too").isTrue();
        });
    }

    @Test
    void listenerExecutorIsVirtualWithSpringThreadsVirtualEnabled() {
        runner.withPropertyValues("spring.threads.virtual.enabled=true").run(context -> {
            SimpleAsyncTaskExecutor executor = context.getBean(ReliableUdpAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME, SimpleAsyncTaskExecutor.class);
            java.util.concurrent.CompletableFuture<Boolean> virtual = new java.util.concurrent.CompletableFuture<>();
            executor.execute(() -> virtual.complete(Thread.currentThread().isVirtual()));
            assertThat(virtual.get()).isTrue();
        });
    }

    @Test
    void reconnectsUseTheApplicationsSchedulerWhenThereIsOneElseOneFromBootsBuilder() {
        runner.run(context -> assertThat(context).hasBean(ReliableUdpAutoConfiguration.TASK_SCHEDULER_BEAN_NAME));
        org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler own =
                new org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler();
        runner.withBean("taskScheduler", org.springframework.scheduling.TaskScheduler.class, () -> own)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(ReliableUdpAutoConfiguration.TASK_SCHEDULER_BEAN_NAME);
                    assertThat(context.getBean(ManagedReliableUdpNode.class)).extracting("taskScheduler").isSameAs(own);
                });
        own.close();
    }

    @Test
    void aFactoryOfTheApplicationsOwnKeepsThePropertyWiringThroughTheConfigurer() {
        runner.withPropertyValues("reliable-udp.listener.auto-startup=false").run(context -> {
            io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory mine =
                    new io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory();
            context.getBean(UdpListenerContainerFactoryConfigurer.class).configure(mine);
            io.reliableudp.spring.listener.SimpleUdpListenerEndpoint endpoint =
                    new io.reliableudp.spring.listener.SimpleUdpListenerEndpoint("mine", m -> null);
            org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory methods =
                    new org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory();
            methods.afterPropertiesSet();
            // the property reached the application's own factory
            assertThat(mine.createContainer(endpoint, methods).isAutoStartup()).isFalse();
        });
    }

    @Test
    void theTemplateAndTheContainersShareOneMessageMapperWithTheApplicationsHeaderMapper() {
        io.reliableudp.spring.support.DefaultUdpHeaderMapper headers = new io.reliableudp.spring.support.DefaultUdpHeaderMapper();
        runner.withBean(io.reliableudp.spring.support.UdpHeaderMapper.class, () -> headers).run(context -> {
            io.reliableudp.spring.support.ReliableUdpMessageMapper mapper =
                    context.getBean(io.reliableudp.spring.support.ReliableUdpMessageMapper.class);
            assertThat(mapper.getHeaderMapper()).isSameAs(headers);
            assertThat(context.getBean(io.reliableudp.spring.core.ReliableUdpTemplate.class).getMessageMapper()).isSameAs(mapper);
            io.reliableudp.spring.listener.SimpleUdpListenerEndpoint endpoint =
                    new io.reliableudp.spring.listener.SimpleUdpListenerEndpoint("shared", m -> null);
            org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory methods =
                    new org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory();
            methods.afterPropertiesSet();
            io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory factory = context.getBean(
                    io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory.class);
            assertThat(factory.createContainer(endpoint, methods).getMessageMapper()).isSameAs(mapper);
            // the node's parts: the directory bean is the node's, metrics and health read it
            assertThat(context.getBean(ManagedReliableUdpNode.class).peerDirectory())
                    .isSameAs(context.getBean(io.reliableudp.spring.core.UdpPeerDirectory.class));
        });
    }

    @Test
    void globalRetryConcurrencyReplyTimeoutAndTypesComeFromProperties() {
        runner.withPropertyValues("reliable-udp.listener.concurrency=3", "reliable-udp.listener.retry.max-retries=2",
                "reliable-udp.listener.retry.initial-interval=7ms", "reliable-udp.template.reply-timeout=1500ms",
                "reliable-udp.types.mappings.str=java.lang.StringBuilder").run(context -> {
            io.reliableudp.spring.listener.SimpleUdpListenerEndpoint endpoint =
                    new io.reliableudp.spring.listener.SimpleUdpListenerEndpoint("global", m -> null);
            org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory methods =
                    new org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory();
            methods.afterPropertiesSet();
            io.reliableudp.spring.listener.UdpMessageListenerContainer c = context.getBean(
                    io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory.class).createContainer(endpoint, methods);
            assertThat(c.getConcurrency()).isEqualTo(3);
            org.springframework.util.backoff.BackOffExecution retry = java.util.Objects.requireNonNull(c.getBackOff()).start();
            assertThat(retry.nextBackOff()).isEqualTo(7);
            assertThat(retry.nextBackOff()).isEqualTo(14);
            assertThat(retry.nextBackOff()).isEqualTo(org.springframework.util.backoff.BackOffExecution.STOP);
            assertThat(context.getBean(io.reliableudp.spring.core.ReliableUdpTemplate.class).getReplyTimeout()).isEqualTo(Duration.ofMillis(1500));
            assertThat(context.getBean(io.reliableudp.spring.support.ReliableUdpMessageMapper.class).getTypeMapper()
                    .typeIdOf(new StringBuilder())).isEqualTo("str");
        });
        // a bean named reliableUdpListenerBackOff replaces the properties
        org.springframework.util.backoff.FixedBackOff mine = new org.springframework.util.backoff.FixedBackOff(1, 1);
        runner.withBean(ReliableUdpAutoConfiguration.LISTENER_BACK_OFF_BEAN_NAME, org.springframework.util.backoff.BackOff.class, () -> mine)
                .run(context -> {
                    io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory f = context.getBean(
                            io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory.class);
                    org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory methods =
                            new org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory();
                    methods.afterPropertiesSet();
                    assertThat(f.createContainer(new io.reliableudp.spring.listener.SimpleUdpListenerEndpoint("b", m -> null), methods)
                            .getBackOff()).isSameAs(mine);
                });
    }

    @Test
    void anUnknownMappedTypeOrABadConcurrencyNamesTheProperty() {
        assertFailure("reliable-udp.types.mappings.pos", "reliable-udp.types.mappings.pos=com.example.NoSuchPosition");
        assertFailure("reliable-udp.listener.concurrency", "reliable-udp.listener.concurrency=0");
    }

    @Test
    void listenerExecutorIsNotAnInjectionCandidateSoItLeavesBootsTaskExecutorAlone() {
        java.util.concurrent.Executor own = Runnable::run;
        runner.withBean("applicationTaskExecutor", java.util.concurrent.Executor.class, () -> own)
                .run(context -> assertThat(context.getBean(java.util.concurrent.Executor.class)).isSameAs(own));
    }

    @Test
    void propertiesReachTheNodeConfig() {
        String key = Base64.getEncoder().encodeToString(new byte[32]);
        runner.withPropertyValues(
                "reliable-udp.bind-address=127.0.0.1", "reliable-udp.port=0", "reliable-udp.accept-incoming=false",
                "reliable-udp.max-connections=16", "reliable-udp.protocol-id=0x1234", "reliable-udp.send-rate=120",
                "reliable-udp.keep-alive-interval=50ms", "reliable-udp.timeout=2s", "reliable-udp.connect-timeout=1s",
                "reliable-udp.send-queue-wait=10ms", "reliable-udp.receive-thread-mode=platform", "reliable-udp.receive-busy-poll=50us",
                "reliable-udp.socket-receive-buffer-size=1MB", "reliable-udp.socket-send-buffer-size=0",
                "reliable-udp.io-threads=2", "reliable-udp.dedicated-sockets=16",
                "reliable-udp.security.pre-shared-key=" + key,
                "reliable-udp.message.datagram-budget=1400", "reliable-udp.message.resend-policy=every-packet",
                "reliable-udp.message.min-resend-interval=5ms", "reliable-udp.message.max-resend-interval=500ms",
                "reliable-udp.message.max-message-size=64KB", "reliable-udp.message.congestion-avoidance=false",
                "reliable-udp.message.congestion-control=gaffer",
                "reliable-udp.channels.events.index=0", "reliable-udp.channels.events.delivery-mode=reliable-ordered",
                "reliable-udp.channels.events.max-queued-messages=100", "reliable-udp.traffic-class=af41",
                "reliable-udp.channels.telemetry.traffic-class=46",
                "reliable-udp.channels.telemetry.index=1", "reliable-udp.channels.telemetry.delivery-mode=unreliable-sequenced",
                "reliable-udp.channels.telemetry.ttl=50ms",
                "reliable-udp.link-conditioner.enabled=true", "reliable-udp.link-conditioner.latency=20ms",
                "reliable-udp.link-conditioner.loss=0.05", "reliable-udp.link-conditioner.seed=7",
                "reliable-udp.batched-io=auto")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    NodeConfig c = context.getBean(NodeConfig.class);
                    assertThat(c.bindAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 0));
                    assertThat(c.acceptIncoming()).isFalse();
                    assertThat(c.maxConnections()).isEqualTo(16);
                    assertThat(c.protocolId()).isEqualTo(0x1234L);
                    assertThat(c.sendRateHz()).isEqualTo(120.0);
                    assertThat(c.keepAliveInterval()).isEqualTo(Duration.ofMillis(50));
                    assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
                    assertThat(c.sendQueueWait()).isEqualTo(Duration.ofMillis(10));
                    assertThat(c.receiveThreadMode()).isEqualTo(ReceiveThreadMode.PLATFORM);
                    assertThat(c.receiveBusyPoll()).isEqualTo(Duration.ofNanos(50_000));
                    assertThat(c.socketReceiveBufferSize()).isEqualTo(1024 * 1024);
                    assertThat(c.socketSendBufferSize()).isZero();
                    assertThat(c.ioThreads()).isEqualTo(2);
                    assertThat(c.dedicatedSockets()).isEqualTo(16);
                    assertThat(c.batchedIo()).isEqualTo(io.reliableudp.transport.BatchedIo.AUTO);
                    assertThat(c.preSharedKey()).hasSize(32);
                    assertThat(c.toString()).doesNotContain(key);
                    assertThat(c.message().datagramBudget()).isEqualTo(1400);
                    assertThat(c.message().resendPolicy().name()).isEqualTo("EVERY_PACKET");
                    assertThat(c.message().minResendIntervalSeconds()).isEqualTo(0.005);
                    assertThat(c.message().maxResendIntervalSeconds()).isEqualTo(0.5);
                    assertThat(c.message().maxMessageSize()).isEqualTo(64 * 1024);
                    assertThat(c.message().congestionAvoidance()).isFalse();
                    assertThat(c.message().congestionControl()).isEqualTo(io.reliableudp.message.MessageConfig.CongestionControl.GAFFER);
                    assertThat(c.message().channels()).hasSize(2);
                    assertThat(c.message().channels().get(0).maxQueuedMessages()).isEqualTo(100);
                    assertThat(c.message().channels().get(1).mode()).isEqualTo(DeliveryMode.UNRELIABLE_SEQUENCED);
                    assertThat(c.trafficClass()).isEqualTo(io.reliableudp.TrafficClass.AF41);
                    assertThat(c.message().channels().get(0).trafficClass()).isEmpty();
                    assertThat(c.message().channels().get(1).trafficClass()).contains(io.reliableudp.TrafficClass.EF);
                    assertThat(c.message().channels().get(1).ttlMillis()).isEqualTo(50);
                    assertThat(c.message().channels().get(0).ttlMillis()).isZero();
                    assertThat(c.linkConditioner()).isNotNull();
                    assertThat(c.linkConditioner().latencyMillis()).isEqualTo(20.0);
                    assertThat(c.linkConditioner().lossProbability()).isEqualTo(0.05);
                    assertThat(c.linkConditioner().seed()).isEqualTo(7);
                    UdpChannels channels = context.getBean(UdpChannels.class);
                    assertThat(channels.resolve("telemetry").index()).isEqualTo(1);
                    assertThat(context.getBean(ReliableUdpProperties.class).security().toString()).doesNotContain(key);
                });
    }

    @Test
    void disabledByProperty() {
        runner.withPropertyValues("reliable-udp.enabled=false").run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(ManagedReliableUdpNode.class).doesNotHaveBean(ReliableUdpTemplate.class));
    }

    @Test
    void customizersRunInOrderAfterTheProperties() {
        runner.withPropertyValues("reliable-udp.max-connections=16")
                .withBean("first", ReliableUdpNodeCustomizer.class, () -> b -> b.maxConnections(32))
                .withBean("second", ReliableUdpNodeCustomizer.class, () -> b -> b.sendRateHz(30))
                .run(context -> {
                    NodeConfig c = context.getBean(NodeConfig.class);
                    assertThat(c.maxConnections()).isEqualTo(32);
                    assertThat(c.sendRateHz()).isEqualTo(30.0);
                });
    }

    @Test
    void theReplyingTemplateIsABeanOfItsOwnOverTheTemplate() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ReplyingReliableUdpTemplate.class)
                    .hasSingleBean(ReliableUdpOperations.class).hasSingleBean(ReplyingReliableUdpOperations.class);
            assertThat(context.getBean(ReplyingReliableUdpTemplate.class).getTemplate()).isSameAs(context.getBean(ReliableUdpTemplate.class));
        });
        runner.withUserConfiguration(OwnBeans.class).run(context -> assertThat(context.getBean(ReplyingReliableUdpTemplate.class).getTemplate())
                .as("over the application's own template").isSameAs(context.getBean("ownTemplate")));
        runner.withUserConfiguration(OwnReplying.class).run(context -> assertThat(context).hasSingleBean(ReplyingReliableUdpTemplate.class)
                .getBean(ReplyingReliableUdpTemplate.class).isSameAs(context.getBean("ownReplying")));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnReplying {

        @Bean
        ReplyingReliableUdpTemplate ownReplying(ReliableUdpTemplate template) {
            return new ReplyingReliableUdpTemplate(template);
        }
    }

    @Test
    void userBeansWin() {
        NodeConfig own = NodeConfig.builder().maxConnections(3).build();
        runner.withUserConfiguration(OwnBeans.class).withBean(NodeConfig.class, () -> own).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(NodeConfig.class)).isSameAs(own);
            assertThat(context.getBean(ReliableUdpTemplate.class)).isSameAs(context.getBean("ownTemplate"));
            assertThat(context.getBean(UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)).isSameAs(context.getBean(OwnBeans.class).factory);
            assertThat(context.getBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)).isSameAs(OwnBeans.CONVERTER);
            assertThat(context.getBean(ReliableUdpAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME)).isSameAs(OwnBeans.EXECUTOR);
        });
    }

    @Test
    void userNodeWins() {
        runner.withUserConfiguration(OwnNode.class).run(context -> {
            assertThat(context).hasSingleBean(ManagedReliableUdpNode.class);
            assertThat(context.getBean(ManagedReliableUdpNode.class).drainTimeout()).isEqualTo(Duration.ofMillis(123));
        });
    }

    @Test
    void jsonConverterWhenJacksonIsPresentAndUsesTheContextsJsonMapper() {
        JsonMapper mapper = JsonMapper.builder().propertyNamingStrategy(tools.jackson.databind.PropertyNamingStrategies.SNAKE_CASE).build();
        runner.withBean(JsonMapper.class, () -> mapper).run(context -> {
            CompositeMessageConverter converter = context.getBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME, CompositeMessageConverter.class);
            assertThat(converter.getConverters()).hasAtLeastOneElementOfType(JacksonJsonMessageConverter.class);
            org.springframework.messaging.Message<?> m = converter.toMessage(new Sample("x", 2), null);
            assertThat(new String((byte[]) m.getPayload(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("{\"sample_name\":\"x\",\"sample_count\":2}");
        });
    }

    @Test
    void noJsonWithoutJackson() {
        runner.withClassLoader(new FilteredClassLoader(JsonMapper.class)).run(context -> {
            assertThat(context).hasNotFailed();
            CompositeMessageConverter converter = context.getBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME, CompositeMessageConverter.class);
            assertThat(converter.getConverters()).hasSize(2).noneMatch(c -> c.getClass().getSimpleName().contains("Jackson"));
        });
    }

    @Test
    void sendObservationsAreOffByDefaultAndUseTheRegistryWhenSwitchedOn() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withBean(TestObservationRegistry.class, () -> registry).withPropertyValues("reliable-udp.template.observation-enabled=true")
                .run(context -> assertThat(context.getBean(ReliableUdpTemplate.class)).extracting("observationRegistry").isSameAs(registry));
        runner.withBean(TestObservationRegistry.class, () -> registry)
                .run(context -> assertThat(context.getBean(ReliableUdpTemplate.class)).extracting("observationRegistry")
                        .isSameAs(io.micrometer.observation.ObservationRegistry.NOOP));
    }

    @Test
    void namedPeersAreConnectedOnStart() {
        runner.withPropertyValues("reliable-udp.port=0").run(server -> {
            int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
            runner.withPropertyValues("reliable-udp.peers.server.address=127.0.0.1:" + port, "reliable-udp.template.default-peer=server")
                    .run(client -> {
                        ManagedReliableUdpNode node = client.getBean(ManagedReliableUdpNode.class);
                        assertThat(node.peerDirectory().names()).containsExactly("server");
                        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> node.peers().size() == 1);
                        assertThat(node.peerDirectory().nameOf(node.peers().iterator().next().address())).isEqualTo("server");
                    });
        });
    }

    @Test
    void aTakenPortIsReportedWithTheFix() {
        runner.withPropertyValues("reliable-udp.port=0").run(first -> {
            int port = first.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
            runner.withPropertyValues("reliable-udp.port=" + port).run(second -> {
                assertThat(second).hasFailed();
                FailureAnalysis analysis = new ReliableUdpNodeStartFailureAnalyzer().analyze(second.getStartupFailure());
                assertThat(analysis).isNotNull();
                assertThat(analysis.getDescription()).contains(":" + port).contains("in use");
                assertThat(analysis.getAction()).contains("reliable-udp.port");
            });
        });
    }

    @Test
    void failureAnalyzersAreRegistered() {
        assertThat(org.springframework.core.io.support.SpringFactoriesLoader.forDefaultResourceLocation()
                .load(org.springframework.boot.diagnostics.FailureAnalyzer.class, null,
                        org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { })))
                .hasAtLeastOneElementOfType(ReliableUdpFailureAnalyzer.class)
                .hasAtLeastOneElementOfType(ReliableUdpNodeStartFailureAnalyzer.class);
    }

    // ---- bad configuration: a failure analysis naming the property and the fix

    @Test
    void badPort() {
        assertFailure("reliable-udp.port", "reliable-udp.port=70000");
    }

    @Test
    void keyNotBase64IsRedacted() {
        FailureAnalysis analysis = assertFailure("reliable-udp.security.pre-shared-key", "reliable-udp.security.pre-shared-key=not*base64!secret");
        assertThat(analysis.getDescription()).doesNotContain("secret").contains("[redacted]");
        assertThat(analysis.getAction()).contains("openssl rand -base64 32");
    }

    @Test
    void keyOfWrongLength() {
        FailureAnalysis analysis = assertFailure("reliable-udp.security.pre-shared-key",
                "reliable-udp.security.pre-shared-key=" + Base64.getEncoder().encodeToString(new byte[16]));
        assertThat(analysis.getDescription()).contains("16 bytes");
    }

    @Test
    void channelWithoutIndex() {
        assertFailure("reliable-udp.channels.events.index", "reliable-udp.channels.events.delivery-mode=unreliable");
    }

    @Test
    void duplicateChannelIndex() {
        assertFailure("reliable-udp.channels.", "reliable-udp.channels.a.index=0", "reliable-udp.channels.b.index=0");
    }

    @Test
    void channelIndexWithAGap() {
        assertFailure("reliable-udp.channels.b.index", "reliable-udp.channels.a.index=0", "reliable-udp.channels.b.index=2");
    }

    @Test
    void channelQueueLimit() {
        assertFailure("reliable-udp.channels.a.max-queued-messages", "reliable-udp.channels.a.index=0", "reliable-udp.channels.a.max-queued-messages=0");
    }

    @Test
    void datagramBudgetOutOfRange() {
        FailureAnalysis analysis = assertFailure("reliable-udp.message.datagram-budget", "reliable-udp.message.datagram-budget=100");
        assertThat(analysis.getDescription()).contains("256..65507");
    }

    @Test
    void timeoutShorterThanTwoKeepalives() {
        assertFailure("reliable-udp.timeout", "reliable-udp.timeout=150ms");
    }

    @Test
    void lossProbabilityAboveOne() {
        assertFailure("reliable-udp.link-conditioner.loss", "reliable-udp.link-conditioner.enabled=true", "reliable-udp.link-conditioner.loss=1.5");
    }

    @Test
    void peerWithoutPort() {
        FailureAnalysis analysis = assertFailure("reliable-udp.peers.server.address", "reliable-udp.peers.server.address=localhost");
        assertThat(analysis.getAction()).contains("host:port");
    }

    @Test
    void unknownDefaultChannel() {
        assertFailure("reliable-udp.template.default-channel", "reliable-udp.template.default-channel=nope");
    }

    @Test
    void reliableDefaultUnreliableChannel() {
        assertFailure("reliable-udp.template.default-unreliable-channel", "reliable-udp.template.default-unreliable-channel=reliable-ordered");
    }

    @Test
    void reconnectMultiplier() {
        assertFailure("reliable-udp.reconnect.multiplier", "reliable-udp.reconnect.multiplier=0.5");
    }

    private FailureAnalysis[] lastAnalysis = new FailureAnalysis[1];

    private FailureAnalysis assertFailure(String property, String... properties) {
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            lastAnalysis[0] = analyze(context);
        });
        FailureAnalysis analysis = lastAnalysis[0];
        assertThat(analysis).as("failure analysis").isNotNull();
        assertThat(analysis.getDescription()).contains("Property: " + property);
        assertThat(analysis.getAction()).contains("reliable-udp.");
        return analysis;
    }

    private static FailureAnalysis analyze(AssertableApplicationContext context) {
        return new ReliableUdpFailureAnalyzer().analyze(context.getStartupFailure());
    }

    record Sample(String sampleName, int sampleCount) {
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {

        static final MessageConverter CONVERTER = new CompositeMessageConverter(java.util.List.of(new org.springframework.messaging.converter.StringMessageConverter()));
        static final SimpleAsyncTaskExecutor EXECUTOR = new SimpleAsyncTaskExecutor("own-");

        DefaultUdpListenerContainerFactory factory;

        @Bean
        ReliableUdpTemplate ownTemplate(ManagedReliableUdpNode node) {
            return new ReliableUdpTemplate(node);
        }

        @Bean(UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
        UdpListenerContainerFactory ownFactory(ManagedReliableUdpNode node) {
            factory = new DefaultUdpListenerContainerFactory(node, Runnable::run);
            return factory;
        }

        @Bean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
        MessageConverter ownConverter() {
            return CONVERTER;
        }

        @Bean(ReliableUdpAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME)
        SimpleAsyncTaskExecutor ownExecutor() {
            return EXECUTOR;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnNode {

        @Bean
        ManagedReliableUdpNode ownNode(NodeConfig config, ReliableUdpNodeFactory factory, UdpChannels channels) {
            return new ManagedReliableUdpNode(config, factory, channels, java.util.Map.of(),
                    io.reliableudp.spring.core.ReconnectPolicy.DEFAULT, Duration.ofMillis(123));
        }
    }
}
