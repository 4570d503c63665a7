package io.reliableudp.spring.listener;

import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.core.InboundUdpMessageSubscriber;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.backoff.BackOff;

/**
 * The one inbound pipeline from the node to a listener (an annotated method, a programmatic handler, or
 * a Spring Integration inbound adapter, which wraps a container as Spring AMQP's
 * {@code AmqpInboundChannelAdapter} does). The container itself decides which messages it takes (its
 * channel and peer filters), runs the lifecycle (start, graceful stop, pause) and is the public face of
 * its settings and counters; the receive thread never waits for a listener. Its parts do the rest, as
 * spring-kafka separates the container, the error handler and the reply:
 * <ul>
 * <li>the messages it takes are queued on the executor (virtual threads by default) one at a time per
 * (peer, channel), so an ordered channel reaches the handler in order, and drained on stop;</li>
 * <li>on the listener's thread the message's envelope is decoded and the message built with the
 * {@link ReliableUdpMessageMapper} (a malformed envelope is counted, {@link #getMalformedCount()}, and
 * logged; a type id that is not trusted is refused, {@link #getRejectedTypeCount()}), the
 * {@link #setMessageFilter filter} and the {@link #setMessageInterceptor interceptor} may drop it (counted,
 * and settled as processed), and the handler runs inside a {@code reliable.udp.process} observation;</li>
 * <li>a listener exception is retried as the {@link #setBackOff back off} says, then counted
 * ({@link #getErrorCount()}), recorded on the observation, and handed to the error handler (the
 * recoverer), or logged when there is none; the container goes on;</li>
 * <li>a request ({@code sendAndReceive}) is answered with the same correlation id: the return value (null
 * or void: an empty reply; after a failure, the error handler's non-null value, else an error reply so the
 * requester's future fails with a {@code RemoteListenerException}), on the reply channel or the channel
 * the request came on. A one-way message's non-null return value is sent back as a plain message. A
 * one-way message whose sender waits for the listener ({@code AckMode.PROCESSED}) is answered once the
 * listener returned (an empty reply) or failed (an error reply). Error replies carry a
 * {@link RemoteListenerException.Category category}, the exception's text only with
 * {@link #setErrorReplyDetails}.</li>
 * </ul>
 * On unordered channels up to {@link #setConcurrency concurrency} messages of one (peer, channel) run at
 * once.
 *
 * <p>Back-pressure: at most {@link #setMaxQueuedMessages maxQueuedMessages} are in hand; at the bound
 * the container pauses its channels in the node (which holds their messages and, past its receive
 * memory limits, stops acknowledging them, so the senders' sends fail with {@code QUEUE_FULL}), at half
 * of it it resumes. {@link #pause()}/{@link #resume()} use the same hold. {@link #stop()} pauses the
 * channels, stops taking messages, hands the ones in hand to the listener within the shutdown timeout
 * and counts ({@link #getNotProcessedCount()}) and logs what is left; the channels stay paused until
 * {@link #start()}. An executor the container made itself is shut down on stop.
 */
public class UdpMessageListenerContainer implements SmartLifecycle, InboundUdpMessageSubscriber {

    /** Default of {@link #setMaxQueuedMessages}. */
    public static final int DEFAULT_MAX_QUEUED_MESSAGES = 1000;

    private final String id;
    private final ManagedReliableUdpNode node;
    private final Object lifecycleLock = new Object();
    private final Set<Integer> channels;
    private final Set<InetSocketAddress> peers;
    private final ListenerInvoker invoker;
    private final ListenerReplier replier;
    private final ListenerPipeline pipeline;
    private final ListenerBackPressure backPressure;
    private final ListenerHandOver handOver;
    private boolean autoStartup = true;
    private int phase = UdpListenerEndpointRegistry.PHASE;
    private volatile boolean running;
    private volatile Duration shutdownTimeout = Duration.ofSeconds(5);

