package io.reliableudp.spring.core;

import io.reliableudp.spring.support.UdpAddresses;
import java.net.InetSocketAddress;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A peer name that stands for a changing set of instances (a service from discovery): the SPI the
 * {@link UdpPeerDirectory} consults for names that are not a fixed {@code host:port}.
 *
 * <p>The directory owns the sending rules: it asks the group to {@link #choose} an instance, connects
 * to it, and re-routes a message that was not yet handed to a connection when the chosen instance
 * fails to connect or leaves the group meanwhile; once a message is handed to a connection it is
 * never re-routed (the instance may have received it) and its future fails with the transport's
 * reason if the connection ends. The group owns membership, the choice (by key or balanced) and the
 * life of its connections (opening to new instances, draining departed ones), and is told of every
 * hand-off ({@link #handedOff}) so that it can drain.
 *
 * <p>Implementations must be thread-safe; {@link #isMember} is called on the receive thread for every
 * inbound message from an address that is not a static peer, and must not allocate.
 */
public interface UdpPeerGroup {

    /**
     * The peer name the group answers to ({@code reliable-udp.peers.<name>}).
     *
     * @return the name, never blank
     */
    String name();

    /**
     * The instances a send may go to now (joined and not departed), in a stable order.
     *
     * @return the addresses, possibly empty
     */
    List<InetSocketAddress> instances();

    /**
     * Chooses the instance for one message.
     *
     * @param key the routing key: non-null sends of one key go to one instance while the membership
     *     does not change; null lets the group balance
     * @param excluded instances that already failed to take this message (skip them)
     * @return the instance, or null when no instance outside {@code excluded} is left
     */
    @Nullable InetSocketAddress choose(@Nullable Object key, Collection<InetSocketAddress> excluded);

    /**
     * Whether an address is an instance of the group, routable or still draining: the directory names
     * such a peer by the group's name in meters and inbound headers.
     *
     * @param address an address
     * @return true for a member
     */
    boolean isMember(InetSocketAddress address);

    /**
     * Whether new messages may still be routed to an instance (false once it departed, even while its
     * connection drains).
     *
     * @param address an instance's address
     * @return true when routable
     */
    boolean isRoutable(InetSocketAddress address);

    /**
     * Told when a message was handed to an instance's connection, with the future of its outcome: a
     * group that drains departed instances waits for these.
     *
     * @param instance the instance
     * @param outcome completes when the message was acknowledged or failed
     */
    default void handedOff(InetSocketAddress instance, CompletableFuture<?> outcome) {
    }

    /**
     * A label of an instance for logs and failure messages (e.g. its discovery instance id).
     *
     * @param instance the instance's address
     * @return the label
     */
    default String instanceLabel(InetSocketAddress instance) {
        return UdpAddresses.format(instance);
    }
}
