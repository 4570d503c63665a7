package io.reliableudp.spring.listener;

/**
 * What the {@link UdpListenerErrorHandlers#errorReply() error-reply} recoverer sends back to the sender
 * of a one-way message its listener failed on (a request gets a correlated error reply instead): text
 * only, never an exception object.
 *
 * @param listenerId the listener that failed
 * @param exceptionClass the class name of what it threw
 * @param message that exception's message (empty when it had none)
 * @param channel the channel name of the failed message
 * @param messageId the failed message's id on that channel
 */
public record UdpListenerFailure(String listenerId, String exceptionClass, String message, String channel, int messageId) {
}
