package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageEndpoint;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Peer} an application holds: what application threads call on one peer of a
 * {@link DatagramNode}. It keeps no state of its own beyond what was fixed when the peer was made; every
 * call either queues work with the peer's {@link PeerDriver} (a message, a pause, a disconnect, all under
 * the driver's lock) and tells the lane's {@link LaneSchedule} that there is some, or reads a snapshot
 * (state, statistics, identity).
 *
 * <p>Who writes a queued message is the send mode's ({@link LaneSchedule}): in {@code IMMEDIATE} the
 * lane's thread, except that a send finding the lane's loop idle writes its own message on the calling
 * thread, under the driver's lock, as TCP's {@code write} does ({@link ImmediateLaneSchedule}); in
 * {@code TICK} the lane's tick, or the caller's {@link #flush}.
 */
final class PeerHandle implements Peer {

    /** What a handle asks of its node (implemented by {@link DatagramNode}). */
    interface Gate {
        /** False once the node shuts down: sends are refused. */
        boolean acceptsSends();
    }

    private final PeerDriver driver;
    private final IoLane lane;
    private final Gate gate;
    private final boolean[] reliable;
    /** How long a send waits for room in a full queue ({@link NodeConfig#sendQueueWait()}), nanoseconds. */
    private final long sendQueueWaitNanos;
    /** How long a queue may stay full before the peer is dropped (the connection timeout), seconds. */
    private final double timeoutSeconds;

    PeerHandle(PeerDriver driver, IoLane lane, Gate gate, NodeConfig config, double timeoutSeconds) {
        this.driver = driver;
        this.lane = lane;
        this.gate = gate;
        this.sendQueueWaitNanos = config.sendQueueWait().toNanos();
        this.timeoutSeconds = timeoutSeconds;
        List<ChannelConfig> channels = config.message().channels();
        this.reliable = new boolean[channels.size()];
        for (int i = 0; i < reliable.length; i++) {
            reliable[i] = channels.get(i).mode().isReliable();
        }
        driver.handle(this);
    }

    /** The driver behind this handle. */
    PeerDriver driver() {
        return driver;
    }

    /** The lane this peer lives on. */
    IoLane lane() {
        return lane;
    }

    /** Whether this peer has a dedicated socket (tests). */
    boolean dedicated() {
        return driver.dedicated();
    }

    @Override
    public InetSocketAddress address() {
        return driver.address();
    }

    @Override
    public PeerState state() {
        return driver.state();
    }

    @Override
    public @Nullable DisconnectReason disconnectReason() {
        return driver.disconnectReason();
    }

    @Override
    public CompletableFuture<Delivery> send(int channel, byte[] payload) {
        return send(channel, payload, 0);
    }

    @Override
    public CompletableFuture<Delivery> send(int channel, byte[] payload, java.time.Duration ttl) {
        return send(channel, payload, Peer.ttlMillis(ttl));
    }

    private CompletableFuture<Delivery> send(int channel, byte[] payload, int ttlMillis) {
        if (!gate.acceptsSends()) {
            return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "node is shutting down"));
        }
        if (channel < 0 || channel >= reliable.length) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "channel " + channel + " does not exist (0.." + (reliable.length - 1) + ")"));
        }
        if (payload == null) {
            return CompletableFuture.failedFuture(new NullPointerException("payload"));
        }
        long waitNanos = sendQueueWaitNanos;
        long deadline = waitNanos > 0 ? System.nanoTime() + waitNanos : 0;
        LaneSchedule schedule = lane.schedule();
        while (true) {
            // the message layer completes this future itself: no adapter stage per send
            PeerLock.DeliveryFuture f = new PeerLock.DeliveryFuture(driver.lock, driver.address(), reliable[channel]);
            int id;
            boolean ask = false;
            driver.lock.lock();
            try {
                id = driver.connection().send(channel, payload, f, ttlMillis);
                if (id >= 0) {
                    driver.queueAccepted();
                    ask = schedule.queued(driver);
                }
            } finally {
                driver.unlock();
            }
            if (ask) {
                schedule.ask(driver);
            }
            if (id == MessageEndpoint.OFFER_QUEUE_FULL) {
                if (waitNanos > 0 && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                    continue; // that refusal failed f; the next try has a new one
                }
                driver.queueStayedFull(timeoutSeconds);
            }
            return f;
        }
    }

    @Override
    public boolean offer(int channel, byte[] payload) {
        if (!gate.acceptsSends() || channel < 0 || channel >= reliable.length || payload == null) {
            return false;
        }
        LaneSchedule schedule = lane.schedule();
        int id;
        boolean ask = false;
        driver.lock.lock();
        try {
            id = driver.connection().offer(channel, payload);
            if (id >= 0) {
                driver.queueAccepted();
                ask = schedule.queued(driver);
            }
        } finally {
            driver.unlock();
        }
        if (id >= 0) {
            if (ask) {
                schedule.ask(driver);
            }
            return true;
        }
        if (id == MessageEndpoint.OFFER_QUEUE_FULL) {
            driver.queueStayedFull(timeoutSeconds);
        }
        return false;
    }

    /** What is queued goes out now: see {@link LaneSchedule#flush}. */
    @Override
    public void flush() {
        lane.schedule().flush(driver);
    }

    @Override
    public void disconnect() {
        driver.disconnect(DisconnectReason.CLOSED_LOCALLY, "disconnected by the application");
    }

    @Override
    public void pauseReceiving(int channel) {
        driver.pause(channelBit(channel));
    }

    @Override
    public void resumeReceiving(int channel) {
        driver.resume(channelBit(channel));
    }

    private long channelBit(int channel) {
        if (channel < 0 || channel >= reliable.length) {
            throw new IllegalArgumentException("channel " + channel + " does not exist (0.." + (reliable.length - 1) + ")");
        }
        return 1L << channel;
    }

    @Override
    public @Nullable PeerIdentity identity() {
        return driver.identity();
    }

    @Override
    public PeerStats stats() {
        return driver.stats();
    }

    @Override
    public String toString() {
        return driver.toString();
    }
}
