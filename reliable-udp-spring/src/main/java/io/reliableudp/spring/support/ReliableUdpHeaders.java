package io.reliableudp.spring.support;

/**
 * Names of the message headers set on inbound messages and read from outbound ones.
 *
 * <p>Headers starting with {@link #PREFIX} describe the transport (who, which channel, which id) and
 * are never copied into the envelope: the receiver derives them from the connection itself, so a peer
 * cannot forge them.
 */
public final class ReliableUdpHeaders {

    /** Prefix of every transport header. */
    public static final String PREFIX = "rudp_";

    /** Inbound: the configured name of the sending peer ({@code reliable-udp.peers.<name>}), or its {@code host:port} when it has none (always present). */
    public static final String PEER_NAME = PREFIX + "peerName";

    /** Inbound: the sender's {@link java.net.InetSocketAddress} (the datagram source address). */
    public static final String PEER_ADDRESS = PREFIX + "peerAddress";

    /** Inbound: the channel index ({@link Integer}). */
    public static final String CHANNEL = PREFIX + "channel";

    /** Inbound: the channel name (configured), or the index as text when the channel has no name. */
    public static final String CHANNEL_NAME = PREFIX + "channelName";

    /** Inbound: the channel's 16-bit message id ({@link Integer}). */
    public static final String MESSAGE_ID = PREFIX + "messageId";

    /** Outbound ({@code send(Message)}): the peer to send to, a configured name, a {@code host:port} or an address. */
    public static final String PEER = PREFIX + "peer";

    /** Outbound ({@code send(Message)}) : the channel to send on, a configured name or an index. */
    public static final String SEND_CHANNEL = PREFIX + "sendChannel";

    /** Integration outbound gateway reply: the {@link io.reliableudp.spring.core.SendResult}. */
    public static final String SEND_RESULT = PREFIX + "sendResult";

    private ReliableUdpHeaders() {
    }
}
