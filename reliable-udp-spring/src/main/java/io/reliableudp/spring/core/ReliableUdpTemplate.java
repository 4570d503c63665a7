package io.reliableudp.spring.core;

import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.support.SendResult;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.observation.DefaultReliableUdpTemplateObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import io.reliableudp.spring.observation.ReliableUdpSenderContext;
import io.reliableudp.spring.observation.ReliableUdpTemplateObservationConvention;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.Peer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.util.MimeTypeUtils;

/**
 * Sends objects to peers. The payload is converted to bytes by a spring-messaging
 * {@link MessageConverter} (by default {@code byte[]} as is, {@code String} as UTF-8 text, anything
 * else as JSON) and wrapped, with its content type and headers, in the envelope described in
 * {@link io.reliableudp.spring.support.EnvelopeCodec}, so the receiving listener converts it back to its parameter type.
 *
 * <p>Every send returns a future that completes with a {@link SendResult} when the peer acknowledged
 * the message (reliable channels; with {@link #setAckMode ack mode} {@link AckMode#PROCESSED} when
 * the remote listener returned) or when it was written to a datagram (unreliable channels), and
 * completes exceptionally with a {@link ReliableUdpSendException} naming the
 * {@link DeliveryFailure reason} otherwise. Futures complete on the node's threads: use the
 * {@code ...Async} methods of {@link CompletableFuture} for slow follow-up work.
 *
 * <p>Peers are named as configured ({@code reliable-udp.peers.<name>}) or given as {@code host:port};
 * channels by their configured name (or index as text). A send to a peer that is not connected yet
 * waits for its handshake; sends to a named peer keep their call order through it (those issued while
 * it connects are handed over in call order, and later ones queue behind them: see
 * {@link UdpPeerDirectory#send(String, Object, int, byte[])}). Each send is observed ({@code reliable.udp.send}) when an
 * {@link ObservationRegistry} is set; the observation stops when the send completes, and its trace
 * context travels in the envelope headers.
 *
 * <p>Request/reply is a class of its own over this one, {@link ReplyingReliableUdpTemplate}. This
 * template keeps what a listener container needs to answer ({@link #sendReply}, {@link #sendErrorReply})
 * and the reply timeout and executor both use.
 *
 * <p>Thread-safe.
 */
public class ReliableUdpTemplate implements ReliableUdpOperations {

    private final ManagedReliableUdpNode node;
    private ReliableUdpMessageMapper messageMapper = ReliableUdpMessageMapper.createDefault();
    private @Nullable String defaultPeer;
    private @Nullable String defaultChannel;
    private @Nullable String defaultUnreliableChannel;
    private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private volatile boolean observationEnabled = true;
    private Duration replyTimeout = Duration.ofSeconds(5);
    private Executor replyExecutor = task -> Thread.ofVirtual().name("rudp-reply").start(task);
    private @Nullable ReliableUdpTemplateObservationConvention observationConvention;
    /** The ack mode per channel index; null entries are {@link AckMode#RECEIVED}. */
    private volatile AckMode[] ackModes = new AckMode[0];
    /** The sends of ack mode PROCESSED: correlated, waiting for the remote listener. */
    private final ProcessedSends processed = new ProcessedSends(this);

    /**
     * Creates a template over a managed node.
     *
     * @param node the node
     */
    public ReliableUdpTemplate(ManagedReliableUdpNode node) {
        this.node = Objects.requireNonNull(node, "node");
    }

    /** The node this template sends through. */
    public ManagedReliableUdpNode getNode() {
        return node;
    }

    /**
     * Sets the payload converter (it must produce {@code byte[]} or {@code String} payloads).
     *
     * @param messageConverter the converter
     */
    public void setMessageConverter(MessageConverter messageConverter) {
        this.messageMapper = messageMapper.withConverter(Objects.requireNonNull(messageConverter, "messageConverter"));
    }

    /** The payload converter. */
    public MessageConverter getMessageConverter() {
        return messageMapper.getConverter();
    }

    /**
     * Sets the message mapper (converter and header mapper), the one the listener containers use too.
     *
     * @param messageMapper the mapper
     */
    public void setMessageMapper(ReliableUdpMessageMapper messageMapper) {
        this.messageMapper = Objects.requireNonNull(messageMapper, "messageMapper");
    }

    /** The message mapper. */
    public ReliableUdpMessageMapper getMessageMapper() {
        return messageMapper;
    }

    /**
     * Sets the peer used when a send names none.
     *
     * @param defaultPeer a configured peer name or {@code host:port}, or null
     */
    public void setDefaultPeer(@Nullable String defaultPeer) {
        this.defaultPeer = defaultPeer;
    }

