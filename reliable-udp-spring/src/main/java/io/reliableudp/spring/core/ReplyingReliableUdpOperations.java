package io.reliableudp.spring.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;

/**
 * Request/reply: the operations of {@link ReplyingReliableUdpTemplate}, as an interface to inject and to
 * mock (as {@code ReplyingKafkaOperations} is to {@code ReplyingKafkaTemplate}). One-way sends are
 * {@link ReliableUdpOperations}.
 *
 * <p>A peer is a configured name ({@code reliable-udp.peers.<name>}), a group or {@code host:port}; a
 * channel a reliable channel's configured name or an index as text.
 */
public interface ReplyingReliableUdpOperations {

    /**
     * Sends a request and waits for the reply of the remote listener (its return value, or {@code @SendTo}),
     * correlated automatically, within the template's reply timeout ({@link ReliableUdpTemplate#setReplyTimeout}).
     * The reply comes back on the channel the listener replies on (the request's channel unless
     * {@code @SendTo} names another).
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel a reliable channel's name or index
     * @param payload the request
     * @param replyType the type to convert the reply to
     * @param <R> the reply type
     * @return a future of the reply (null when the listener returned nothing); failed with a
     *     {@link RemoteListenerException} when the listener threw, a {@link ReliableUdpReplyTimeoutException}
     *     when no reply came in time, a {@link ReliableUdpSendException} when the request was not delivered
     * @throws IllegalArgumentException when the channel is unreliable (a lost request could only time out)
     */
    <R> CompletableFuture<@Nullable R> sendAndReceive(String peer, String channel, Object payload, Class<R> replyType);

    /**
     * {@link #sendAndReceive(String, String, Object, Class)} with a timeout of its own.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel a reliable channel's name or index
     * @param payload the request
     * @param replyType the type to convert the reply to
     * @param timeout how long to wait for the reply
     * @param <R> the reply type
     * @return a future of the reply
     */
    <R> CompletableFuture<@Nullable R> sendAndReceive(String peer, String channel, Object payload, Class<R> replyType, Duration timeout);

    /**
     * Sends a request message (peer from {@code rudp_peer}, channel from {@code rudp_sendChannel}, else the
     * defaults; headers carried) and waits for the reply message (payload converted to the reply type,
     * the headers the listener carried plus the transport headers).
     *
     * @param request the request
     * @param replyType the type to convert the reply payload to
     * @param timeout how long to wait, or null for the template's reply timeout
     * @return a future of the reply message (null when the listener returned nothing)
     */
    CompletableFuture<@Nullable Message<?>> sendAndReceive(Message<?> request, Class<?> replyType, @Nullable Duration timeout);
}
