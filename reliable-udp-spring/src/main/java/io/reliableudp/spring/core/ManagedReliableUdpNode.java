package io.reliableudp.spring.core;

import io.reliableudp.connection.DisconnectReason;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;
import org.springframework.util.backoff.BackOffExecution;

/**
 * The node as a Spring bean: a {@link ReliableUdpNode} whose socket is bound when the application
 * context starts and drained when it stops.
 *
 * <ul>
 * <li>{@link #start()} starts the node through the {@link ReliableUdpNodeFactory} and connects every
 * named peer; a failed connect or a lost connection is retried with the {@link ReconnectPolicy}.
 * Startup never waits for a peer: sends to a peer still connecting wait for its handshake.</li>
 * <li>{@link #stop(Runnable)} refuses new sends, waits up to the drain timeout for pending reliable
 * messages to be acknowledged, then disconnects (failing what is still pending with
 * {@link DeliveryFailure#CLOSED}): nothing is lost silently. Its {@link #PHASE} is above the listener
 * registry's, so it starts after the listeners are ready and stops (drains) before they stop: messages
 * that arrive while draining are still dispatched. The drain timeout should stay below Boot's
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default).</li>
 * <li>Messages are fanned out on the receive thread to the {@link InboundUdpMessageSubscriber}s
 * (listener containers, Integration adapters), which hand them to their executors.</li>
 * <li>Every RTT sample of every connection is passed on the receive thread to the
 * {@link UdpRttSampleSubscriber}s (the metrics' RTT histogram).</li>
 * </ul>
 *
 * The {@link ReliableUdpNode} methods that need a socket throw {@link IllegalStateException} while the
 * node is not running.
 */
public class ManagedReliableUdpNode implements ReliableUdpNode, UdpRttSampleSource, SmartLifecycle {

    /** The lifecycle phase: after the listener registry on start, before it on stop. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Log logger = LogFactory.getLog(ManagedReliableUdpNode.class);

    private final NodeConfig config;
    private final ReliableUdpNodeFactory factory;
    private final UdpChannels channels;
    private final Map<String, NamedPeer> namedPeers;
    private final Map<InetSocketAddress, String> namesByAddress;
    private final ReconnectPolicy reconnectPolicy;
    private final Duration drainTimeout;
    private final List<InboundUdpMessageSubscriber> subscribers = new CopyOnWriteArrayList<>();
    /** Copy on write, read with an index loop on the receive thread (no iterator per sample). */
    private volatile UdpRttSampleSubscriber[] rttSubscribers = new UdpRttSampleSubscriber[0];
    private final Object rttSubscribersLock = new Object();
    private final LongAdder unhandledMessages = new LongAdder();
    private final LongAdder subscriberErrors = new LongAdder();
    private final Object lifecycleLock = new Object();

    private @Nullable ApplicationEventPublisher eventPublisher;
    private Executor eventExecutor = Runnable::run;
    private boolean autoStartup = true;

    private volatile @Nullable ReliableUdpNode node;
    private volatile boolean running;
    private @Nullable TaskScheduler taskScheduler;
    /** The scheduler of reconnects while running: {@link #taskScheduler}, or one of our own. */
    private @Nullable TaskScheduler reconnectScheduler;
    private @Nullable SimpleAsyncTaskScheduler ownScheduler;

    /**
     * Creates the managed node (nothing is bound until {@link #start()}).
     *
     * @param config the node's settings
     * @param factory starts the node
     * @param channels the channel table (names)
     * @param peers named peers: name to address
     * @param reconnectPolicy backoff for named peers
     * @param drainTimeout how long {@link #stop(Runnable)} waits for pending reliable sends
     */
    public ManagedReliableUdpNode(NodeConfig config, ReliableUdpNodeFactory factory, UdpChannels channels,
            Map<String, InetSocketAddress> peers, ReconnectPolicy reconnectPolicy, Duration drainTimeout) {
        this.config = Objects.requireNonNull(config, "config");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.reconnectPolicy = Objects.requireNonNull(reconnectPolicy, "reconnectPolicy");
        this.drainTimeout = Objects.requireNonNull(drainTimeout, "drainTimeout");
        Map<String, NamedPeer> named = new LinkedHashMap<>();
        Map<InetSocketAddress, String> byAddress = new HashMap<>();
        peers.forEach((name, address) -> {
            named.put(name, new NamedPeer(name, address));
            byAddress.put(address, name);
        });
        this.namedPeers = Map.copyOf(named);
        this.namesByAddress = Map.copyOf(byAddress);
    }

