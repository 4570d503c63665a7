package io.reliableudp.spring.listener;

import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/**
 * Handles an exception thrown by a listener (named by {@code @UdpMessageListener(errorHandler = ...)}).
 * The container has already counted the failure; without an error handler it logs it.
 */
@FunctionalInterface
public interface UdpListenerErrorHandler {

    /**
     * Handles the failure.
     *
     * @param message the message the listener failed on
     * @param exception the failure (its cause is what the listener threw)
     * @return a reply to send to the sender instead (e.g. an error event), or null for none
     * @throws Exception when the handler itself fails: logged, never stops the container
     */
    @Nullable Object handleError(Message<?> message, ListenerExecutionFailedException exception) throws Exception;
}
