package io.reliableudp.spring.listener;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.core.InboundUdpMessage;
import io.reliableudp.spring.core.InboundUdpMessageSubscriber;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.UdpChannel;
import io.reliableudp.spring.observation.DefaultReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import io.reliableudp.spring.observation.ReliableUdpReceiverContext;
import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.EnvelopeException;
import io.reliableudp.spring.support.InboundMessages;
import io.reliableudp.spring.support.KeyedSerialExecutor;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;

/**
 * Connects one listener to the node: takes the messages its channel and peer filters accept, and runs
 * the listener on the executor (virtual threads by default) one message at a time per (peer, channel),
 * so an ordered channel reaches the listener in order. The receive thread never waits for a listener.
 *
 * <p>A listener exception is counted ({@link #getErrorCount()}), recorded on the observation, and handed
 * to the error handler (or logged when there is none); the container goes on. A non-null return value
 * (from the listener or the error handler) is sent back to the sender, on the reply channel or the
 * channel the message came on. A payload whose envelope is malformed is counted
 * ({@link #getMalformedCount()}) and logged, never passed on.
 */
public class UdpMessageListenerContainer implements SmartLifecycle, InboundUdpMessageSubscriber {

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);

    private final String id;
    private final ManagedReliableUdpNode node;
    private final UdpMessageHandler handler;
    private final KeyedSerialExecutor executor;
    private final Set<Integer> channels;
    private final Set<String> peerNames = new HashSet<>();
    private final Set<InetSocketAddress> peerAddresses = new HashSet<>();
    private final @Nullable ReliableUdpTemplate replyTemplate;
    private final @Nullable UdpListenerErrorHandler errorHandler;
    private final @Nullable String replyChannel;
    private final LongAdder processed = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder malformed = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private @Nullable ReliableUdpListenerObservationConvention observationConvention;
    private boolean autoStartup = true;
    private int phase = UdpListenerEndpointRegistry.PHASE;
    private volatile boolean running;
    private Duration shutdownTimeout = Duration.ofSeconds(5);

    /**
     * Creates a container.
     *
     * @param endpoint the endpoint (id, filters, reply channel, error handler)
     * @param handler the handler built from the endpoint
     * @param node the node
     * @param executor runs the handler (one task at a time per peer and channel)
     * @param replyTemplate sends replies, or null to drop them (with a warning)
     * @param defaultErrorHandler used when the endpoint has none, or null to log
     */
    public UdpMessageListenerContainer(UdpListenerEndpoint endpoint, UdpMessageHandler handler, ManagedReliableUdpNode node,
            Executor executor, @Nullable ReliableUdpTemplate replyTemplate, @Nullable UdpListenerErrorHandler defaultErrorHandler) {
        this.id = endpoint.getId();
        this.node = Objects.requireNonNull(node, "node");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.executor = new KeyedSerialExecutor(executor);
        Set<Integer> indexes = new HashSet<>();
        for (String c : endpoint.getChannels()) {
            indexes.add(node.channels().resolve(c).index());
        }
        this.channels = Set.copyOf(indexes);
        for (String p : endpoint.getPeers()) {
            if (node.peerAddress(p) != null) {
                peerNames.add(p);
            } else {
                peerAddresses.add(ManagedReliableUdpNode.parseAddress(p));
            }
        }
        this.replyTemplate = replyTemplate;
        this.errorHandler = endpoint.getErrorHandler() != null ? endpoint.getErrorHandler() : defaultErrorHandler;
        this.replyChannel = endpoint.getReplyChannel();
        if (replyChannel != null) {
            node.channels().resolve(replyChannel);
        }
        if (endpoint.getAutoStartup() != null) {
            this.autoStartup = endpoint.getAutoStartup();
        }
    }

    /** The listener id. */
    public String getId() {
        return id;
    }

    /**
     * Sets the observation registry (process observations).
     *
     * @param registry the registry
     */
    public void setObservationRegistry(ObservationRegistry registry) {
        this.observationRegistry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * Sets a custom observation convention.
     *
     * @param convention the convention, or null for the default
     */
    public void setObservationConvention(@Nullable ReliableUdpListenerObservationConvention convention) {
        this.observationConvention = convention;
    }

    /**
     * Sets whether the container starts with the registry.
     *
     * @param autoStartup the flag
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /**
     * Sets the lifecycle phase.
     *
     * @param phase the phase
     */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    /** Messages handed to the listener (successfully or not). */
    public long getProcessedCount() {
        return processed.sum();
    }

    /** Listener invocations that threw. */
    public long getErrorCount() {
        return errors.sum();
    }

    /** Payloads whose envelope could not be decoded. */
    public long getMalformedCount() {
        return malformed.sum();
    }

    /** Messages the executor refused (it was shut down). */
    public long getRejectedCount() {
        return rejected.sum();
    }

    @Override
    public boolean accepts(InboundUdpMessage message) {
        if (!running) {
            return false;
        }
        if (!channels.isEmpty() && !channels.contains(message.channel().index())) {
            return false;
        }
        if (peerNames.isEmpty() && peerAddresses.isEmpty()) {
            return true;
        }
        return (message.peerName() != null && peerNames.contains(message.peerName())) || peerAddresses.contains(message.address());
    }

    @Override
    public void onMessage(InboundUdpMessage message) {
        try {
            executor.execute(new Key(message.address(), message.channel().index()), () -> process(message));
        } catch (RejectedExecutionException e) {
            rejected.increment();
            logger.warn("listener '" + id + "' dropped a message from " + message.address() + ": its executor is shut down");
        }
    }

    private void process(InboundUdpMessage in) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(in.payload());
        } catch (EnvelopeException e) {
            malformed.increment();
            logger.warn("listener '" + id + "' dropped a malformed message from " + in.address() + " on channel '"
                    + in.channel().name() + "': " + e.getMessage());
            return;
        }
        Message<byte[]> message = InboundMessages.toMessage(in, envelope);
        ReliableUdpReceiverContext context = new ReliableUdpReceiverContext(envelope.headers(), in, id);
        Observation observation = ReliableUdpObservation.LISTENER_OBSERVATION.observation(observationConvention,
                DefaultReliableUdpListenerObservationConvention.INSTANCE, () -> context, observationRegistry);
        processed.increment();
        observation.observe(() -> {
            Object reply;
            try {
                reply = handler.handle(message);
            } catch (Exception e) {
                errors.increment();
                observation.error(e);
                reply = handleError(message, e);
            }
            if (reply != null) {
                reply(in, message, reply);
            }
        });
    }

    private @Nullable Object handleError(Message<byte[]> message, Exception e) {
        ListenerExecutionFailedException failure = new ListenerExecutionFailedException(id, message, e);
        if (errorHandler == null) {
            logger.error("listener '" + id + "' failed on a message from " + message.getHeaders().get(ReliableUdpHeaders.PEER_ADDRESS), e);
            return null;
        }
        try {
            return errorHandler.handleError(message, failure);
        } catch (Exception ex) {
            logger.error("the error handler of listener '" + id + "' failed", ex);
            return null;
        }
    }

    private void reply(InboundUdpMessage in, Message<byte[]> request, Object reply) {
        ReliableUdpTemplate template = replyTemplate;
        if (template == null) {
            logger.warn("listener '" + id + "' returned a reply but no template is available to send it");
            return;
        }
        String channel = replyChannel != null ? replyChannel : in.channel().name();
        Object payload = reply;
        Map<String, Object> headers = new LinkedHashMap<>();
        if (reply instanceof Message<?> m) {
            payload = m.getPayload();
            headers.putAll(m.getHeaders());
            Object ch = m.getHeaders().get(ReliableUdpHeaders.SEND_CHANNEL);
            if (ch != null) {
                channel = ch.toString();
            }
        }
        headers.remove(MessageHeaders.ID);
        headers.remove(MessageHeaders.TIMESTAMP);
        final String replyOn = channel;
        try {
            template.send(in.peer(), replyOn, payload, headers).whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("reply of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not send its reply to " + in.address() + " on '" + replyOn + "'", e);
        }
    }

    @Override
    public void start() {
        if (!running) {
            running = true;
            node.addSubscriber(this);
        }
    }

    /**
     * Stops taking messages, then waits (up to the shutdown timeout) for the messages already taken to
     * be handled, so none is dropped on the way out.
     */
    @Override
    public void stop() {
        running = false;
        node.removeSubscriber(this);
        if (!executor.awaitIdle(shutdownTimeout)) {
            logger.warn("listener '" + id + "' still had messages in hand after " + shutdownTimeout);
        }
    }

    /**
     * Sets how long {@link #stop()} waits for messages in hand (default 5 s).
     *
     * @param shutdownTimeout the timeout
     */
    public void setShutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    @Override
    public String toString() {
        return "UdpMessageListenerContainer[" + id + "]";
    }

    private record Key(InetSocketAddress address, int channel) {
    }

    /**
     * The channels this container listens on.
     *
     * @return channel indexes (empty for all)
     */
    public Set<Integer> getChannels() {
        return channels;
    }

    /**
     * Whether a channel is one this container listens on.
     *
     * @param channel the channel
     * @return true when it is
     */
    public boolean listensOn(UdpChannel channel) {
        return channels.isEmpty() || channels.contains(channel.index());
    }
}
