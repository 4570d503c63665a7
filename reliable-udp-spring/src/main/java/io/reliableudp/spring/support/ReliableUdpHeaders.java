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

    /**
     * Inbound: the verified identity of the sender: the name of the {@code reliable-udp.security.allowed-peers}
     * entry whose key the peer proved in the handshake ({@link String}). Absent when the connection is not
     * authenticated by static keys (plain or pre-shared-key only). A peer cannot set it: inbound
     * {@value #PREFIX} headers from the wire are never mapped.
     */
    public static final String PEER_IDENTITY = PREFIX + "peerIdentity";

    /** Inbound: the X25519 public key the sender proved, Base64 ({@link String}); present with {@link #PEER_IDENTITY}. */
    public static final String PEER_KEY = PREFIX + "peerKey";

    /** Inbound: the sender's {@link java.net.InetSocketAddress} (the datagram source address). */
    public static final String PEER_ADDRESS = PREFIX + "peerAddress";

    /** Inbound: the channel index ({@link Integer}). */
    public static final String CHANNEL = PREFIX + "channel";

    /** Inbound: the channel name (configured), or the index as text when the channel has no name. */
    public static final String CHANNEL_NAME = PREFIX + "channelName";

    /** Inbound: the channel's 16-bit message id ({@link Integer}). */
    public static final String MESSAGE_ID = PREFIX + "messageId";

    /**
     * Inbound, on a message sent with a time-to-live: its estimated age in milliseconds ({@code int})
     * when the node delivered it (the sender's estimate on arrival plus the time it waited for an
     * earlier one); always below its time-to-live. Absent for a message without one.
     */
    public static final String AGE_MILLIS = PREFIX + "ageMillis";

    /**
     * Outbound: the message's time-to-live, a {@link java.time.Duration}, a number of milliseconds or a
     * text such as {@code 50ms}; it replaces the channel's ({@code reliable-udp.channels.<name>.ttl}).
     * Not yet acknowledged when it passes, the message is sent no more and the send fails with
     * {@code EXPIRED}. The send then waits for the connection on its own (not behind sends still waiting
     * for it). Channels with ack-mode RECEIVED only.
     */
    public static final String TTL = PREFIX + "ttl";

    /**
     * Inbound: the type id the sender named ({@link UdpTypeMapper}); taken from the envelope's type
     * field, so it says what the sender claims, resolved only through the mappings and trusted packages.
     */
    public static final String TYPE_ID = PREFIX + "typeId";

    /** Inbound: the correlation id ({@link Long}) of a request; its reply carries it back automatically. */
    public static final String CORRELATION_ID = PREFIX + "correlationId";

    /** Dead letter: the id of the listener that failed on the message. */
    public static final String DLT_LISTENER_ID = PREFIX + "dlt_listenerId";

    /** Dead letter: the class name of the exception the listener threw. */
    public static final String DLT_EXCEPTION_CLASS = PREFIX + "dlt_exceptionClass";

    /** Dead letter: the message of the exception the listener threw. */
    public static final String DLT_EXCEPTION_MESSAGE = PREFIX + "dlt_exceptionMessage";

    /** Outbound ({@code send(Message)}): the peer to send to, a configured name, a {@code host:port} or an address. */
    public static final String PEER = PREFIX + "peer";

    /** Outbound ({@code send(Message)}) : the channel to send on, a configured name or an index. */
    public static final String SEND_CHANNEL = PREFIX + "sendChannel";

    /**
     * Outbound: the routing key of a send to a peer group (a service): sends with equal keys go to one
     * instance while the instances do not change (consistent hashing), so one entity's messages stay
     * ordered on one instance. Any value; its {@code toString()} is hashed ({@code byte[]} by content).
     * Without it a group balances. Ignored for static peers; like every {@code rudp_} header, not carried.
     */
    public static final String ROUTING_KEY = PREFIX + "routingKey";

    /** Integration outbound gateway reply: the {@link io.reliableudp.spring.support.SendResult}. */
    public static final String SEND_RESULT = PREFIX + "sendResult";

    private ReliableUdpHeaders() {
    }
}
