package io.reliableudp.spring.listener;

/**
 * Changes each container a {@link DefaultUdpListenerContainerFactory} makes, after the factory applied
 * its settings and before the container starts (as spring-kafka's {@code ContainerCustomizer}): per
 * listener settings that no property reaches, chosen by {@link UdpMessageListenerContainer#getId()}.
 */
@FunctionalInterface
public interface UdpContainerCustomizer {

    /**
     * Customizes a container.
     *
     * @param container the container, configured and not started
     */
    void configure(UdpMessageListenerContainer container);
}