    /**
     * Sets the channel used when a send names none.
     *
     * @param defaultChannel a channel name or index, or null (then channel 0)
     */
    public void setDefaultChannel(@Nullable String defaultChannel) {
        if (defaultChannel != null) {
            node.channels().resolve(defaultChannel);
        }
        this.defaultChannel = defaultChannel;
    }

    /**
     * Sets the channel used by {@link #sendUnreliable(String, Object)}.
     *
     * @param channel an unreliable channel's name or index, or null (then the first unreliable channel)
     */
    public void setDefaultUnreliableChannel(@Nullable String channel) {
        if (channel != null) {
            requireUnreliable(node.channels().resolve(channel));
        }
        this.defaultUnreliableChannel = channel;
    }

    /**
     * Sets the registry of send observations.
     *
     * @param observationRegistry the registry ({@link ObservationRegistry#NOOP} turns them off)
     */
    public void setObservationRegistry(ObservationRegistry observationRegistry) {
        this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry");
    }

    /**
     * Turns send observations on or off without changing the registry (on by default: a send is
     * observed once a registry is set).
     *
     * @param observationEnabled false: sends are not observed
     */
    public void setObservationEnabled(boolean observationEnabled) {
        this.observationEnabled = observationEnabled;
    }

    /**
     * Sets a custom convention for send observations.
     *
     * @param observationConvention the convention, or null for the default
     */
    public void setObservationConvention(@Nullable ReliableUdpTemplateObservationConvention observationConvention) {
        this.observationConvention = observationConvention;
    }

    /**
     * Sets when the futures of sends on a reliable channel complete: {@link AckMode#RECEIVED} (the
     * default: the peer's node acknowledged) or {@link AckMode#PROCESSED} (the remote listener returned;
     * the template's reply timeout bounds the wait). Replies and requests are not affected.
     *
     * @param channel a reliable channel's name or index
     * @param ackMode the mode
     * @throws IllegalArgumentException when the channel is unknown, or unreliable and the mode PROCESSED
     */
    public void setAckMode(String channel, AckMode ackMode) {
        UdpChannel c = node.channels().resolve(channel);
        Objects.requireNonNull(ackMode, "ackMode");
        if (ackMode == AckMode.PROCESSED && !c.mode().isReliable()) {
            throw new IllegalArgumentException("channel '" + c.name() + "' is " + c.mode()
                    + ": ack mode PROCESSED needs a reliable channel (reliable-ordered or reliable-unordered)");
        }
        synchronized (this) {
            AckMode[] modes = java.util.Arrays.copyOf(ackModes, Math.max(ackModes.length, c.index() + 1));
            modes[c.index()] = ackMode;
            ackModes = modes;
        }
    }

    /**
     * The ack mode of a channel.
     *
     * @param channel a channel's name or index
     * @return its mode ({@link AckMode#RECEIVED} unless set)
     */
    public AckMode getAckMode(String channel) {
        return ackMode(node.channels().resolve(channel));
    }

    private AckMode ackMode(UdpChannel channel) {
        AckMode[] modes = ackModes;
        AckMode m = channel.index() < modes.length ? modes[channel.index()] : null;
        return m != null ? m : AckMode.RECEIVED;
    }

