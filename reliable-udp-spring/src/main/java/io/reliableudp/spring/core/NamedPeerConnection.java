package io.reliableudp.spring.core;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.util.backoff.BackOffExecution;

/**
 * One named peer's connection ({@code reliable-udp.peers.<name>}): its connect attempts and reconnect
 * backoff ({@link ReconnectPolicy}), and the sends waiting for its connection, a FIFO handed to the
 * connection in call order by one thread at a time ({@link #handOver}), bounded by the channel's queue
 * limits. Reads the running node and the scheduler from its {@link PeerConnections}; hands a message to
 * a connection through it. Thread-safe: its state is under its own lock.
 */
final class NamedPeerConnection {

    /** Logged as the directory, where users look for a peer's connect and reconnect. */
    private static final Log logger = LogFactory.getLog(UdpPeerDirectory.class);

    /** A send waiting for a named peer's connection. */
    private record Waiting(int channel, byte[] payload, CompletableFuture<Delivery> result) {
    }

    private final PeerConnections connections;
    private final ReconnectPolicy reconnectPolicy;
    private final String name;
    private final InetSocketAddress address;
    private @Nullable CompletableFuture<Peer> attempt;
    /** Sends issued while connecting, in call order. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    /** Per channel: the messages and bytes in {@link #waiting} (allocated at the first wait). */
    private int @Nullable [] waitingMessages;
    private long @Nullable [] waitingBytes;
    /** True while a thread hands {@link #waiting} over: sends meanwhile queue behind it. */
    private boolean handingOver;
    private BackOffExecution backOff;
    private long retryAtNanos = System.nanoTime();
    /** Why the last attempt failed (e.g. DENIED for a wrong key), told to sends refused during the backoff. */
    private @Nullable Throwable lastFailure;
    private @Nullable ScheduledFuture<?> scheduled;

    NamedPeerConnection(PeerConnections connections, String name, InetSocketAddress address, ReconnectPolicy reconnectPolicy) {
        this.connections = connections;
        this.name = name;
        this.address = address;
        this.reconnectPolicy = reconnectPolicy;
        this.backOff = reconnectPolicy.start();
    }

    /**
     * Sends now when connected and nothing waits; else queues the send behind those waiting for
     * the connection (bounded by the channel's queue limits), or refuses it as {@link #resolve()}
     * would (not running, inside a backoff window).
     */
    CompletableFuture<Delivery> send(int channel, byte[] payload) {
        Peer direct;
        synchronized (this) {
            ReliableUdpNode n = connections.node();
            if (n == null) {
                return PeerConnections.notRunning();
            }
            if (!waiting.isEmpty() || handingOver) {
                return enqueue(n, channel, payload);   // behind the sends still waiting, even when connected
            }
            Peer p = n.peer(address);
            if (p != null && p.state() == PeerState.CONNECTED) {
                direct = p;   // the steady state: nothing allocated here
            } else {
                CompletableFuture<Peer> connected = resolve();
                if (!connected.isDone()) {
                    return enqueue(n, channel, payload);
                }
                if (connected.isCompletedExceptionally()) {
                    return CompletableFuture.failedFuture(PeerConnections.unwrap(connected.exceptionNow()));
                }
                direct = connected.join();
            }
        }
        return connections.send(direct, channel, payload);
    }

