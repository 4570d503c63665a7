package io.reliableudp.spring.core;

import io.reliableudp.spring.support.SendResult;
import io.reliableudp.transport.Peer;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.springframework.messaging.Message;

/**
 * What an application sends with: the operations of {@link ReliableUdpTemplate}, as an interface to
 * inject and to mock (as {@code KafkaOperations} is to {@code KafkaTemplate}).
 *
 * <p>A peer is a configured name ({@code reliable-udp.peers.<name>}) or {@code host:port}; a channel a
 * configured name or an index as text. Every future completes with a {@link SendResult} when the peer
 * acknowledged the message (reliable channels: its node received it; whether a listener there handled
 * it is not part of the acknowledgement) or when it was written to a datagram (unreliable channels),
 * and fails with a {@link ReliableUdpSendException} naming the reason otherwise. An unknown channel
 * or a missing default throws at once: those are programming errors. Request/reply is
 * {@link ReplyingReliableUdpOperations}.
 */
public interface ReliableUdpOperations {

    /**
     * Sends to the default peer on the default channel.
     *
     * @param payload the payload
     * @return the result future
     */
    CompletableFuture<SendResult> send(Object payload);

    /**
     * Sends on the default channel.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param payload the payload
     * @return the result future
     */
    CompletableFuture<SendResult> send(String peer, Object payload);

    /**
     * Sends a payload.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel a channel name or index
     * @param payload the payload
     * @return the result future
     */
    CompletableFuture<SendResult> send(String peer, String channel, Object payload);

    /**
     * Sends a payload with headers carried to the receiver.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel a channel name or index
     * @param payload the payload
     * @param headers headers (String, numbers, Boolean, byte[], UUID values are carried)
     * @return the result future
     */
    CompletableFuture<SendResult> send(String peer, String channel, Object payload, Map<String, ?> headers);

    /**
     * Sends a payload to a peer group (a service) by key: messages with equal keys go to one instance
     * while the instances do not change (consistent hashing), so one entity's messages stay ordered on
     * one instance; when instances join or leave only about 1/N of the keys move. For a static peer the
     * key is ignored. Equivalent to a send with the {@code rudp_routingKey} header
     * ({@link io.reliableudp.spring.support.ReliableUdpHeaders#ROUTING_KEY}).
     *
     * @param peer a configured peer name (a group) or {@code host:port}
     * @param key the routing key (its {@code toString()} is hashed; {@code byte[]} by content)
     * @param channel a channel name or index
     * @param payload the payload
     * @return the result future
     */
    CompletableFuture<SendResult> sendWithKey(String peer, Object key, String channel, Object payload);

    /**
     * Sends a payload to every instance of a peer group (for a static peer or an address: to it), one
     * result per instance, each completing or failing on its own.
     *
     * @param peer a configured peer name (a group) or {@code host:port}
     * @param channel a channel name or index
     * @param payload the payload
     * @return the instance address to its result future, in the group's order (empty when the group has no instance)
     */
    Map<InetSocketAddress, CompletableFuture<SendResult>> sendToAll(String peer, String channel, Object payload);

    /**
     * Sends a payload to an address (connecting when needed).
     *
     * @param peer the peer's address
     * @param channel a channel name or index
     * @param payload the payload
     * @param headers headers to carry
     * @return the result future
     */
    CompletableFuture<SendResult> send(InetSocketAddress peer, String channel, Object payload, Map<String, ?> headers);

    /**
     * Sends over an existing connection (never connects).
     *
     * @param peer the connected peer
     * @param channel a channel name or index
     * @param payload the payload
     * @param headers headers to carry
     * @return the result future
     */
    CompletableFuture<SendResult> send(Peer peer, String channel, Object payload, Map<String, ?> headers);

    /**
     * Sends a spring-messaging message: the peer from {@code rudp_peer}, the channel from
     * {@code rudp_sendChannel}, else the defaults.
     *
     * @param message the message
     * @return the result future
     */
    CompletableFuture<SendResult> send(Message<?> message);

    /**
     * Sends best-effort on the default unreliable channel.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param payload the payload
     * @return the result future
     */
    CompletableFuture<SendResult> sendUnreliable(String peer, Object payload);

    /**
     * Sends best-effort on a named unreliable channel.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel an unreliable channel's name or index
     * @param payload the payload
     * @return the result future
     */
    CompletableFuture<SendResult> sendUnreliable(String peer, String channel, Object payload);
}
