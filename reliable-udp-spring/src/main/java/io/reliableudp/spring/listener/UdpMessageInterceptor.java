package io.reliableudp.spring.listener;

import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/**
 * Sees every message a listener container hands to its listener, before and after (as spring-kafka's
 * {@code RecordInterceptor}): for auditing, for a check of the peer's
 * {@link io.reliableudp.spring.support.ReliableUdpHeaders#PEER_IDENTITY identity}, for adding a header
 * (a tenant, say) the listener reads. It runs on the listener's thread, after the
 * {@link UdpMessageFilter filter}, once per message whatever the retries.
 *
 * <ul>
 * <li>{@link #intercept} comes first: it returns the message to hand on (the same, or a new one with
 * other headers or payload), or null to veto it. A vetoed message is counted
 * ({@link UdpMessageListenerContainer#getVetoedCount()}) and settled as processed, as a filtered one; an
 * exception thrown here is a failure of that message, as a filter's.</li>
 * <li>{@link #success} or {@link #failure} follows the listener: success with its return value; failure
 * with what the last attempt threw, after the retries and before the error handler.</li>
 * <li>{@link #afterRecord} comes last for every message that reached {@link #intercept}, vetoed or not.</li>
 * </ul>
 * An exception from {@code success}, {@code failure} or {@code afterRecord} is logged and changes nothing.
 */
public interface UdpMessageInterceptor {

    /**
     * Before the listener.
     *
     * @param message the message as the listener would get it
     * @return the message to hand on, or null to veto it
     */
    @Nullable Message<?> intercept(Message<?> message);

    /**
     * The listener returned.
     *
     * @param message the message the listener got
     * @param result its return value, or null
     */
    default void success(Message<?> message, @Nullable Object result) {
    }

    /**
     * The listener threw, and its retries did not help.
     *
     * @param message the message the listener got
     * @param exception what the last attempt threw
     */
    default void failure(Message<?> message, Exception exception) {
    }

    /**
     * The message is done with (handled, failed or vetoed).
     *
     * @param message the message the interceptor was given
     */
    default void afterRecord(Message<?> message) {
    }
}