    /**
     * Creates a container.
     *
     * @param endpoint the endpoint (id, filters, reply channel, error handler)
     * @param handler the handler built from the endpoint
     * @param node the node
     * @param executor runs the handler (one task at a time per peer and channel); null for a virtual
     *     thread per task, made on {@link #start()} and shut down on {@link #stop()}
     * @param replyTemplate sends replies, or null to drop them (with a warning)
     * @param defaultErrorHandler used when the endpoint has none, or null to log
     * @throws IllegalArgumentException when a channel or peer of the endpoint is unknown
     */
    public UdpMessageListenerContainer(UdpListenerEndpoint endpoint, UdpMessageHandler handler, ManagedReliableUdpNode node,
            @Nullable Executor executor, @Nullable ReliableUdpTemplate replyTemplate, @Nullable UdpListenerErrorHandler defaultErrorHandler) {
        this.id = endpoint.getId();
        this.node = Objects.requireNonNull(node, "node");
        Set<Integer> indexes = new HashSet<>();
        for (String c : endpoint.getChannels()) {
            indexes.add(node.channels().resolve(c).index());
        }
        this.channels = Set.copyOf(indexes);
        int[] pauseChannels = (channels.isEmpty() ? node.channels().all().stream().map(UdpChannel::index).toList()
                : channels.stream().sorted().toList()).stream().mapToInt(Integer::intValue).toArray();
        Set<InetSocketAddress> addresses = new HashSet<>();
        for (String p : endpoint.getPeers()) {
            addresses.add(node.peerDirectory().parseTarget(p));
        }
        this.peers = Set.copyOf(addresses);
        String replyChannel = endpoint.getReplyChannel();
        if (replyChannel != null) {
            node.channels().resolve(replyChannel);
        }
        this.invoker = new ListenerInvoker(id, handler,
                endpoint.getErrorHandler() != null ? endpoint.getErrorHandler() : defaultErrorHandler, () -> running);
        this.replier = new ListenerReplier(id, replyTemplate, replyChannel);
        this.pipeline = new ListenerPipeline(id, invoker, replier,
                replyTemplate != null ? replyTemplate.getMessageMapper() : ReliableUdpMessageMapper.createDefault());
        this.backPressure = new ListenerBackPressure(id, node, pauseChannels, this);
        this.handOver = new ListenerHandOver(id, executor, pipeline, backPressure, replier);
        if (endpoint.getAutoStartup() != null) {
            this.autoStartup = endpoint.getAutoStartup();
        }
        invoker.setBackOff(endpoint.getBackOff());
        if (endpoint.getConcurrency() != null) {
            setConcurrency(endpoint.getConcurrency());
        }
    }

    /** The listener id. */
    public String getId() {
        return id;
    }

    /** The node this container receives from. */
    public ManagedReliableUdpNode getNode() {
        return node;
    }

    /**
     * Replaces the handler (e.g. by the Integration inbound adapter that wraps this container); only
     * while the container is stopped.
     *
     * @param handler the handler
     * @throws IllegalStateException when the container is running
     */
    public void setMessageHandler(UdpMessageHandler handler) {
        if (running) {
            throw new IllegalStateException("listener '" + id + "' is running; stop it before changing its handler");
        }
        invoker.setHandler(handler);
    }

    /**
     * Sets the message mapper (default: the reply template's, so the template and the container map alike).
     *
     * @param messageMapper the mapper
     */
    public void setMessageMapper(ReliableUdpMessageMapper messageMapper) {
        pipeline.setMessageMapper(messageMapper);
    }

    /** The message mapper. */
    public ReliableUdpMessageMapper getMessageMapper() {
        return pipeline.messageMapper();
    }

    /**
     * Sets the observation registry (process observations).
     *
     * @param registry the registry
     */
    public void setObservationRegistry(ObservationRegistry registry) {
        pipeline.setObservationRegistry(registry);
    }

    /**
     * Sets a custom observation convention.
     *
     * @param convention the convention, or null for the default
     */
    public void setObservationConvention(@Nullable ReliableUdpListenerObservationConvention convention) {
        pipeline.setObservationConvention(convention);
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
        return pipeline.processedCount();
    }