    /** Queues a send behind the waiting ones, or refuses it when its channel's waiting ones are at the channel's limits. */
    private CompletableFuture<Delivery> enqueue(ReliableUdpNode n, int channel, byte[] payload) {
        List<ChannelConfig> channels = n.config().message().channels();
        if (channel < 0 || channel >= channels.size()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "channel must be within 0.." + (channels.size() - 1) + ", was " + channel));
        }
        int[] messages = waitingMessages;
        long[] bytes = waitingBytes;
        if (messages == null || bytes == null || messages.length != channels.size()) {
            messages = waitingMessages = new int[channels.size()];
            bytes = waitingBytes = new long[channels.size()];
        }
        ChannelConfig c = channels.get(channel);
        if (messages[channel] >= Math.min(c.maxQueuedMessages(), 32_768) || bytes[channel] + payload.length > c.maxQueuedBytes()) {
            return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.QUEUE_FULL, "peer '" + name + "' ("
                    + address + ") is connecting and " + messages[channel] + " sends (" + bytes[channel] + " bytes) on channel "
                    + channel + " already wait for it (limits " + c.maxQueuedMessages() + " / " + c.maxQueuedBytes() + ")"));
        }
        messages[channel]++;
        bytes[channel] += payload.length;
        CompletableFuture<Delivery> result = new CompletableFuture<>();
        waiting.add(new Waiting(channel, payload, result));
        return result;
    }

    /**
     * Hands the waiting sends over in call order once a connect ended: to the connected peer, or
     * failed with the connect's reason. One thread at a time; sends issued meanwhile queue and are
     * handed over by the same loop, so none overtakes a waiting one.
     */
    void handOver(@Nullable Peer peer, @Nullable Throwable failure) {
        synchronized (this) {
            if (handingOver) {
                return;   // the thread handing over takes what comes
            }
            handingOver = true;
        }
        Throwable reason = failure == null ? null : PeerConnections.unwrap(failure);
        for (;;) {
            Waiting w;
            synchronized (this) {
                w = waiting.poll();
                if (w == null) {
                    handingOver = false;
                    return;
                }
                int[] messages = waitingMessages;
                long[] bytes = waitingBytes;
                if (messages != null && bytes != null) {
                    messages[w.channel()]--;
                    bytes[w.channel()] -= w.payload().length;
                }
            }
            if (reason != null || peer == null) {
                w.result().completeExceptionally(reason != null ? reason
                        : new DeliveryException(DeliveryFailure.CLOSED, "the node is not running"));
                continue;
            }
            try {
                connections.send(peer, w.channel(), w.payload()).whenComplete((d, e) -> {
                    if (e == null) {
                        w.result().complete(d);
                    } else {
                        w.result().completeExceptionally(PeerConnections.unwrap(e));
                    }
                });
            } catch (RuntimeException e) {
                w.result().completeExceptionally(e);
            }
        }
    }

    synchronized CompletableFuture<Peer> resolve() {
        ReliableUdpNode n = connections.node();
        if (n == null) {
            return PeerConnections.notRunning();
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
        ReliableUdpNode n = connections.node();
        if (n == null) {
            return PeerConnections.notRunning();
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
            f = PeerConnections.wrapConnectFailure(n.connect(address), address);
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        attempt = f;
        f.whenComplete((peer, e) -> {
            handOver(peer, e);
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
                if (connections.node() != null) {
                    logger.warn("reliable-udp peer '" + name + "' (" + address + ") not connected: " + e.getMessage());
                }
                scheduleReconnect();
            }
        });
        return f;
    }

    synchronized void scheduleReconnect() {
        TaskScheduler s = connections.scheduler();
        if (connections.node() == null || s == null || (scheduled != null && !scheduled.isDone())) {
            return;
        }
        Duration backoff = Duration.ofMillis(Math.max(1, backOff.nextBackOff()));
        retryAtNanos = System.nanoTime() + backoff.toNanos();
        try {
            scheduled = s.schedule(this::connect, Instant.now().plus(backoff));
        } catch (RuntimeException e) {
            logger.debug("reconnect of '" + name + "' not scheduled: " + e);
        }
    }

    void cancel() {
        synchronized (this) {
            ScheduledFuture<?> f = scheduled;
            scheduled = null;
            if (f != null) {
                f.cancel(false);
            }
            backOff = reconnectPolicy.start();
            retryAtNanos = System.nanoTime();
            lastFailure = null;
            attempt = null;
        }
        handOver(null, new DeliveryException(DeliveryFailure.CLOSED, "the node stopped before peer '" + name + "' was connected"));
    }
}
