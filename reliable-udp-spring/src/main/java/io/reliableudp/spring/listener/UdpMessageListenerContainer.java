package io.reliableudp.spring.listener;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.core.InboundUdpMessageSubscriber;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.observation.DefaultReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import io.reliableudp.spring.observation.ReliableUdpReceiverContext;
import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.EnvelopeException;
import io.reliableudp.spring.support.KeyedSerialExecutor;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.UdpTypeNotTrustedException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.util.ClassUtils;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The one inbound pipeline from the node to a listener (an annotated method, a programmatic handler, or
 * a Spring Integration inbound adapter, which wraps a container as Spring AMQP's
 * {@code AmqpInboundChannelAdapter} does): it takes the messages its channel and peer filters accept,
 * decodes the envelope, builds the message with the {@link ReliableUdpMessageMapper}, and runs the
 * handler on the executor (virtual threads by default) one message at a time per (peer, channel), so an
 * ordered channel reaches the handler in order, inside a {@code reliable.udp.process} observation. The
 * receive thread never waits for a listener.
 *
 * <p>A request ({@code sendAndReceive}) is answered automatically with the same correlation id: the
 * return value (null or void: an empty reply), on the reply channel or the channel the request came on.
 * A listener exception is retried as the {@link #setBackOff back off} says, then counted
 * ({@link #getErrorCount()}), recorded on the observation, and handed to the error handler, the
 * recoverer (or logged when there is none); the container goes on. A non-null value returned by the
 * error handler is the reply; otherwise a request gets an error reply (the requester's future fails with
 * a {@code RemoteListenerException}). A one-way message's non-null return value is sent back as a plain
 * message. On unordered channels up to {@link #setConcurrency concurrency} messages of one (peer,
 * channel) run at once. A message whose type id is not trusted is refused ({@link #getRejectedTypeCount()}). A payload whose envelope is malformed is counted
 * ({@link #getMalformedCount()}) and logged, never passed on. A one-way message whose sender waits
 * for the listener ({@code AckMode.PROCESSED}) is answered once the listener returned (an empty reply)
 * or failed (an error reply). Error replies carry a {@link RemoteListenerException.Category category},
 * the exception's text only with {@link #setErrorReplyDetails}.
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

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);
    private static final long NO_REQUEST = Long.MIN_VALUE;
    private static final int NOT_PROCESSED_LOGGED = 20;

    /** Default of {@link #setMaxQueuedMessages}. */
    public static final int DEFAULT_MAX_QUEUED_MESSAGES = 1000;

    private final String id;
    private final ManagedReliableUdpNode node;
    private volatile UdpMessageHandler handler;
    private final @Nullable Executor givenExecutor;
    private final Object lifecycleLock = new Object();
    private @Nullable ExecutorService ownExecutor;
    private volatile @Nullable KeyedSerialExecutor executor;
    private final Set<Integer> channels;
    /** The channels the container pauses in the node: its own, or every channel when it listens on all. */
    private final int[] pauseChannels;
    private final Set<InetSocketAddress> peers;
    private final @Nullable ReliableUdpTemplate replyTemplate;
    private final @Nullable UdpListenerErrorHandler errorHandler;
    private final @Nullable String replyChannel;
    private final LongAdder processed = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder malformed = new LongAdder();
    private final LongAdder rejectedTypes = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder notProcessed = new LongAdder();
    private final AtomicLong notProcessedLogged = new AtomicLong();
    private final LongAdder backPressurePauses = new LongAdder();
    /** Messages in hand (queued for the listener or running) and the most there ever were. */
    private final AtomicInteger inHand = new AtomicInteger();
    private final AtomicInteger maxInHand = new AtomicInteger();
    private final AtomicInteger pauseWork = new AtomicInteger();
    private volatile int maxQueuedMessages = DEFAULT_MAX_QUEUED_MESSAGES;
    // set by the receive thread at the bound (pauseNow), cleared by applyPauseOnce (one thread at a time)
    private volatile boolean queueFull;
    private volatile boolean pauseApplied;
    private volatile boolean pauseRequested;
    /** Set by stop(), cleared by start(): a stopped container keeps its channels paused in the node. */
    private volatile boolean stoppedHold;
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
    private volatile @Nullable BackOff backOff;
    private volatile int concurrency = 1;
    private ReliableUdpMessageMapper messageMapper;
    private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private @Nullable ReliableUdpListenerObservationConvention observationConvention;
    private boolean autoStartup = true;
    private int phase = UdpListenerEndpointRegistry.PHASE;
    private volatile boolean running;
    private Duration shutdownTimeout = Duration.ofSeconds(5);
    private volatile boolean errorReplyDetails;

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
        this.handler = Objects.requireNonNull(handler, "handler");
        this.givenExecutor = executor;
        Set<Integer> indexes = new HashSet<>();
        for (String c : endpoint.getChannels()) {
            indexes.add(node.channels().resolve(c).index());
        }
        this.channels = Set.copyOf(indexes);
        this.pauseChannels = (channels.isEmpty() ? node.channels().all().stream().map(UdpChannel::index).toList()
                : channels.stream().sorted().toList()).stream().mapToInt(Integer::intValue).toArray();
        Set<InetSocketAddress> addresses = new HashSet<>();
        for (String p : endpoint.getPeers()) {
            addresses.add(node.peerDirectory().parseTarget(p));
        }
        this.peers = Set.copyOf(addresses);
        this.replyTemplate = replyTemplate;
        this.messageMapper = replyTemplate != null ? replyTemplate.getMessageMapper() : ReliableUdpMessageMapper.createDefault();
        this.errorHandler = endpoint.getErrorHandler() != null ? endpoint.getErrorHandler() : defaultErrorHandler;
        this.replyChannel = endpoint.getReplyChannel();
        if (replyChannel != null) {
            node.channels().resolve(replyChannel);
        }
        if (endpoint.getAutoStartup() != null) {
            this.autoStartup = endpoint.getAutoStartup();
        }
        this.backOff = endpoint.getBackOff();
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
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /**
     * Sets the message mapper (default: the reply template's, so the template and the container map alike).
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

    /**
     * Sets how a failed listener call is retried before the error handler gets it (null: not retried).
     * Retries run on the listener's thread and hold back the later messages of that serial queue: on an
     * ordered channel, of that peer and channel.
     *
     * @param backOff Spring's {@code FixedBackOff}, {@code ExponentialBackOff} or any {@link BackOff}
     */
    public void setBackOff(@Nullable BackOff backOff) {
        this.backOff = backOff;
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
        this.concurrency = concurrency;
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
        this.errorReplyDetails = errorReplyDetails;
    }

    /** Whether error replies carry the exception's class name and message. */
    public boolean isErrorReplyDetails() {
        return errorReplyDetails;
    }

    /** The retry back off, or null when failed calls are not retried. */
    public @Nullable BackOff getBackOff() {
        return backOff;
    }

    /** The concurrency of unordered channels. */
    public int getConcurrency() {
        return concurrency;
    }

    /** Retries of failed listener calls (each attempt after the first). */
    public long getRetryCount() {
        return retries.sum();
    }

    /** Messages refused before the listener because their type id was untrusted or their body did not convert to it. */
    public long getRejectedTypeCount() {
        return rejectedTypes.sum();
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
        KeyedSerialExecutor serial = executor;
        if (serial == null) {
            notProcessed(message, "the listener is stopped");
            return;
        }
        int n = inHand.incrementAndGet();
        if (n > maxInHand.get()) {
            maxInHand.accumulateAndGet(n, Math::max);
        }
        try {
            serial.execute(new Key(message.address(), message.channel().index(), slot(message.channel())), new Task(message));
        } catch (RejectedExecutionException e) {
            inHand.decrementAndGet();
            notProcessed(message, "its executor is shut down");
            return;
        }
        if (n >= maxQueuedMessages) {
            pauseNow(n);
        }
    }

    /** A message in hand: queued for, or running in, the listener. */
    private final class Task implements Runnable {
        private final InboundUdpMessage message;

        Task(InboundUdpMessage message) {
            this.message = message;
        }

        @Override
        public void run() {
            try {
                process(message);
            } finally {
                int n = inHand.decrementAndGet();
                if (queueFull && n <= resumeAt()) {
                    updatePause();
                }
            }
        }
    }

    /**
     * A message the container took but could not hand to the listener (it stopped): counted, logged
     * with its peer, channel and id (the first few of each stop one by one, then their number), and a
     * sender waiting for the listener ({@code sendAndReceive}, ack mode PROCESSED) is told at once.
     */
    private void notProcessed(InboundUdpMessage in, String why) {
        notProcessed.increment();
        long n = notProcessedLogged.incrementAndGet();
        if (n <= NOT_PROCESSED_LOGGED) {
            logger.warn("listener '" + id + "' could not handle a message (" + why + "): peer " + in.address() + ", channel '"
                    + in.channel().name() + "', id " + in.messageId());
        } else if (n == NOT_PROCESSED_LOGGED + 1) {
            logger.warn("listener '" + id + "' could not handle more messages (" + why + "); counted, no longer logged one by one");
        }
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(in.payload());
        } catch (EnvelopeException e) {
            return;
        }
        if (envelope.isRequest() || envelope.isAckRequested()) {
            errorReply(in, envelope.isRequest() && replyChannel != null ? replyChannel : in.channel().name(), envelope.correlationId(),
                    RemoteListenerException.Category.NOT_PROCESSED, null);
        }
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
        if (maxQueuedMessages < 1) {
            throw new IllegalArgumentException("listener '" + id + "': maxQueuedMessages must be >= 1, was " + maxQueuedMessages);
        }
        this.maxQueuedMessages = maxQueuedMessages;
    }

    /** The most messages in hand before the container pauses its channels. */
    public int getMaxQueuedMessages() {
        return maxQueuedMessages;
    }

    private int resumeAt() {
        return maxQueuedMessages / 2;
    }

    /** Messages in hand now: queued for the listener or running in it. */
    public int getQueuedCount() {
        return inHand.get();
    }

    /** The most messages that were ever in hand at once (the queue bound plus what was in flight when it paused). */
    public int getMaxQueuedCount() {
        return maxInHand.get();
    }

    /** How many times the queue reached its bound and the container paused its channels. */
    public long getBackPressurePauseCount() {
        return backPressurePauses.sum();
    }

    /**
     * Messages the container took but could not hand to the listener because it stopped first (its
     * shutdown timeout ran out, or they arrived while it stopped); each was logged with its peer,
     * channel and id.
     */
    public long getNotProcessedCount() {
        return notProcessed.sum();
    }

    /**
     * Pauses this listener: its channels are paused in the node, as when its queue is full (the node
     * holds their messages and, past its limits, stops acknowledging them), until {@link #resume()}.
     * Messages already in hand are still handled. As spring-kafka's
     * {@code MessageListenerContainer.pause()}; the node pauses the channel for every listener of it.
     */
    public void pause() {
        pauseRequested = true;
        updatePause();
    }

    /** Resumes after {@link #pause()}: the node hands the held messages over, in order. */
    public void resume() {
        pauseRequested = false;
        updatePause();
    }

    /** Whether {@link #pause()} was called and not {@link #resume() resumed}. */
    public boolean isPauseRequested() {
        return pauseRequested;
    }

    /** Whether the container holds its channels paused now (requested, queue full, or stopped). */
    public boolean isPaused() {
        return pauseApplied;
    }

    /**
     * The queue is at its bound: pauses the channels in the node at once, on the receive thread (so the
     * core holds the channel's next message already), never waiting for a resume in progress on a
     * listener thread; repeated for each message that still comes (the pause is idempotent), so a resume
     * that lands after it is undone by the next message. The resume is {@link #updatePause()}'s.
     */
    private void pauseNow(int n) {
        if (!queueFull) {
            queueFull = true;
            backPressurePauses.increment();
            if (logger.isDebugEnabled()) {
                logger.debug("listener '" + id + "' has " + n + " messages in hand; pausing its channels");
            }
        }
        pauseApplied = true;
        for (int channel : pausedChannels()) {
            node.pauseReceiving(channel, this);
        }
    }

    /**
     * Brings the node's pause of this container's channels in line with what is wanted (queue at its
     * bound, until half of it; pause requested; stopped). One thread at a time applies (the receive thread
     * pausing, a listener thread resuming); a caller that finds another applying leaves it one more round,
     * so the calls reach the node in order and no lock is held while it is called.
     */
    private void updatePause() {
        if (pauseWork.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            while (applyPauseOnce()) {
                // once more with the count as it is after this change: a listener thread that finished a
                // task meanwhile read the old state and left the resume to us
            }
            missed = pauseWork.addAndGet(-missed);
        } while (missed != 0);
    }

    private boolean applyPauseOnce() {
        int n = inHand.get();
        boolean full = queueFull;
        if (full && n <= resumeAt()) {
            full = false;
            queueFull = false;
        } else if (!full && n >= maxQueuedMessages) {
            full = true;
            queueFull = true;
            backPressurePauses.increment();
        }
        boolean want = full || pauseRequested || stoppedHold;
        if (want == pauseApplied) {
            return false;
        }
        pauseApplied = want;
        for (int channel : pausedChannels()) {
            if (want) {
                node.pauseReceiving(channel, this);
            } else {
                node.resumeReceiving(channel, this);
            }
        }
        return true;
    }

    private int[] pausedChannels() {
        return pauseChannels;
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
        Message<?> message;
        try {
            message = messageMapper.toTypedMessage(in, envelope, classLoader);
        } catch (UdpTypeNotTrustedException | IllegalStateException | MessageConversionException e) {
            rejectedTypes.increment();
            logger.warn("listener '" + id + "' refused a message from " + in.address() + " on channel '"
                    + in.channel().name() + "': " + e.getMessage());
            if (envelope.isRequest() || envelope.isAckRequested()) {
                errorReply(in, envelope.correlationId(), RemoteListenerException.Category.NOT_ACCEPTED, e);
            }
            return;
        }
        ReliableUdpReceiverContext context = new ReliableUdpReceiverContext(envelope.headers(), in, id);
        Observation observation = ReliableUdpObservation.LISTENER_OBSERVATION.observation(observationConvention,
                DefaultReliableUdpListenerObservationConvention.INSTANCE, () -> context, observationRegistry);
        processed.increment();
        observation.observe(() -> {
            Object reply;
            Exception failure = null;
            try {
                reply = invokeWithRetries(message);
            } catch (Exception e) {
                errors.increment();
                observation.error(e);
                failure = e;
                reply = handleError(message, e);
            }
            if (envelope.isRequest()) {
                if (failure != null && reply == null) {
                    errorReply(in, envelope.correlationId(), RemoteListenerException.Category.LISTENER_FAILED, failure);
                } else {
                    reply(in, reply, envelope.correlationId());
                }
                return;
            }
            if (reply != null) {
                reply(in, reply, NO_REQUEST);
            }
            if (envelope.isAckRequested()) {
                acknowledgeProcessed(in, envelope.correlationId(), failure);
            }
        });
    }

    /**
     * Runs the handler; a failure is retried as the back off says (sleeping on the listener's thread, so
     * an ordered channel's later messages of that peer wait), until it stops or the container stops.
     */
    private @Nullable Object invokeWithRetries(Message<?> message) throws Exception {
        BackOffExecution execution = null;
        while (true) {
            try {
                return handler.handle(message);
            } catch (Exception e) {
                BackOff b = backOff;
                if (b == null) {
                    throw e;
                }
                if (execution == null) {
                    execution = b.start();
                }
                long wait = execution.nextBackOff();
                if (wait == BackOffExecution.STOP || !running) {
                    throw e;
                }
                retries.increment();
                if (logger.isDebugEnabled()) {
                    logger.debug("listener '" + id + "' failed (" + e + "); retrying in " + wait + " ms");
                }
                try {
                    Thread.sleep(Math.max(0, wait));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private @Nullable Object handleError(Message<?> message, Exception e) {
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

    /**
     * Tells a sender of {@link io.reliableudp.spring.core.AckMode#PROCESSED} that the listener returned
     * (an empty reply) or failed (an error reply), on the channel the message came on.
     */
    private void acknowledgeProcessed(InboundUdpMessage in, long correlationId, @Nullable Exception failure) {
        ReliableUdpTemplate template = replyTemplate;
        if (template == null) {
            logger.warn("listener '" + id + "' cannot acknowledge a message of " + in.address() + ": no reply template");
            return;
        }
        if (failure != null) {
            errorReply(in, in.channel().name(), correlationId, RemoteListenerException.Category.LISTENER_FAILED, failure);
            return;
        }
        try {
            template.sendReply(in.peer(), in.channel().name(), null, Map.of(), correlationId).whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("processed acknowledgement of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not acknowledge a message of " + in.address(), e);
        }
    }

    private void errorReply(InboundUdpMessage in, long correlationId, RemoteListenerException.Category category, Throwable failure) {
        errorReply(in, replyChannel != null ? replyChannel : in.channel().name(), correlationId, category, failure);
    }

    private void errorReply(InboundUdpMessage in, String channel, long correlationId, RemoteListenerException.Category category,
            @Nullable Throwable failure) {
        ReliableUdpTemplate template = replyTemplate;
        if (template == null) {
            logger.warn("listener '" + id + "' cannot tell " + in.address() + " that its message was not handled: no reply template");
            return;
        }
        try {
            template.sendErrorReply(in.peer(), channel, category, errorReplyDetails ? failure : null, correlationId).whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("error reply of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not send its error reply to " + in.address(), e);
        }
    }

    private void reply(InboundUdpMessage in, @Nullable Object reply, long correlationId) {
        ReliableUdpTemplate template = replyTemplate;
        if (template == null) {
            logger.warn("listener '" + id + "' has a reply but no template is available to send it");
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
            CompletableFuture<SendResult> sent = correlationId == NO_REQUEST
                    ? template.send(in.peer(), replyOn, Objects.requireNonNull(payload), headers)
                    : template.sendReply(in.peer(), replyOn, payload, headers, correlationId);
            sent.whenComplete((r, e) -> {
                if (e != null) {
                    logger.warn("reply of listener '" + id + "' to " + in.address() + " failed: " + e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            logger.error("listener '" + id + "' could not send its reply to " + in.address() + " on '" + replyOn + "'", e);
            if (correlationId != NO_REQUEST) {
                errorReply(in, correlationId, RemoteListenerException.Category.REPLY_FAILED, e);
            }
        }
    }

    @Override
    public void start() {
        synchronized (lifecycleLock) {
            if (running) {
                return;
            }
            Executor e = givenExecutor;
            if (e == null) {
                ExecutorService own = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("rudp-" + id + "-", 0).factory());
                ownExecutor = own;
                e = own;
            }
            executor = new KeyedSerialExecutor(e);
            notProcessedLogged.set(0);
            running = true;
            node.addSubscriber(this);
            stoppedHold = false;
        }
        updatePause();   // what the node held for us while we were stopped comes now, in order
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
        KeyedSerialExecutor serial;
        ExecutorService own;
        synchronized (lifecycleLock) {
            stoppedHold = true;
        }
        updatePause();
        synchronized (lifecycleLock) {
            running = false;
            node.removeSubscriber(this);
            serial = executor;
            own = ownExecutor;
            ownExecutor = null;
        }
        if (serial != null) {
            if (!serial.awaitIdle(shutdownTimeout)) {
                logger.warn("listener '" + id + "' still had " + inHand.get() + " messages in hand after " + shutdownTimeout);
            }
            List<Runnable> left = serial.shutdown();
            for (Runnable r : left) {
                inHand.decrementAndGet();
                notProcessed(((Task) r).message, "it stopped before the message's turn came (shutdown timeout " + shutdownTimeout + ")");
            }
        }
        synchronized (lifecycleLock) {
            if (!running) {
                executor = null;
            }
        }
        if (own != null) {
            own.shutdown();
            try {
                if (!own.awaitTermination(1, TimeUnit.SECONDS)) {
                    own.shutdownNow();
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                own.shutdownNow();
            }
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

    /** Which serial queue of a (peer, channel) a message joins: always 0 for ordered and sequenced channels. */
    private int slot(UdpChannel channel) {
        int n = concurrency;
        if (n <= 1 || (channel.mode() != DeliveryMode.RELIABLE_UNORDERED && channel.mode() != DeliveryMode.UNRELIABLE)) {
            return 0;
        }
        return Math.floorMod(roundRobin.getAndIncrement(), n);
    }

    private record Key(InetSocketAddress address, int channel, int slot) {
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
