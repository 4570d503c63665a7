package io.reliableudp.spring.integration;

import io.reliableudp.spring.annotation.UdpListenerConfigUtils;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.listener.SimpleUdpListenerEndpoint;
import io.reliableudp.spring.listener.UdpMessageHandler;
import io.reliableudp.spring.listener.UdpMessageListenerContainer;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.support.MessageBuilder;

/**
 * The listener container under an inbound adapter or gateway: made from a node, or given, with the
 * application's template (which answers requests and processed acknowledgements), its message mapper
 * and payload converter, so that a flow maps headers and payloads as listeners do.
 */
final class InboundContainers {

    private InboundContainers() {
    }

    /** A container of the endpoint's own over a node, not started with the context (the endpoint runs it). */
    static UdpMessageListenerContainer create(String id, ManagedReliableUdpNode node, List<String> channels, List<String> peers,
            @Nullable Executor executor, UdpMessageHandler handler, @Nullable BeanFactory beans) {
        SimpleUdpListenerEndpoint endpoint = new SimpleUdpListenerEndpoint(id, handler);
        endpoint.setChannels(channels);
        endpoint.setPeers(peers);
        ReliableUdpTemplate replies = beans == null ? null : beans.getBeanProvider(ReliableUdpTemplate.class).getIfUnique();
        UdpMessageListenerContainer container = new UdpMessageListenerContainer(endpoint, handler, node, executor, replies, null);
        if (beans != null) {
            ReliableUdpMessageMapper mapper = beans.getBeanProvider(ReliableUdpMessageMapper.class).getIfUnique();
            if (mapper != null) {
                container.setMessageMapper(mapper);
            }
        }
        return container;
    }

    /**
     * Gives a container the payload converter: the one set, else the application's
     * {@code reliableUdpMessageConverter} bean, else the container's mapper's.
     */
    static void applyConverter(UdpMessageListenerContainer container, @Nullable MessageConverter converter, @Nullable BeanFactory beans) {
        MessageConverter c = converter;
        if (c == null && beans != null && beans.containsBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)) {
            c = beans.getBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME, MessageConverter.class);
        }
        if (c != null) {
            container.setMessageMapper(container.getMessageMapper().withConverter(c));
        }
    }

    /** The message with its payload converted to a type (unchanged when it already is one). */
    static Message<?> convert(Message<?> raw, Class<?> payloadType, UdpMessageListenerContainer container) {
        if (payloadType.isInstance(raw.getPayload())) {
            return raw;
        }
        return MessageBuilder.withPayload(container.getMessageMapper().fromMessage(raw, payloadType)).copyHeaders(raw.getHeaders()).build();
    }
}
