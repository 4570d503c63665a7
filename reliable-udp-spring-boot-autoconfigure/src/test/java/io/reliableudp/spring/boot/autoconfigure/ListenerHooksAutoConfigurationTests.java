package io.reliableudp.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.listener.DefaultUdpListenerContainerFactory;
import io.reliableudp.spring.listener.SimpleUdpListenerEndpoint;
import io.reliableudp.spring.listener.UdpContainerCustomizer;
import io.reliableudp.spring.listener.UdpMessageFilter;
import io.reliableudp.spring.listener.UdpMessageInterceptor;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;

/**
 * The auto-configuration gives the listener containers the application's unique
 * {@link UdpMessageFilter}, {@link UdpMessageInterceptor} and {@link UdpContainerCustomizer} beans,
 * through the default factory and through the configurer (an application's own factory).
 */
class ListenerHooksAutoConfigurationTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpAutoConfiguration.class))
            .withBean(ReliableUdpNodeFactory.class, network::nodeFactory);

    private static UdpMessageListenerContainer container(DefaultUdpListenerContainerFactory factory, String id) {
        DefaultMessageHandlerMethodFactory methods = new DefaultMessageHandlerMethodFactory();
        methods.afterPropertiesSet();
        return factory.createContainer(new SimpleUdpListenerEndpoint(id, m -> null), methods);
    }

    private static DefaultUdpListenerContainerFactory defaultFactory(ApplicationContext context) {
        return context.getBean("udpListenerContainerFactory", DefaultUdpListenerContainerFactory.class);
    }

    @Test
    void theHookBeansReachEveryContainer() {
        UdpMessageFilter filter = m -> true;
        UdpMessageInterceptor interceptor = m -> m;
        UdpContainerCustomizer customizer = c -> c.setMaxQueuedMessages(c.getId().equals("slow") ? 3 : 30);
        runner.withBean(UdpMessageFilter.class, () -> filter).withBean(UdpMessageInterceptor.class, () -> interceptor)
                .withBean(UdpContainerCustomizer.class, () -> customizer).run(context -> {
                    UdpMessageListenerContainer slow = container(defaultFactory(context), "slow");
                    assertThat(slow.getMessageFilter()).isSameAs(filter);
                    assertThat(slow.getMessageInterceptor()).isSameAs(interceptor);
                    assertThat(slow.getMaxQueuedMessages()).isEqualTo(3);
                    assertThat(container(defaultFactory(context), "other").getMaxQueuedMessages()).isEqualTo(30);
                    // an application's own factory keeps them through the configurer
                    DefaultUdpListenerContainerFactory mine = new DefaultUdpListenerContainerFactory();
                    context.getBean(UdpListenerContainerFactoryConfigurer.class).configure(mine);
                    assertThat(container(mine, "mine").getMessageInterceptor()).isSameAs(interceptor);
                });
    }

    @Test
    void withoutHookBeansContainersHaveNone() {
        runner.run(context -> {
            UdpMessageListenerContainer container = container(defaultFactory(context), "plain");
            assertThat(container.getMessageFilter()).isNull();
            assertThat(container.getMessageInterceptor()).isNull();
            assertThat(container.getMaxQueuedMessages()).isEqualTo(UdpMessageListenerContainer.DEFAULT_MAX_QUEUED_MESSAGES);
        });
    }
}