    /**
     * Sends to the default peer on the default channel.
     *
     * @param payload the payload
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(Object payload) {
        return send(requireDefaultPeer(), defaultChannelName(), payload, Map.of());
    }

    /**
     * Sends on the default channel.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param payload the payload
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(String peer, Object payload) {
        return send(peer, defaultChannelName(), payload, Map.of());
    }

    /**
     * Sends a payload.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel a channel name or index
     * @param payload the payload
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(String peer, String channel, Object payload) {
        return send(peer, channel, payload, Map.of());
    }

    /**
     * Sends a payload with headers carried to the receiver.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel a channel name or index
     * @param payload the payload
     * @param headers headers (String, numbers, Boolean, byte[], UUID values are carried)
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(String peer, String channel, Object payload, Map<String, ?> headers) {
        Object key = headers.get(ReliableUdpHeaders.ROUTING_KEY);
        return doSend(SendTarget.named(node.peerDirectory(), peer, key), node.channels().resolve(channel), payload, headers);
    }

    @Override
    public CompletableFuture<SendResult> sendWithKey(String peer, Object key, String channel, Object payload) {
        Objects.requireNonNull(key, "key");
        return doSend(SendTarget.named(node.peerDirectory(), peer, key), node.channels().resolve(channel), payload, Map.of());
    }

    @Override
    public Map<InetSocketAddress, CompletableFuture<SendResult>> sendToAll(String peer, String channel, Object payload) {
        UdpChannel c = node.channels().resolve(channel);
        UdpPeerGroup group = node.peerDirectory().group(peer);
        Map<InetSocketAddress, CompletableFuture<SendResult>> results = new LinkedHashMap<>();
        if (group == null) {
            InetSocketAddress address = node.peerDirectory().parseTarget(peer);
            results.put(address, doSend(SendTarget.named(node.peerDirectory(), peer, null), c, payload, Map.of()));
            return java.util.Collections.unmodifiableMap(results);
        }
        for (InetSocketAddress instance : group.instances()) {
            results.put(instance, doSend(SendTarget.address(node.peerDirectory(), peer, instance), c, payload, Map.of()));
        }
        return java.util.Collections.unmodifiableMap(results);
    }

    /**
     * Sends a payload to an address (connecting when needed), e.g. a reply to a sender.
     *
     * @param peer the peer's address
     * @param channel a channel name or index
     * @param payload the payload
     * @param headers headers to carry
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(InetSocketAddress peer, String channel, Object payload, Map<String, ?> headers) {
        String name = node.peerDirectory().nameOf(peer);
        return doSend(SendTarget.address(node.peerDirectory(), name != null ? name : peer.toString(), peer), node.channels().resolve(channel), payload, headers);
    }

    /**
     * Sends over an existing connection (never connects): how listeners reply to the sender. A peer
     * whose connection ended fails the future with the transport's reason.
     *
     * @param peer the connected peer
     * @param channel a channel name or index
     * @param payload the payload
     * @param headers headers to carry
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(Peer peer, String channel, Object payload, Map<String, ?> headers) {
        String name = node.peerDirectory().nameOf(peer.address());
        return doSend(SendTarget.connected(node.peerDirectory(), name != null ? name : peer.address().toString(), peer),
                node.channels().resolve(channel), payload, headers);
    }

    /**
     * Sends a spring-messaging message: its payload and headers. The peer comes from the
     * {@link ReliableUdpHeaders#PEER} header (a name, {@code host:port} or an {@link InetSocketAddress}),
     * the channel from {@link ReliableUdpHeaders#SEND_CHANNEL} (a name or index); the defaults apply
     * when they are absent.
     *
     * @param message the message
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> send(Message<?> message) {
        MessageHeaders h = message.getHeaders();
        Object channelHeader = h.get(ReliableUdpHeaders.SEND_CHANNEL);
        UdpChannel channel = node.channels().resolve(channelHeader != null ? channelHeader.toString() : defaultChannelName());
        Object peerHeader = h.get(ReliableUdpHeaders.PEER);
        if (peerHeader instanceof InetSocketAddress address) {
            String name = node.peerDirectory().nameOf(address);
            return doSend(SendTarget.address(node.peerDirectory(), name != null ? name : address.toString(), address), channel, message.getPayload(), h);
        }
        String peer = peerHeader != null ? peerHeader.toString() : requireDefaultPeer();
        Object key = h.get(ReliableUdpHeaders.ROUTING_KEY);
        return doSend(SendTarget.named(node.peerDirectory(), peer, key), channel, message.getPayload(), h);
    }

    /**
     * Sends best-effort on the default unreliable channel: no resend, completes once written.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param payload the payload
     * @return the result future
     */
    @Override
    public CompletableFuture<SendResult> sendUnreliable(String peer, Object payload) {
        UdpChannel channel = defaultUnreliableChannel != null ? node.channels().resolve(defaultUnreliableChannel) : node.channels().firstUnreliable();
        if (channel == null) {
            throw new IllegalStateException("no unreliable channel is configured (reliable-udp.channels.<name>.delivery-mode: unreliable)");
        }
        return doSend(SendTarget.named(node.peerDirectory(), peer, null), channel, payload, Map.of());
    }

    /**
     * Sends best-effort on a named unreliable channel.
     *
     * @param peer a configured peer name or {@code host:port}
     * @param channel an unreliable channel's name or index
     * @param payload the payload
     * @return the result future
     * @throws IllegalArgumentException when the channel is reliable
     */
    @Override
    public CompletableFuture<SendResult> sendUnreliable(String peer, String channel, Object payload) {
        UdpChannel c = requireUnreliable(node.channels().resolve(channel));
        return doSend(SendTarget.named(node.peerDirectory(), peer, null), c, payload, Map.of());
    }

    // ---- waiting for the remote listener, and answering it

