package io.reliableudp.spring.test;

import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.net.InetSocketAddress;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.MessageHeaders;

/**
 * A message a {@link UdpMessageProbe} took: its payload converted to the probe's type, and the headers a
 * listener would get ({@link ReliableUdpHeaders}: the peer's name and address, its identity when it has
 * one, the channel, the message id, and the headers the sender carried).
 *
 * @param payload the converted payload
 * @param headers the headers
 * @param channel the channel it arrived on
 * @param <T> the payload type
 */
public record ReceivedUdpMessage<T>(T payload, MessageHeaders headers, UdpChannel channel) {

    /**
     * Creates the message.
     *
     * @param payload the converted payload
     * @param headers the headers
     * @param channel the channel
     */
    public ReceivedUdpMessage {
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(channel, "channel");
    }

    /** The sender's configured name, else its {@code host:port} ({@link ReliableUdpHeaders#PEER_NAME}). */
    public String peerName() {
        return Objects.requireNonNull(headers.get(ReliableUdpHeaders.PEER_NAME, String.class));
    }

    /** The sender's address ({@link ReliableUdpHeaders#PEER_ADDRESS}). */
    public InetSocketAddress peerAddress() {
        return Objects.requireNonNull(headers.get(ReliableUdpHeaders.PEER_ADDRESS, InetSocketAddress.class));
    }

    /** The channel's message id ({@link ReliableUdpHeaders#MESSAGE_ID}). */
    public int messageId() {
        return Objects.requireNonNull(headers.get(ReliableUdpHeaders.MESSAGE_ID, Integer.class));
    }

    /**
     * One header.
     *
     * @param name the header name
     * @return its value, or null when absent
     */
    public @Nullable Object header(String name) {
        return headers.get(name);
    }

    @Override
    public String toString() {
        return "from " + peerName() + " on '" + channel.name() + "' #" + messageId() + ": " + payload;
    }
}