    /** Listener invocations that threw. */
    public long getErrorCount() {
        return pipeline.errorCount();
    }

    /** Payloads whose envelope could not be decoded. */
    public long getMalformedCount() {
        return pipeline.malformedCount();
    }

    /**
     * Sets how a failed listener call is retried before the error handler gets it (null: not retried).
     * Retries run on the listener's thread and hold back the later messages of that serial queue: on an
     * ordered channel, of that peer and channel.
     *
     * @param backOff Spring's {@code FixedBackOff}, {@code ExponentialBackOff} or any {@link BackOff}
     */
    public void setBackOff(@Nullable BackOff backOff) {
        invoker.setBackOff(backOff);
    }

    /**
     * Sets how many messages of one (peer, channel) may be handled at once on an unordered channel
     * (reliable-unordered, unreliable); ordered and sequenced channels stay one at a time per peer and
     * channel whatever this says. Default 1.
     *
     * @param concurrency at least 1
     */
    public void setConcurrency(int concurrency) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("listener '" + id + "': concurrency must be >= 1, was " + concurrency);
        }
        handOver.setConcurrency(concurrency);
    }

    /**
     * Sets whether an error reply (to a request, or to a message whose sender waits for the listener)
     * carries the exception's class name and message (at most 1,000 characters). Default false: it
     * carries a {@link RemoteListenerException.Category category} only, since an exception's message
     * may name internals (classes, paths, data) that a peer has no business seeing.
     *
     * @param errorReplyDetails true to send the class name and message
     */
    public void setErrorReplyDetails(boolean errorReplyDetails) {
        replier.setErrorReplyDetails(errorReplyDetails);
    }

    /** Whether error replies carry the exception's class name and message. */
    public boolean isErrorReplyDetails() {
        return replier.isErrorReplyDetails();
    }

    /** The retry back off, or null when failed calls are not retried. */
    public @Nullable BackOff getBackOff() {
        return invoker.backOff();
    }

    /** The concurrency of unordered channels. */
    public int getConcurrency() {
        return handOver.concurrency();
    }

    /** Retries of failed listener calls (each attempt after the first). */
    public long getRetryCount() {
        return invoker.retryCount();
    }

    /**
     * Sets the filter that decides before the listener whether it gets a message; a dropped message is
     * counted ({@link #getFilteredCount()}) and settled as processed (see {@link UdpMessageFilter}).
     *
     * @param filter the filter, or null for none
     */
    public void setMessageFilter(@Nullable UdpMessageFilter filter) {
        pipeline.setFilter(filter);
    }

    /** The filter, or null. */
    public @Nullable UdpMessageFilter getMessageFilter() {
        return pipeline.filter();
    }

    /**
     * Sets the interceptor called before and after the listener, which may veto a message (see
     * {@link UdpMessageInterceptor}).
     *
     * @param interceptor the interceptor, or null for none
     */
    public void setMessageInterceptor(@Nullable UdpMessageInterceptor interceptor) {
        pipeline.setInterceptor(interceptor);
    }

    /** The interceptor, or null. */
    public @Nullable UdpMessageInterceptor getMessageInterceptor() {
        return pipeline.interceptor();
    }

    /** Messages the filter dropped before the listener. */
    public long getFilteredCount() {
        return pipeline.filteredCount();
    }

    /** Messages the interceptor vetoed before the listener. */
    public long getVetoedCount() {
        return pipeline.vetoedCount();
    }

    /** Messages refused before the listener because their type id was untrusted or their body did not convert to it. */
    public long getRejectedTypeCount() {
        return pipeline.rejectedTypeCount();
    }

    @Override
    public boolean accepts(InboundUdpMessage message) {
        if (!running) {
            return false;
        }
        if (!channels.isEmpty() && !channels.contains(message.channel().index())) {
            return false;
        }
        return peers.isEmpty() || peers.contains(message.address());
    }

    @Override
    public void onMessage(InboundUdpMessage message) {
        handOver.offer(message);
    }

    // ---- back-pressure and pause

    /**
     * Sets the most messages this listener holds in hand (queued for it or running), over all peers and
     * channels: at this many the container pauses its channels in the node
     * ({@link ManagedReliableUdpNode#pauseReceiving(int, Object)}), which holds their further messages
     * and, past its receive memory limits, stops acknowledging them, so the senders' queues fill and
     * their sends fail with {@code QUEUE_FULL} instead of this heap growing; at half of it the channels
     * resume. Default {@value #DEFAULT_MAX_QUEUED_MESSAGES}.
     *
     * @param maxQueuedMessages at least 1
     */
    public void setMaxQueuedMessages(int maxQueuedMessages) {
        backPressure.setMaxQueuedMessages(maxQueuedMessages);
    }

    /** The most messages in hand before the container pauses its channels. */
    public int getMaxQueuedMessages() {
        return backPressure.maxQueuedMessages();
    }

    /** Messages in hand now: queued for the listener or running in it. */
    public int getQueuedCount() {
        return backPressure.inHand();
    }

    /** The most messages that were ever in hand at once (the queue bound plus what was in flight when it paused). */
    public int getMaxQueuedCount() {
        return backPressure.maxInHand();
    }

    /** How many times the queue reached its bound and the container paused its channels. */
    public long getBackPressurePauseCount() {
        return backPressure.pauseCount();
    }

    /**
     * Messages the container took but could not hand to the listener because it stopped first (its
     * shutdown timeout ran out, or they arrived while it stopped); each was logged with its peer,
     * channel and id.
     */
    public long getNotProcessedCount() {
        return handOver.notProcessedCount();
    }

    /**
     * Pauses this listener: its channels are paused in the node, as when its queue is full (the node
     * holds their messages and, past its limits, stops acknowledging them), until {@link #resume()}.
     * Messages already in hand are still handled. As spring-kafka's
     * {@code MessageListenerContainer.pause()}; the node pauses the channel for every listener of it.
     */
    public void pause() {
        backPressure.requestPause(true);
    }

    /** Resumes after {@link #pause()}: the node hands the held messages over, in order. */
    public void resume() {
        backPressure.requestPause(false);
    }

    /** Whether {@link #pause()} was called and not {@link #resume() resumed}. */
    public boolean isPauseRequested() {
        return backPressure.isPauseRequested();
    }

    /** Whether the container holds its channels paused now (requested, queue full, or stopped). */
    public boolean isPaused() {
        return backPressure.isPaused();
    }

    // ---- lifecycle

    @Override
    public void start() {
        synchronized (lifecycleLock) {
            if (running) {
                return;
            }
            handOver.open();
            running = true;
            node.addSubscriber(this);
            backPressure.setStoppedHold(false);
        }
        backPressure.update();   // what the node held for us while we were stopped comes now, in order
    }

    /**
     * Stops gracefully: pauses the container's channels in the node (which holds their further messages
     * until {@link #start()}: a stopped container's channels stay paused, for every listener of them),
     * stops taking messages, then hands the messages it already took to the listener, waiting up to the
     * shutdown timeout. What is still queued then is not handled: each is counted
     * ({@link #getNotProcessedCount()}) and logged with its peer, channel and id, and a sender waiting for
     * the listener is answered {@link RemoteListenerException.Category#NOT_PROCESSED}. An executor the
     * container made is shut down last.
     */
    @Override
    public void stop() {
        ListenerHandOver.Detached detached;
        synchronized (lifecycleLock) {
            backPressure.setStoppedHold(true);
        }
        backPressure.update();
        synchronized (lifecycleLock) {
            running = false;
            node.removeSubscriber(this);
            detached = handOver.detach();
        }
        handOver.drain(detached, shutdownTimeout);
        synchronized (lifecycleLock) {
            if (!running) {
                handOver.forget();
            }
        }
        ListenerHandOver.shutDown(detached.own());
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
