package io.reliableudp.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.messaging.handler.annotation.MessageMapping;

/**
 * Marks a method as a listener for messages received by the reliable-udp node.
 *
 * <pre>{@code
 * @UdpMessageListener(channels = "events", peers = "${app.upstream:}")
 * @SendTo("acks")
 * Ack onEvent(@Payload @Validated PositionEvent event, @Header(ReliableUdpHeaders.PEER_NAME) String from) { ... }
 * }</pre>
 *
 * Method arguments: the payload, converted from the envelope's content type to the parameter type
 * ({@code @Payload} optional; validated with {@code @Validated} when a {@code Validator} is available);
 * {@code @Header} values of {@link io.reliableudp.spring.support.ReliableUdpHeaders} and of the headers
 * the sender carried; {@code @Headers Map}; {@code Message<?>}; the sender's
 * {@link java.net.InetSocketAddress}. A non-null return value is sent back to the sender (on the
 * {@code @SendTo} channel, else the channel it came on); a request of {@code sendAndReceive} is answered
 * with the return value correlated to it (null or void: an empty reply). Exceptions are retried
 * ({@link #retries()}, {@link #backOff()}), then go to the error handler or the dead-letter channel; a
 * request then gets an error reply.
 *
 * <p>Messages of one peer on one channel reach the method one at a time, in the order the node delivered
 * them (so ordered channels stay ordered); different peers and channels run concurrently on virtual
 * threads. Every attribute accepts {@code ${...}} placeholders and {@code #{...}} expressions.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@MessageMapping
@Documented
public @interface UdpMessageListener {

    /** The listener id (unique); generated when empty. */
    String id() default "";

    /** Channel names or indexes to listen on; every channel when empty. */
    String[] channels() default {};

    /** Peer names or {@code host:port} addresses to accept messages from; every peer when empty (blank entries are ignored). */
    String[] peers() default {};

    /** Whether the listener starts with the context ({@code "true"}/{@code "false"}); the factory's default when empty. */
    String autoStartup() default "";

    /** Bean name of a {@link io.reliableudp.spring.listener.UdpListenerErrorHandler}; failures are logged when empty. */
    String errorHandler() default "";

    /** Bean name of the {@link io.reliableudp.spring.listener.UdpListenerContainerFactory}; the default factory when empty. */
    String containerFactory() default "";

    /**
     * Messages of one (peer, channel) handled at once on an unordered channel (reliable-unordered,
     * unreliable); ordered and sequenced channels stay one at a time per peer and channel. The factory's
     * default ({@code reliable-udp.listener.concurrency}, 1) when empty.
     */
    String concurrency() default "";

    /**
     * Retries of a failed call before the error handler (the recoverer) gets it, on the listener's
     * thread with an exponential back off from {@link #retryDelay()}; {@code "0"} for none, the
     * factory's default ({@code reliable-udp.listener.retry.*}) when empty. A retry on an ordered channel
     * holds back that peer's later messages on the channel.
     */
    String retries() default "";

    /** First wait between retries ({@code 100ms}, {@code 2s} or ISO-8601); 100 ms when empty. */
    String retryDelay() default "";

    /** Growth of the wait per retry (1 for a fixed wait); 2 when empty. */
    String retryMultiplier() default "";

    /** Longest wait between retries; 10 s when empty. */
    String retryMaxDelay() default "";

    /** Bean name of a Spring {@link org.springframework.util.backoff.BackOff} for the retries (instead of the four above). */
    String backOff() default "";

    /**
     * Bean name of a {@link org.springframework.messaging.MessageChannel} failed messages are sent to
     * once the retries are spent (with {@code rudp_dlt_*} headers); not together with {@link #errorHandler()}.
     */
    String deadLetterChannel() default "";
}
