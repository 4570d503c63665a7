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
 * {@code @SendTo} channel, else the channel it came on). Exceptions go to the error handler.
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
}
