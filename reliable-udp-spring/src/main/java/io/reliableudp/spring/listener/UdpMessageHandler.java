package io.reliableudp.spring.listener;

import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/** Handles one received message for a listener container (an adapted listener method, or a lambda). */
@FunctionalInterface
public interface UdpMessageHandler {

    /**
     * Handles a message.
     *
     * @param message the message: the envelope body as {@code byte[]} payload (or, when the sender named a
     *     type id, an instance of that type), carried and transport headers
     * @return a reply to send back to the sender, or null for none
     * @throws Exception any failure: it goes to the container's error handler
     */
    @Nullable Object handle(Message<?> message) throws Exception;
}
