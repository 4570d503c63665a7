package io.reliableudp.spring.listener;

import java.util.Objects;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/** An endpoint around a {@link UdpMessageHandler} (programmatic registration). */
public class SimpleUdpListenerEndpoint extends AbstractUdpListenerEndpoint {

    private final UdpMessageHandler handler;

    /**
     * Creates the endpoint.
     *
     * @param id the id
     * @param handler the handler
     */
    @SuppressWarnings("this-escape")
    public SimpleUdpListenerEndpoint(String id, UdpMessageHandler handler) {
        setId(id);
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    @Override
    public UdpMessageHandler createHandler(MessageHandlerMethodFactory factory) {
        return handler;
    }
}
