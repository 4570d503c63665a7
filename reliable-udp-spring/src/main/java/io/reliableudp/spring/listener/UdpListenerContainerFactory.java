package io.reliableudp.spring.listener;

import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/** Builds listener containers from endpoints (named by {@code @UdpMessageListener(containerFactory = ...)}). */
public interface UdpListenerContainerFactory {

    /**
     * Creates a container.
     *
     * @param endpoint the endpoint
     * @param methodFactory resolves method arguments
     * @return the container, not started
     */
    UdpMessageListenerContainer createContainer(UdpListenerEndpoint endpoint, MessageHandlerMethodFactory methodFactory);
}