    /**
     * Sets where connect/disconnect events are published (off the receive thread).
     *
     * @param publisher the publisher, usually the application context
     * @param executor runs the publishing (the listener executor)
     */
    public void setEventPublisher(@Nullable ApplicationEventPublisher publisher, Executor executor) {
        this.eventPublisher = publisher;
        this.eventExecutor = Objects.requireNonNull(executor, "executor");
    }

    /**
     * Sets the scheduler of reconnect attempts (with Boot: the application's {@code TaskScheduler} when
     * there is one, else one built by Boot's {@code SimpleAsyncTaskSchedulerBuilder}). Without one the
     * node runs its own {@link SimpleAsyncTaskScheduler} while it is running.
     *
     * @param taskScheduler the scheduler, or null for the node's own
     */
    public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
        this.taskScheduler = taskScheduler;
    }

    /**
     * Whether the node starts with the application context (default true).
     *
     * @param autoStartup false to start it by hand
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    /** The channel table. */
    public UdpChannels channels() {
        return channels;
    }

    /** The names of the configured peers. */
    public Collection<String> peerNames() {
        return namedPeers.keySet();
    }

    /**
     * The configured name of the peer at an address.
     *
     * @param address the address
     * @return the name, or null when no configured peer has that address
     */
    public @Nullable String peerName(InetSocketAddress address) {
        return namesByAddress.get(address);
    }

    /**
     * The address of a configured peer.
     *
     * @param name the name
     * @return the address, or null when no peer has that name
     */
    public @Nullable InetSocketAddress peerAddress(String name) {
        NamedPeer p = namedPeers.get(name);
        return p == null ? null : p.address;
    }

    /** How long {@link #stop(Runnable)} waits for pending reliable sends. */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    /**
     * Adds a subscriber for inbound messages.
     *
     * @param subscriber the subscriber
     */
    public void addSubscriber(InboundUdpMessageSubscriber subscriber) {
        subscribers.add(subscriber);
    }

    /**
     * Removes a subscriber.
     *
     * @param subscriber the subscriber
     */
    public void removeSubscriber(InboundUdpMessageSubscriber subscriber) {
        subscribers.remove(subscriber);
    }

    @Override
    public void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        synchronized (rttSubscribersLock) {
            UdpRttSampleSubscriber[] old = rttSubscribers;
            UdpRttSampleSubscriber[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = subscriber;
            rttSubscribers = grown;
        }
    }

    @Override
    public void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        synchronized (rttSubscribersLock) {
            UdpRttSampleSubscriber[] old = rttSubscribers;
            for (int i = 0; i < old.length; i++) {
                if (old[i] == subscriber) {
                    UdpRttSampleSubscriber[] shrunk = new UdpRttSampleSubscriber[old.length - 1];
                    System.arraycopy(old, 0, shrunk, 0, i);
                    System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                    rttSubscribers = shrunk;
                    return;
                }
            }
        }
    }

    /** Messages that no subscriber accepted (logged at debug level and dropped). */
    public long unhandledMessages() {
        return unhandledMessages.sum();
    }

    /** Exceptions thrown by subscribers on the receive thread (each was logged). */
    public long subscriberErrors() {
        return subscriberErrors.sum();
    }

    /**
     * The connected peer for a configured name or a {@code host:port}, connecting when needed.
     *
     * @param nameOrAddress a configured peer name, or {@code host:port} ({@code [v6]:port} for IPv6)
     * @return a future completed with the connected peer, or failed with a
     *     {@link DeliveryException} ({@link DeliveryFailure#NOT_CONNECTED}) when it cannot be reached
     */
    public CompletableFuture<Peer> resolvePeer(String nameOrAddress) {
        NamedPeer named = namedPeers.get(nameOrAddress);
        if (named != null) {
            return named.resolve();
        }
        return resolvePeer(parseAddress(nameOrAddress));
    }

    /**
     * The connected peer at an address, connecting when needed.
     *
     * @param address the peer's address
     * @return a future completed with the connected peer, or failed with the reason
     */
    public CompletableFuture<Peer> resolvePeer(InetSocketAddress address) {
        String name = namesByAddress.get(address);
        if (name != null) {
            return namedPeers.get(name).resolve();
        }
        ReliableUdpNode n = node;
        if (n == null || !running) {
            return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
        }
        Peer p = n.peer(address);
        if (p != null && p.state() == PeerState.CONNECTED) {
            return CompletableFuture.completedFuture(p);
        }
        return wrapConnectFailure(n.connect(address), address);
    }

    /**
     * Parses {@code host:port} or {@code [v6]:port}.
     *
     * @param text the text
     * @return the (resolved) address
     * @throws IllegalArgumentException when the text is not an address
     */
    public static InetSocketAddress parseAddress(String text) {
        if (text.trim().lastIndexOf(':') <= 0) {
            throw new IllegalArgumentException("'" + text + "' is neither a configured peer name nor host:port");
        }
        return UdpAddresses.parse(text);
    }

    private static CompletableFuture<Peer> wrapConnectFailure(CompletableFuture<Peer> connect, InetSocketAddress address) {
        return connect.exceptionallyCompose(e -> {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof DeliveryException) {
                return CompletableFuture.failedFuture(cause);
            }
            DeliveryException de = new DeliveryException(DeliveryFailure.NOT_CONNECTED,
                    "could not connect to " + address + ": " + cause.getMessage());
            de.initCause(cause);
            return CompletableFuture.failedFuture(de);
        });
    }

    private ReliableUdpNode requireNode() {
        ReliableUdpNode n = node;
        if (n == null) {
            throw new IllegalStateException("the reliable-udp node is not running (it starts with the application context)");
        }
        return n;
    }

    // ---- SmartLifecycle

    @Override
    public void start() {
        synchronized (lifecycleLock) {
            if (running) {
                return;
            }
            ReliableUdpNode started;
            try {
                started = factory.start(config, new Dispatcher());
            } catch (IOException | RuntimeException e) {
                throw new ReliableUdpNodeStartException(config.bindAddress(), e);
            }
            node = started;
            if (taskScheduler != null) {
                reconnectScheduler = taskScheduler;
            } else {
                SimpleAsyncTaskScheduler own = new SimpleAsyncTaskScheduler();
                own.setThreadNamePrefix("rudp-reconnect-");
                own.setVirtualThreads(true);
                ownScheduler = own;
                reconnectScheduler = own;
            }
            running = true;
            logger.info("reliable-udp node listening on " + started.localAddress()
                    + (config.encrypted() ? " (encrypted)" : "") + ", " + channels.all().size() + " channels"
                    + (namedPeers.isEmpty() ? "" : ", peers " + namedPeers.keySet()));
            for (NamedPeer p : namedPeers.values()) {
                p.connect();
            }
        }
    }

    @Override
    public void stop() {
        CountDownLatch latch = new CountDownLatch(1);
        stop(latch::countDown);
        try {
            latch.await(drainTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void stop(Runnable callback) {
        drainAndStop(drainTimeout, callback);
    }

    private void drainAndStop(Duration timeout, Runnable callback) {
        ReliableUdpNode n;
        synchronized (lifecycleLock) {
            n = node;
            running = false;
            node = null;
            releaseScheduler();
        }
        if (n == null) {
            callback.run();
            return;
        }
        logger.info("reliable-udp node draining pending reliable messages (up to " + timeout + ")");
        CompletableFuture<Void> done;
        try {
            done = n.shutdown(timeout);
        } catch (RuntimeException e) {
            logger.warn("reliable-udp node shutdown failed; closing it", e);
            closeQuietly(n);
            callback.run();
            return;
        }
        done.orTimeout(timeout.toMillis() + 2_000, TimeUnit.MILLISECONDS).whenComplete((v, e) -> {
            if (e != null) {
                logger.warn("reliable-udp node did not drain cleanly; closing it: " + e);
                closeQuietly(n);
            } else {
                logger.info("reliable-udp node stopped");
            }
            callback.run();
        });
    }

    /** Under the lifecycle lock: forgets the reconnect scheduler, closing it when it is our own. */
    private void releaseScheduler() {
        reconnectScheduler = null;
        SimpleAsyncTaskScheduler own = ownScheduler;
        ownScheduler = null;
        if (own != null) {
            own.close();
        }
    }

    private static void closeQuietly(ReliableUdpNode n) {
        try {
            n.close();
        } catch (RuntimeException e) {
            logger.warn("reliable-udp node close failed", e);
        }
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
        return PHASE;
    }

    // ---- ReliableUdpNode

    @Override
    public InetSocketAddress localAddress() {
        return requireNode().localAddress();
    }

    @Override
    public NodeConfig config() {
        return config;
    }

    @Override
    public CompletableFuture<Peer> connect(InetSocketAddress remote) {
        return requireNode().connect(remote);
    }

    @Override
    public @Nullable Peer peer(InetSocketAddress address) {
        ReliableUdpNode n = node;
        return n == null ? null : n.peer(address);
    }

    @Override
    public Collection<Peer> peers() {
        ReliableUdpNode n = node;
        return n == null ? List.of() : n.peers();
    }

    @Override
    public NodeStats stats() {
        return requireNode().stats();
    }

    @Override
    public boolean isOpen() {
        ReliableUdpNode n = node;
        return n != null && n.isOpen();
    }

    @Override
    public void setLinkConditioner(@Nullable LinkConditionerConfig linkConditioner) {
        requireNode().setLinkConditioner(linkConditioner);
    }

    @Override
    public CompletableFuture<Void> shutdown(Duration timeout) {
        ReliableUdpNode n = node;
        if (n == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        drainAndStop(timeout, () -> done.complete(null));
        return done;
    }

    @Override
    public void close() {
        ReliableUdpNode n;
        synchronized (lifecycleLock) {
            n = node;
            running = false;
            node = null;
            releaseScheduler();
        }
        if (n != null) {
            closeQuietly(n);
        }
    }

    @Override
    public String toString() {
        ReliableUdpNode n = node;
        return "ManagedReliableUdpNode[" + (n == null ? "stopped, bind " + config.bindAddress() : n.localAddress()) + "]";
    }

    // ---- inbound

    private void publish(Object event) {
        ApplicationEventPublisher publisher = eventPublisher;
        if (publisher == null) {
            return;
        }
        try {
            eventExecutor.execute(() -> {
                try {
                    publisher.publishEvent(event);
                } catch (RuntimeException e) {
                    // e.g. a disconnect event racing the context's close: never let it escape the thread
                    logger.debug("could not publish " + event + ": " + e);
                }
            });
        } catch (RuntimeException e) {
            logger.debug("could not publish " + event + ": " + e);
        }
    }

    private final class Dispatcher implements NodeListener {

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            UdpChannel ch = channels.get(channel);
            if (ch == null) {
                unhandledMessages.increment();
                return;
            }
            InboundUdpMessage message = new InboundUdpMessage(peer, namesByAddress.get(peer.address()), ch, messageId, payload);
            boolean handled = false;
            for (InboundUdpMessageSubscriber s : subscribers) {
                try {
                    if (s.accepts(message)) {
                        handled = true;
                        s.onMessage(message);
                    }
                } catch (RuntimeException e) {
                    subscriberErrors.increment();
                    logger.error("subscriber " + s + " failed on a message from " + peer.address(), e);
                }
            }
            if (!handled) {
                unhandledMessages.increment();
                if (logger.isDebugEnabled()) {
                    logger.debug("no listener for a message from " + peer.address() + " on channel '" + ch.name() + "'; dropped");
                }
            }
        }

        @Override
        public void onRttSample(Peer peer, float rttMillis) {
            UdpRttSampleSubscriber[] subs = rttSubscribers;
            for (int i = 0; i < subs.length; i++) {
                try {
                    subs[i].onRttSample(peer, rttMillis);
                } catch (RuntimeException e) {
                    subscriberErrors.increment();
                    logger.error("RTT subscriber " + subs[i] + " failed on a sample of " + peer.address(), e);
                }
            }
        }

        @Override
        public void onConnected(Peer peer) {
            String name = namesByAddress.get(peer.address());
            logger.info("reliable-udp peer connected: " + (name == null ? "" : name + " ") + peer.address());
            publish(new UdpPeerConnectedEvent(ManagedReliableUdpNode.this, peer, name));
        }

        @Override
        public void onDisconnected(Peer peer, DisconnectReason reason) {
            String name = namesByAddress.get(peer.address());
            logger.info("reliable-udp peer disconnected: " + (name == null ? "" : name + " ") + peer.address() + " (" + reason + ")");
            publish(new UdpPeerDisconnectedEvent(ManagedReliableUdpNode.this, peer, name, reason));
            if (name != null && running && reason != DisconnectReason.CLOSED_LOCALLY) {
                namedPeers.get(name).scheduleReconnect();
            }
        }
    }

    private final class NamedPeer {
        private final String name;
        private final InetSocketAddress address;
        private @Nullable CompletableFuture<Peer> attempt;
        private BackOffExecution backOff = reconnectPolicy.start();
        private long retryAtNanos;
        /** Why the last attempt failed (e.g. DENIED for a wrong key), told to sends refused during the backoff. */
        private @Nullable Throwable lastFailure;
        private @Nullable ScheduledFuture<?> scheduled;

        NamedPeer(String name, InetSocketAddress address) {
            this.name = name;
            this.address = address;
        }

        synchronized CompletableFuture<Peer> resolve() {
            ReliableUdpNode n = node;
            if (n == null || !running) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
            }
            Peer p = n.peer(address);
            if (p != null && p.state() == PeerState.CONNECTED) {
                return CompletableFuture.completedFuture(p);
            }
            if (attempt != null && !attempt.isDone()) {
                return attempt;
            }
            if (System.nanoTime() - retryAtNanos < 0) {
                Throwable last = lastFailure;
                DeliveryException refused = new DeliveryException(DeliveryFailure.NOT_CONNECTED,
                        "peer '" + name + "' (" + address + ") is not connected; next attempt in "
                                + Duration.ofNanos(retryAtNanos - System.nanoTime()).toMillis() + " ms"
                                + (last == null ? "" : "; last attempt failed: " + last.getMessage()));
                if (last != null) {
                    refused.initCause(last);
                }
                return CompletableFuture.failedFuture(refused);
            }
            return connect();
        }

        synchronized CompletableFuture<Peer> connect() {
            ReliableUdpNode n = node;
            if (n == null || !running) {
                return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
            }
            if (attempt != null && !attempt.isDone()) {
                return attempt;
            }
            Peer existing = n.peer(address);
            if (existing != null && existing.state() == PeerState.CONNECTED) {
                return CompletableFuture.completedFuture(existing);
            }
            CompletableFuture<Peer> f;
            try {
                f = wrapConnectFailure(n.connect(address), address);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            attempt = f;
            f.whenComplete((peer, e) -> {
                if (e == null) {
                    synchronized (this) {
                        backOff = reconnectPolicy.start();
                        retryAtNanos = System.nanoTime();
                        lastFailure = null;
                    }
                } else {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    synchronized (this) {
                        // keep the root reason (ConnectionFailedException DENIED, CONNECT_TIMEOUT...) for later sends
                        lastFailure = cause.getCause() != null ? cause.getCause() : cause;
                    }
                    logger.warn("reliable-udp peer '" + name + "' (" + address + ") not connected: " + e.getMessage());
                    scheduleReconnect();
                }
            });
            return f;
        }

        synchronized void scheduleReconnect() {
            TaskScheduler scheduler = reconnectScheduler;
            if (!running || scheduler == null || (scheduled != null && !scheduled.isDone())) {
                return;
            }
            Duration backoff = Duration.ofMillis(Math.max(1, backOff.nextBackOff()));
            retryAtNanos = System.nanoTime() + backoff.toNanos();
            try {
                scheduled = scheduler.schedule(this::connect, Instant.now().plus(backoff));
            } catch (RuntimeException e) {
                logger.debug("reconnect of '" + name + "' not scheduled: " + e);
            }
        }
    }
}