    /**
     * Sets how long a send of {@link AckMode#PROCESSED} waits for the remote listener, and how long the
     * {@link ReplyingReliableUdpTemplate}'s {@code sendAndReceive} over this template waits for a reply
     * when no timeout is given (default 5 s).
     *
     * @param replyTimeout the timeout
     */
    public void setReplyTimeout(Duration replyTimeout) {
        if (replyTimeout.isNegative() || replyTimeout.isZero()) {
            throw new IllegalArgumentException("the reply timeout must be > 0, was " + replyTimeout);
        }
        this.replyTimeout = replyTimeout;
    }

    /** How long a processed acknowledgement or a reply is waited for by default. */
    public Duration getReplyTimeout() {
        return replyTimeout;
    }

    /**
     * Sets where replies and processed acknowledgements are converted and their futures completed
     * (default: a virtual thread per reply), never the node's receive thread.
     *
     * @param replyExecutor the executor
     */
    public void setReplyExecutor(Executor replyExecutor) {
        this.replyExecutor = Objects.requireNonNull(replyExecutor, "replyExecutor");
    }

    /** Where replies are converted (the replying template uses this template's). */
    Executor replyExecutor() {
        return replyExecutor;
    }

    /**
     * Answers a request over its connection: what a listener's return value becomes. A null payload is
     * an empty reply (the requester's future completes with null).
     *
     * @param peer the requester's connection
     * @param channel the reply channel (name or index)
     * @param payload the reply, or null
     * @param headers headers to carry
     * @param correlationId the request's {@link ReliableUdpHeaders#CORRELATION_ID}
     * @return the result future of the reply's send
     */
    public CompletableFuture<SendResult> sendReply(Peer peer, String channel, @Nullable Object payload, Map<String, ?> headers,
            long correlationId) {
        ReliableUdpMessageMapper.Outbound outbound = payload == null
                ? new ReliableUdpMessageMapper.Outbound(null, new LinkedHashMap<>(), new byte[0], null)
                : messageMapper.toOutbound(payload, headers);
        return doSend(SendTarget.connected(node.peerDirectory(), node.peerDirectory().label(peer.address()), peer),
                node.channels().resolve(channel), outbound, EnvelopeCodec.FLAG_REPLY, correlationId);
    }

    /**
     * Answers a request (or a message whose sender waits for the listener, {@link AckMode#PROCESSED})
     * with a failure: the requester's future fails with a {@link RemoteListenerException} of that
     * category. The exception's class name and message go only when {@code details} is given (text
     * only, the message cut at 1,000 characters): by default a peer learns why in a word, not what the
     * exception said, which may name internals.
     *
     * @param peer the requester's connection
     * @param channel the reply channel (name or index)
     * @param category why the message was not handled
     * @param details the exception whose class name and message to send, or null to send the category only
     * @param correlationId the request's correlation id
     * @return the result future of the reply's send
     */
    public CompletableFuture<SendResult> sendErrorReply(Peer peer, String channel, RemoteListenerException.Category category,
            @Nullable Throwable details, long correlationId) {
        Map<String, Object> headers = new LinkedHashMap<>();
        byte[] body = new byte[0];
        if (details != null) {
            String type = details.getClass().getName();
            if (type.length() > 200) {
                type = type.substring(type.length() - 200);
            }
            headers.put(RemoteListenerException.EXCEPTION_CLASS_HEADER, type);
            String text = details.getMessage() == null ? "" : details.getMessage();
            if (text.length() > 1000) {
                text = text.substring(0, 1000) + "...";
            }
            body = text.getBytes(StandardCharsets.UTF_8);
        }
        ReliableUdpMessageMapper.Outbound outbound = new ReliableUdpMessageMapper.Outbound(details != null ? MimeTypeUtils.TEXT_PLAIN : null,
                headers, body, category.name());
        return doSend(SendTarget.connected(node.peerDirectory(), node.peerDirectory().label(peer.address()), peer),
                node.channels().resolve(channel), outbound, EnvelopeCodec.FLAG_REPLY | EnvelopeCodec.FLAG_ERROR, correlationId);
    }

    private static UdpChannel requireUnreliable(UdpChannel c) {
        if (c.mode().isReliable()) {
            throw new IllegalArgumentException("channel '" + c.name() + "' is " + c.mode() + ", not an unreliable channel");
        }
        return c;
    }

    String requireDefaultPeer() {
        String p = defaultPeer;
        if (p == null) {
            throw new IllegalStateException("no peer given and no default peer set (reliable-udp.template.default-peer)");
        }
        return p;
    }

