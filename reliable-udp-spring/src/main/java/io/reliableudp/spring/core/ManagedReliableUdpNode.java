package io.reliableudp.spring.core;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.SimpleAsyncTaskScheduler;

/**
 * The node as a Spring bean: the lifecycle of a {@link ReliableUdpNode} whose socket is bound when the
 * application context starts and drained when it stops. Its other duties are classes of their own:
 * the {@link UdpPeerDirectory} (peer names, the {@code host:port} targets, connect and reconnect of
 * named peers), the {@link UdpInboundDispatcher} (the fan-out of messages, RTT samples and peer
 * events on the receive thread) and the receive pauses (who holds which channel paused, applied to
 * whichever node runs).
 *
 * <ul>
 * <li>{@link #start()} starts the node through the {@link ReliableUdpNodeFactory}, attaches it to the
 * peer directory and connects every named peer. Startup never waits for a peer: sends to a peer still
 * connecting wait for its handshake.</li>
 * <li>{@link #stop(Runnable)} refuses new sends, waits up to the drain timeout for pending reliable
 * messages to be acknowledged, then disconnects (failing what is still pending with
 * {@link DeliveryFailure#CLOSED}): nothing is lost silently. Its {@link #PHASE} is above the listener
 * registry's, so it starts after the listeners are ready and stops (drains) before they stop: messages
 * that arrive while draining are still dispatched. The drain timeout should stay below Boot's
 * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s by default).</li>
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
    private final UdpPeerDirectory peerDirectory;
    private final UdpInboundDispatcher dispatcher;
    private final UdpReplyCorrelator replyCorrelator = new UdpReplyCorrelator();
    private final Duration drainTimeout;
    private final Object lifecycleLock = new Object();

    private boolean autoStartup = true;
    private volatile @Nullable ReliableUdpNode node;
    /** Who holds which channel paused, applied to the running node. */
    private final ReceivePauses pauses;
    private volatile boolean running;
    private @Nullable TaskScheduler taskScheduler;
    private @Nullable SimpleAsyncTaskScheduler ownScheduler;

    /**
     * Creates the managed node (nothing is bound until {@link #start()}).
     *
     * @param config the node's settings
     * @param factory starts the node
     * @param channels the channel table (names)
     * @param peerDirectory the named peers and their reconnect policy
     * @param drainTimeout how long {@link #stop(Runnable)} waits for pending reliable sends
     */
    public ManagedReliableUdpNode(NodeConfig config, ReliableUdpNodeFactory factory, UdpChannels channels,
            UdpPeerDirectory peerDirectory, Duration drainTimeout) {
        this.config = Objects.requireNonNull(config, "config");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.peerDirectory = Objects.requireNonNull(peerDirectory, "peerDirectory");
        this.drainTimeout = Objects.requireNonNull(drainTimeout, "drainTimeout");
        this.dispatcher = new UdpInboundDispatcher(this, channels, peerDirectory);
        this.dispatcher.setReplySubscriber(replyCorrelator);
        this.pauses = new ReceivePauses(channels, () -> node);
    }

    /**
     * Creates the managed node with a directory of the given peers.
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
        this(config, factory, channels, new UdpPeerDirectory(peers, reconnectPolicy), drainTimeout);
    }

    /**
     * Sets where connect/disconnect events are published (off the receive thread).
     *
     * @param publisher the publisher, usually the application context
     * @param executor runs the publishing (the listener executor)
     */
    public void setEventPublisher(@Nullable ApplicationEventPublisher publisher, Executor executor) {
        dispatcher.setEventPublisher(publisher, executor);
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

    /** The named peers: names, targets, reconnects. */
    public UdpPeerDirectory peerDirectory() {
        return peerDirectory;
    }

    /** The inbound fan-out (subscribers, counters). */
    public UdpInboundDispatcher dispatcher() {
        return dispatcher;
    }

    /** The correlation of replies to the requests of {@link ReplyingReliableUdpTemplate} and to processed acknowledgements. */
    public UdpReplyCorrelator replyCorrelator() {
        return replyCorrelator;
    }

    /** How long {@link #stop(Runnable)} waits for pending reliable sends. */
    public Duration drainTimeout() {
        return drainTimeout;
    }

    /**
     * Adds a subscriber for inbound messages (see {@link UdpInboundDispatcher#addSubscriber}).
     *
     * @param subscriber the subscriber
     */
    public void addSubscriber(InboundUdpMessageSubscriber subscriber) {
        dispatcher.addSubscriber(subscriber);
    }

    /**
     * Removes a subscriber.
     *
     * @param subscriber the subscriber
     */
    public void removeSubscriber(InboundUdpMessageSubscriber subscriber) {
        dispatcher.removeSubscriber(subscriber);
    }

    @Override
    public void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        dispatcher.addRttSampleSubscriber(subscriber);
    }

    @Override
    public void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        dispatcher.removeRttSampleSubscriber(subscriber);
    }

    // ---- receive pauses (ReceivePauses)

    /**
     * Pauses delivery on a channel for every connection ({@link ReliableUdpNode#pauseReceiving}) on
     * behalf of {@code holder}: the channel stays paused while any holder holds it, so a listener
     * container resuming does not undo another's pause. The core holds the channel's messages, in order,
     * against its receive memory limits, and past them stops acknowledging, so the senders' queues fill.
     * Held across a restart of the node. Any thread; never blocks on a listener.
     *
     * @param channel the channel index
     * @param holder who pauses (e.g. a listener container)
     */
    public void pauseReceiving(int channel, Object holder) {
        pauses.pause(channel, holder);
    }

    /**
     * Releases {@code holder}'s pause of a channel; delivery resumes (the held messages first, in order,
     * on the I/O thread) when no holder is left.
     *
     * @param channel the channel index
     * @param holder who paused
     */
    public void resumeReceiving(int channel, Object holder) {
        pauses.resume(channel, holder);
    }

    /**
     * Whether anyone holds a channel paused.
     *
     * @param channel the channel index
     * @return true while paused
     */
    public boolean isReceivingPaused(int channel) {
        return pauses.isPaused(channel);
    }

    /** Pauses a channel on behalf of the application (the same as {@code pauseReceiving(channel, this)}). */
    @Override
    public void pauseReceiving(int channel) {
        pauseReceiving(channel, this);
    }

    /** Releases the application's pause of a channel ({@link #pauseReceiving(int)}). */
    @Override
    public void resumeReceiving(int channel) {
        resumeReceiving(channel, this);
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
                started = factory.start(config, dispatcher);
            } catch (IOException | RuntimeException e) {
                throw new ReliableUdpNodeStartException(config.bindAddress(), e);
            }
            node = started;
            TaskScheduler scheduler = taskScheduler;
            if (scheduler == null) {
                SimpleAsyncTaskScheduler own = new SimpleAsyncTaskScheduler();
                own.setThreadNamePrefix("rudp-reconnect-");
                own.setVirtualThreads(true);
                ownScheduler = own;
                scheduler = own;
            }
            peerDirectory.attach(started, scheduler);
            pauses.apply();   // channels paused while the node was stopped stay paused
            running = true;
            logger.info("reliable-udp node listening on " + started.localAddress()
                    + (config.encrypted() ? " (encrypted)" : "") + ", " + channels.all().size() + " channels"
                    + (peerDirectory.isEmpty() ? "" : ", peers " + peerDirectory.names()));
            peerDirectory.connectAll();
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
        ReliableUdpNode n = detach();
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

    /** Forgets the running node: the directory stops resolving and reconnecting, our own scheduler closes. */
    private @Nullable ReliableUdpNode detach() {
        synchronized (lifecycleLock) {
            ReliableUdpNode n = node;
            running = false;
            node = null;
            peerDirectory.detach();
            SimpleAsyncTaskScheduler own = ownScheduler;
            ownScheduler = null;
            if (own != null) {
                own.close();
            }
            return n;
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
    public CompletableFuture<Peer> connectAnother(InetSocketAddress remote) {
        return requireNode().connectAnother(remote);
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
    public void allowedPeers(Collection<PeerIdentity> peers) {
        requireNode().allowedPeers(peers);
    }

    @Override
    public void identity(NodeIdentity identity) {
        requireNode().identity(identity);
    }

    @Override
    public void setLinkConditioner(@Nullable LinkConditionerConfig linkConditioner) {
        requireNode().setLinkConditioner(linkConditioner);
    }

    @Override
    public CompletableFuture<Void> shutdown(Duration timeout) {
        if (node == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        drainAndStop(timeout, () -> done.complete(null));
        return done;
    }

    @Override
    public void close() {
        ReliableUdpNode n = detach();
        if (n != null) {
            closeQuietly(n);
        }
    }

    @Override
    public String toString() {
        ReliableUdpNode n = node;
        return "ManagedReliableUdpNode[" + (n == null ? "stopped, bind " + config.bindAddress() : n.localAddress()) + "]";
    }
}