    String defaultChannelName() {
        String c = defaultChannel;
        return c != null ? c : node.channels().all().get(0).name();
    }

    private CompletableFuture<SendResult> doSend(SendTarget target, UdpChannel channel, Object payload, Map<String, ?> headers) {
        Duration ttl = ttlOf(headers.get(ReliableUdpHeaders.TTL));
        ReliableUdpMessageMapper.Outbound outbound = messageMapper.toOutbound(payload, headers);
        if (ackMode(channel) == AckMode.PROCESSED) {
            if (ttl != null) {
                throw new IllegalArgumentException("the " + ReliableUdpHeaders.TTL + " header needs ack-mode RECEIVED; channel '"
                        + channel.name() + "' is PROCESSED");
            }
            return processed.send(target, channel, outbound);
        }
        return doSend(target, channel, outbound, 0, 0, ttl);
    }

    /** The {@link ReliableUdpHeaders#TTL} header's value: a {@link Duration}, a number of milliseconds or a duration text. */
    private static @Nullable Duration ttlOf(@Nullable Object header) {
        return switch (header) {
            case null -> null;
            case Duration d -> d;
            case Number n -> Duration.ofMillis(n.longValue());
            default -> {
                String text = header.toString().trim();
                try {
                    yield text.endsWith("ms") ? Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2).trim()))
                            : text.endsWith("s") && !text.startsWith("P") ? Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1).trim()))
                            : Duration.parse(text);
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("the " + ReliableUdpHeaders.TTL + " header must be a Duration, a number of"
                            + " milliseconds or a duration such as 50ms, was " + header, e);
                }
            }
        };
    }

    CompletableFuture<SendResult> doSend(SendTarget target, UdpChannel channel, ReliableUdpMessageMapper.Outbound outbound,
            int flags, long correlationId) {
        return doSend(target, channel, outbound, flags, correlationId, null);
    }

    /**
     * Encodes and hands over one message, observed: every send of the template and of the replying
     * template ends here.
     */
    private CompletableFuture<SendResult> doSend(SendTarget target, UdpChannel channel, ReliableUdpMessageMapper.Outbound outbound,
            int flags, long correlationId, @Nullable Duration ttl) {
        String peerLabel = target.label();
        Map<String, Object> carried = outbound.headers();
        ReliableUdpSenderContext context = new ReliableUdpSenderContext(carried, peerLabel, channel);
        Observation observation = ReliableUdpObservation.TEMPLATE_OBSERVATION.observation(observationConvention,
                DefaultReliableUdpTemplateObservationConvention.INSTANCE, () -> context,
                observationEnabled ? observationRegistry : ObservationRegistry.NOOP).start();
        byte[] wire;
        try {
            wire = outbound.encode(flags, correlationId);
        } catch (RuntimeException e) {
            observation.error(e);
            observation.stop();
            throw e;
        }
        CompletableFuture<SendResult> result = new CompletableFuture<>();
        CompletableFuture<Delivery> handed;
        try {
            if (ttl == null) {
                handed = target.route().send(channel.index(), wire);
            } else {
                // a message with a time-to-live waits for the connection on its own, not queued behind others
                int ttlMillis = Peer.ttlMillis(ttl);
                handed = target.resolver().get().thenCompose(p -> p.send(channel.index(), wire, Duration.ofMillis(ttlMillis)));
            }
        } catch (IllegalArgumentException e) {
            observation.error(e);
            observation.stop();
            throw e;
        } catch (RuntimeException e) {
            handed = CompletableFuture.failedFuture(e);
        }
        handed.whenComplete((delivery, error) -> {
            if (error == null) {
                SendResult r = toResult(delivery, channel, wire.length);
                context.setResult(r);
                observation.stop();
                result.complete(r);
            } else {
                ReliableUdpSendException failure = toFailure(error, peerLabel, channel);
                observation.error(failure);
                observation.stop();
                result.completeExceptionally(failure);
            }
        });
        return result;
    }

    private SendResult toResult(Delivery d, UdpChannel channel, int bytes) {
        return new SendResult(d.peer(), node.peerDirectory().nameOf(d.peer()), channel, d.messageId(), d.acknowledged(), bytes);
    }

    static ReliableUdpSendException toFailure(Throwable error, String peer, UdpChannel channel) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof ReliableUdpSendException e) {
            return e;
        }
        DeliveryFailure reason = cause instanceof DeliveryException de ? de.reason() : DeliveryFailure.NOT_CONNECTED;
        return new ReliableUdpSendException(reason, peer, channel.name(), cause);
    }
}
