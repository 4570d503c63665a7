package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.connection.AuthenticatedPeer;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.Session;
import io.reliableudp.link.DatagramConsumer;
import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.RttSampleListener;
import io.reliableudp.message.SendCompletion;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A peer of a {@link DatagramNode}: the {@link Connection} of one remote address behind a lock.
 * Every call into the connection (and so into the message layer) holds {@link #lock}; the receive
 * loop, the send tick and application threads take turns.
 *
 * <p>In the {@code IMMEDIATE} send mode an application thread's send only queues (under the lock)
 * and marks the peer for the I/O thread ({@link DirtyPeers}), which writes it; after every call of the
 * I/O thread into the connection the peer's next deadline goes to the node's {@link PeerTimers}.
 *
 * <p>A peer belongs to one {@link IoLane} for its life: its datagrams leave by that lane's socket,
 * its timers, writes and listener calls run on that lane's thread.
 */
final class NodePeer extends PeerTimers.Entry implements Peer, Connection.Events, Connection.Transmitter, RttSampleListener {

    private final DatagramNode node;
    private final IoLane lane;
    private final InetSocketAddress address;
    /** Whether this peer has a dedicated socket ({@link NodeConfig#dedicatedSockets()}); under lock. */
    private boolean dedicated;
    final ReentrantLock lock = new ReentrantLock();
    /** Direct: where a datagram that is not already in a direct buffer is copied to be sent. */
    private ByteBuffer sendBuffer;
    /** Where a direct buffer's datagram is copied for the link conditioner. */
    /** Where a direct frame is copied on its way into the link conditioner: made on first use (only a conditioned node needs it). */
    private byte @Nullable [] conditionerStaging;
    private final @Nullable CompletableFuture<Peer> connectFuture;
    private final boolean[] reliable;
    private @Nullable Connection connection;
    private volatile PeerState state = PeerState.CONNECTING;
    private volatile @Nullable DisconnectReason reason;
    /** The verified identity, once read ({@link #identity()}). */
    private volatile @Nullable PeerIdentity identity;
    private volatile boolean serverSide;
    // under lock
    private @Nullable LinkConditioner conditioner;
    private int conditionerGeneration;
    private double queueFullSince = -1;
    private final DatagramConsumer forward = this::transmitNow;
    private final boolean immediate;
    /** Channels paused on this peer ({@link #pauseReceiving}), one bit each; the node's own pauses add to them. */
    private final AtomicLong pausedChannels = new AtomicLong();
    /** Futures the message layer completed under the lock, completed by {@link #unlock()} after it (under lock). */
    private @Nullable DeliveryFuture doneHead;
    private @Nullable DeliveryFuture doneTail;
    /** The paused channels the session knows of (under lock); resumes are applied by the I/O thread only. */
    private long appliedPauses;

    // IMMEDIATE send mode
    /** Set while the peer waits in the node's {@link DirtyPeers}. */
    final AtomicBoolean dirty = new AtomicBoolean();
    /** The next peer in {@link DirtyPeers} (written before the push that publishes it). */
    @Nullable NodePeer nextDirty;
    /**
     * Set when the peer was marked without waking the I/O thread ({@link DirtyPeers#markQuietly}): the
     * next ordinary mark must wake it after all. Cleared by the drain.
     */
    volatile boolean quietMark;
    /** IMMEDIATE: when the connection's own timers are next due ({@link Connection#nextHousekeeping()}); I/O thread only. */
    private double housekeepingAt = Double.NEGATIVE_INFINITY;
    /** IMMEDIATE: this peer's place in its lane's housekeeping heap, keyed by {@link #housekeepingAt}; I/O thread only. */
    final Housekeeping housekeeping = new Housekeeping(this);

    NodePeer(DatagramNode node, IoLane lane, InetSocketAddress address, boolean client) {
        this.node = node;
        this.lane = lane;
        this.address = address;
        this.sendBuffer = ByteBuffer.allocateDirect(node.config().message().datagramBudget() + 512);
        this.connectFuture = client ? new CompletableFuture<>() : null;
        this.immediate = node.immediate();
        List<ChannelConfig> channels = node.config().message().channels();
        this.reliable = new boolean[channels.size()];
        for (int i = 0; i < reliable.length; i++) {
            reliable[i] = channels.get(i).mode().isReliable();
        }
    }

    void attach(Connection c, boolean server) {
        this.connection = c;
        c.discoverDatagramBudget(node.pathBudget(address));
        this.serverSide = server;
        if (server) {
            state = PeerState.CONNECTED;
        }
        listenToRtt(c);
        node.adopt(this);
    }

    /** Hooks this peer to the RTT samples of the connection's session, once it has one (under lock). */
    private void listenToRtt(Connection c) {
        Session s = c.session();
        if (s != null) {
            s.setRttListener(this);
        }
    }

    /** From the message layer, under lock while receiving: one RTT sample for the node's listener. */
    @Override
    public void onRttSample(float rttMillis) {
        node.postRttSample(this, rttMillis);
    }

    Connection connection() {
        Connection c = connection;
        if (c == null) {
            throw new IllegalStateException("peer without connection");
        }
        return c;
    }

    /** The lane this peer lives on. */
    IoLane lane() {
        return lane;
    }

    /** Notes that a dedicated socket was opened for this peer (under lock). */
    void markDedicated() {
        dedicated = true;
    }

    /** Whether this peer has a dedicated socket (tests). */
    boolean dedicated() {
        return dedicated;
    }

    /** Clears the dedicated mark (under lock); returns whether it was set, so the socket is closed once. */
    boolean releaseDedicated() {
        boolean was = dedicated;
        dedicated = false;
        return was;
    }

    boolean serverSide() {
        return serverSide;
    }

    @Nullable CompletableFuture<Peer> connectFuture() {
        return connectFuture;
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public PeerState state() {
        return state;
    }

    @Override
    public @Nullable DisconnectReason disconnectReason() {
        return reason;
    }

    @Override
    public CompletableFuture<Delivery> send(int channel, byte[] payload) {
        if (!node.acceptsSends()) {
            return CompletableFuture.failedFuture(new DeliveryException(DeliveryFailure.CLOSED, "node is shutting down"));
        }
        if (channel < 0 || channel >= reliable.length) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "channel " + channel + " does not exist (0.." + (reliable.length - 1) + ")"));
        }
        if (payload == null) {
            return CompletableFuture.failedFuture(new NullPointerException("payload"));
        }
        long waitNanos = node.config().sendQueueWait().toNanos();
        long deadline = waitNanos > 0 ? System.nanoTime() + waitNanos : 0;
        while (true) {
            // the message layer completes this future itself: no adapter stage per send
            DeliveryFuture f = new DeliveryFuture(this, reliable[channel]);
            int id;
            boolean written = false;
            lock.lock();
            try {
                id = connection().send(channel, payload, f);
                if (id >= 0) {
                    queueFullSince = -1;
                    written = writtenByCaller();
                }
            } finally {
                unlock();
            }
            if (id >= 0 && immediate && !written) {
                lane.sendSoon(this);
            }
            if (id == MessageEndpoint.OFFER_QUEUE_FULL) {
                if (waitNanos > 0 && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
                    continue; // that refusal failed f; the next try has a new one
                }
                queueStayedFull();
            }
            return f;
        }
    }

    @Override
    public boolean offer(int channel, byte[] payload) {
        if (!node.acceptsSends() || channel < 0 || channel >= reliable.length || payload == null) {
            return false;
        }
        int id;
        boolean written = false;
        lock.lock();
        try {
            id = connection().offer(channel, payload);
            if (id >= 0) {
                queueFullSince = -1;
                written = writtenByCaller();
            }
        } finally {
            unlock();
        }
        if (id >= 0) {
            if (immediate && !written) {
                lane.sendSoon(this);
            }
            return true;
        }
        if (id == MessageEndpoint.OFFER_QUEUE_FULL) {
            queueStayedFull();
        }
        return false;
    }

    /**
     * IMMEDIATE, under the lock, on an application thread: when nothing of this peer waits for the I/O
     * thread and the loop is idle, writes what is queued (the message just offered) on this thread, as
     * TCP's {@code write} does, instead of waiting for the loop's wake-up: the wake-up is then off the
     * message's path. A burst writes only its first message here: the caller's mark makes the rest queue
     * for the loop, which packs them as before.
     *
     * <p>Returns whether the loop need not be woken at all. The message layer still has timers (the
     * message's resend, cancelled by its ack); the loop takes them over at its next turn, for which the
     * peer is marked here without a wake-up ({@link DirtyPeers#markQuietly}), when that turn comes in
     * time by itself: the loop's wait ends by the connection's next deadline; or the connection is
     * {@link Connection#settled settled} (everything written, nothing owed), so that the ack, whose
     * arrival wakes the loop, will very likely come before the resend is due, and the loop's wake timer
     * is armed for that deadline ({@link IoLane#wakeAtQuietly}; in a stream the timer is armed by then
     * already, and the write wakes no thread at all): a lost message is resent at its timer, as if the
     * loop had been woken. Every other case wakes the loop as before (the caller's
     * {@link IoLane#sendSoon}). Why not wake it anyway: the woken I/O thread runs just when the
     * receiver's thread has the message to handle, and on this project's 2-vCPU machine that doubled or
     * more the 0 % loss p99 of the {@code loss} benchmark.
     */
    private boolean writtenByCaller() {
        if (!immediate || dirty.get() || !node.callerMayWrite(this)) {
            return false;
        }
        Connection c = connection();
        c.flush(node.now()); // the clock is read only here: a message that just queues needs no time
        double next = c.nextDeadline();
        if (lane.wakesBy(next)) {
            lane.markQuietly(this);
            return true;
        }
        if (c.settled()) {
            lane.markQuietly(this); // first: the turn that drops the quiet deadline takes this peer
            lane.wakeAtQuietly(next);
            return true;
        }
        return false;
    }

    /**
     * A peer that leaves a send queue full for a whole timeout period (every send refused, none
     * accepted in between) cannot keep up: it is disconnected with PROTOCOL_ERROR.
     */
    private void queueStayedFull() {
        double now = node.now();
        lock.lock();
        try {
            if (queueFullSince < 0) {
                queueFullSince = now;
            } else if (now - queueFullSince > node.settings().timeout()) {
                connection().disconnect(DisconnectReason.PROTOCOL_ERROR,
                        "the peer cannot keep up: its send queue stayed full for " + (now - queueFullSince) + " s", true, now);
            }
        } finally {
            unlock();
        }
    }

    /**
     * Releases the lock. When the outermost hold ends, the futures the message layer completed
     * meanwhile ({@link DeliveryFuture}) complete now, on this thread, outside the lock: a callback
     * chained to one (without {@code ...Async}) may send to or disconnect any peer, this one included,
     * without holding this peer's lock while it waits for another's.
     */
    void unlock() {
        DeliveryFuture done = null;
        if (lock.getHoldCount() == 1) {
            done = doneHead;
            doneHead = null;
            doneTail = null;
        }
        lock.unlock();
        while (done != null) {
            DeliveryFuture next = done.nextDone;
            done.nextDone = null;
            done.fire();
            done = next;
        }
    }

    /** Under the lock: a future whose outcome is known, completed by {@link #unlock()}. */
    private void completeAfterUnlock(DeliveryFuture f) {
        DeliveryFuture tail = doneTail;
        if (tail == null) {
            doneHead = f;
        } else {
            tail.nextDone = f;
        }
        doneTail = f;
    }

    /**
     * The future {@link #send} returns, completed by the message layer as the {@link SendCompletion}
     * of its message: with the public {@link Delivery}, or with the {@link DeliveryException}. The
     * message layer tells it under the peer's lock: it only notes the outcome and joins the peer's list
     * of futures to complete, which {@link #unlock()} completes once the lock is released (a list
     * through the futures themselves: nothing allocated).
     */
    private static final class DeliveryFuture extends CompletableFuture<Delivery> implements SendCompletion {
        private final NodePeer owner;
        private final boolean acknowledged;
        private int channel;
        private int messageId;
        private @Nullable DeliveryException failure;
        /** Whether the message layer told this message's end (it must, exactly once). */
        private boolean told;
        /** The next future of the owner's list (under the owner's lock). */
        @Nullable DeliveryFuture nextDone;

        DeliveryFuture(NodePeer owner, boolean acknowledged) {
            this.owner = owner;
            this.acknowledged = acknowledged;
        }

        @Override
        public void delivered(int channel, int messageId) {
            if (told()) {
                this.channel = channel;
                this.messageId = messageId;
                later();
            }
        }

        @Override
        public void failed(DeliveryException failure) {
            if (told()) {
                this.failure = failure;
                later();
            }
        }

        /** Whether this is the first time the message's end is told; a second time is a defect, counted. */
        private boolean told() {
            if (told) {
                REPEATED_COMPLETIONS.increment();
                return false;
            }
            told = true;
            return true;
        }

        private void later() {
            if (owner.lock.isHeldByCurrentThread()) {
                owner.completeAfterUnlock(this);
            } else {
                fire();
            }
        }

        /** Completes the future (outside the owner's lock). */
        void fire() {
            DeliveryException f = failure;
            if (f != null) {
                completeExceptionally(f);
            } else {
                complete(new Delivery(owner.address, channel, messageId, acknowledged));
            }
        }
    }

    /**
     * Second tellings of a send's end, in this JVM: 0 unless a defect tells a message's end twice. A
     * {@code CompletableFuture} ignores a second completion (it returns false), so without
     * this count "every send future ends exactly once" could break unseen; the tests assert it stays 0
     * ({@code SendFuturesEndOnce}). Costs nothing on the normal path: the increment runs only on the
     * defect's.
     */
    static final LongAdder REPEATED_COMPLETIONS = new LongAdder();

    /**
     * TICK: sends what is queued now, on the caller's thread. IMMEDIATE: the I/O thread does it anyway;
     * this only makes sure it is asked to, unless the peer is marked already (a send asked it, or wrote
     * everything itself and left the timers to the loop's next turn).
     */
    @Override
    public void flush() {
        if (immediate) {
            if (!dirty.get()) {
                lane.sendSoon(this);
            }
            return;
        }
        lock.lock();
        try {
            connection().flush(node.now());
        } finally {
            unlock();
        }
    }

    /** I/O thread, IMMEDIATE: writes what application threads queued (within the congestion limits), then reschedules. */
    void writeQueued(double now) {
        drive(now, true);
    }

    /** I/O thread, IMMEDIATE: a deadline of the message layer came (resend, ack delay, pacing). */
    void onDeadline(double now) {
        drive(now, false);
    }

    /** Under the lock: a flush (queued sends) or an update (a deadline), then the peer's next deadline. */
    private void drive(double now, boolean flush) {
        double next;
        lock.lock();
        try {
            Connection c = connection;
            if (c == null) {
                return;
            }
            syncPauses();
            if (flush) {
                c.flush(now);
            } else {
                c.update(now);
            }
            next = c.nextDeadline();
        } finally {
            unlock();
        }
        lane.schedule(this, next);
    }

    @Override
    public void disconnect() {
        disconnect(DisconnectReason.CLOSED_LOCALLY, "disconnected by the application");
    }

    // ------------------------------------------------------------ receive pause

    @Override
    public void pauseReceiving(int channel) {
        long bit = channelBit(channel);
        if ((pausedChannels.getAndUpdate(m -> m | bit) & bit) == 0) {
            pausesChanged();
        }
    }

    @Override
    public void resumeReceiving(int channel) {
        long bit = channelBit(channel);
        if ((pausedChannels.getAndUpdate(m -> m & ~bit) & bit) != 0) {
            pausesChanged();
        }
    }

    private long channelBit(int channel) {
        if (channel < 0 || channel >= reliable.length) {
            throw new IllegalArgumentException("channel " + channel + " does not exist (0.." + (reliable.length - 1) + ")");
        }
        return 1L << channel;
    }

    /** The channels paused on this peer or on the whole node. */
    private long pausedNow() {
        return pausedChannels.get() | node.pausedChannels();
    }

    /**
     * This peer's or the node's paused channels changed (any thread): a pause takes effect now, under
     * the lock (the messages that arrive from now on are held); a resume is handed to the I/O thread,
     * which delivers the held messages, so that they reach the listener in order with the rest.
     */
    void pausesChanged() {
        boolean resumeLeft;
        lock.lock();
        try {
            resumeLeft = applyPauses(lane.loop.inLoop());
        } finally {
            unlock();
        }
        if (resumeLeft) {
            if (immediate) {
                lane.sendSoon(this); // its turn calls drive, which applies the resume
            } else {
                lane.loop.wakeup(); // TICK: the next tick applies it
            }
        }
    }

    /**
     * Under the lock: tells the session of the pauses it does not know yet, and of the resumes when on
     * the I/O thread. Returns whether a resume is left for the I/O thread.
     */
    private boolean applyPauses(boolean ioThread) {
        long want = pausedNow();
        long have = appliedPauses;
        if (want == have) {
            return false;
        }
        Connection c = connection;
        Session s = c == null ? null : c.session();
        if (s == null) {
            return false; // applied once the connection has its message layer
        }
        long pause = want & ~have;
        for (long m = pause; m != 0; m &= m - 1) {
            s.pauseReceiving(Long.numberOfTrailingZeros(m));
        }
        long resume = have & ~want;
        if (resume != 0 && !ioThread) {
            appliedPauses = have | pause;
            return true;
        }
        appliedPauses = want;
        for (long m = resume; m != 0; m &= m - 1) {
            s.resumeReceiving(Long.numberOfTrailingZeros(m));
        }
        return false;
    }

    /** I/O thread, under the lock: brings the session's pauses up to date when they changed (two reads when not). */
    private void syncPauses() {
        if (pausedNow() != appliedPauses) {
            applyPauses(true);
        }
    }

    /**
     * At dispatch (I/O thread, not under the lock): a message the session delivered before its channel
     * was paused, which the listener has not seen yet, goes back to the session, held before the ones
     * held since. Returns false (deliver it) when the channel is not paused or the session is gone.
     */
    boolean holdBack(int channel, int messageId, byte[] payload) {
        if (((pausedNow() >>> channel) & 1) == 0) {
            return false;
        }
        lock.lock();
        try {
            syncPauses();
            if (((appliedPauses >>> channel) & 1) == 0) {
                return false;
            }
            Connection c = connection;
            Session s = c == null ? null : c.session();
            return s != null && s.holdAgain(channel, messageId, payload);
        } finally {
            unlock();
        }
    }

    void disconnect(DisconnectReason why, String detail) {
        lock.lock();
        try {
            connection().disconnect(why, detail, true, node.now());
        } finally {
            unlock();
        }
    }

    boolean hasPendingReliable() {
        lock.lock();
        try {
            return connection().hasPendingReliable();
        } finally {
            unlock();
        }
    }

    /**
     * The node's tick (I/O thread): keepalive, timeout, handshake retries, and the message layer's
     * update. In {@code IMMEDIATE} mode only when {@link #housekeepingDue} (a connected peer with nothing
     * due costs the tick one comparison, not a lock and an update).
     */
    void tick(double now) {
        double next;
        lock.lock();
        try {
            Connection c = connection();
            syncPauses();
            c.update(now);
            next = c.nextDeadline();
            housekeepingAt = c.nextHousekeeping();
        } finally {
            unlock();
        }
        if (immediate) {
            lane.schedule(this, next);
        }
    }

    /**
     * IMMEDIATE, I/O thread: whether the connection's own timers (keepalive, timeout, handshake, the
     * session's housekeeping) may be due at {@code now}. The stored time is the connection's answer at
     * the last tick; events since then only move the true time later, so a stale answer costs at most one
     * update that finds nothing to do, never a late keepalive or timeout.
     */
    boolean housekeepingDue(double now) {
        return now >= housekeepingAt;
    }

    /** IMMEDIATE, I/O thread: the connection's answer to {@link Connection#nextHousekeeping()} at the last tick or update. */
    double housekeepingAt() {
        return housekeepingAt;
    }

    /**
     * A peer's entry in its lane's heap of housekeeping times ({@link IoLane#housekeeping}): a second
     * heap beside the deadline heap, so the entry is an object of its own (one per peer, made with it).
     */
    static final class Housekeeping extends PeerTimers.Entry {
        final NodePeer peer;

        Housekeeping(NodePeer peer) {
            this.peer = peer;
        }
    }

    /** A datagram from this peer's address (I/O thread). */
    void receive(byte[] data, int offset, int length, double now) {
        double next;
        lock.lock();
        try {
            Connection c = connection();
            syncPauses();
            c.receive(data, offset, length, now);
            next = c.nextDeadline();
        } finally {
            unlock();
        }
        if (immediate) {
            lane.schedule(this, next);
        }
    }

    @Override
    public @Nullable PeerIdentity identity() {
        PeerIdentity known = identity;
        if (known != null) {
            return known;
        }
        lock.lock();
        try {
            Connection c = connection;
            AuthenticatedPeer p = c == null ? null : c.authenticatedPeer();
            if (p == null) {
                return null;
            }
            known = new PeerIdentity(p.name(), new PeerKey(p.publicKey()));
            identity = known;
            return known;
        } finally {
            lock.unlock();
        }
    }

    /** Why this end's handshake failed (client side), under lock or after the end. */
    @Nullable HandshakeFailure handshakeFailure() {
        Connection c = connection;
        return c == null ? null : c.handshakeFailure();
    }

    @Override
    public PeerStats stats() {
        lock.lock();
        try {
            Connection c = connection();
            return node.statsOf(this, c);
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------ connection events (under lock)

    @Override
    public void onConnected() {
        state = PeerState.CONNECTED;
        Connection c = connection;
        if (c != null) {
            listenToRtt(c);
        }
        node.connected(this);
        node.post(NodeEvents.Event.connected(this));
    }

    @Override
    public void onDisconnected(DisconnectReason why, String detail) {
        reason = why;
        state = PeerState.DISCONNECTED;
        node.removed(this, why, detail);
        node.post(NodeEvents.Event.disconnected(this, why, detail));
    }

    @Override
    public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
        byte[] copy = new byte[length];
        System.arraycopy(data, offset, copy, 0, length);
        node.postMessage(this, channel, messageId, copy);
    }

    @Override
    public void onDrop(DropReason why) {
        node.countDrop(why);
    }

    /**
     * Called under lock by the connection with a frame in its datagram buffer: a direct buffer (plain
     * mode) goes to the port as it lies; a heap buffer (encrypted mode) is copied into this peer's
     * direct send buffer first, once. Through the link conditioner when the node has one (it queues
     * a copy: a test and diagnostic tool, not the fast path).
     */
    @Override
    public void transmit(ByteBuffer buffer, int offset, int length) {
        if (buffer.isDirect() && conditioner() == null) {
            lane.transmit(buffer, offset, length, address);
        } else if (buffer.hasArray()) {
            transmit(buffer.array(), buffer.arrayOffset() + offset, length);
        } else {
            byte[] staging = conditionerStaging;
            if (staging == null || staging.length < length) {
                staging = new byte[Math.max(length, sendBuffer.capacity())];
                conditionerStaging = staging;
            }
            buffer.get(offset, staging, 0, length);
            transmit(staging, 0, length);
        }
    }

    /** Called under lock by the connection (handshake packets): through the link conditioner when the node has one. */
    @Override
    public void transmit(byte[] data, int offset, int length) {
        LinkConditioner c = conditioner();
        if (c == null) {
            lane.transmit(sendBuffer(length), address, data, offset, length);
        } else {
            double now = node.now();
            node.counters().sent(length); // sent into the simulated network, whatever it does with it
            c.submit(data, offset, length, now);
            c.poll(now, forward);
        }
    }

    private void transmitNow(byte[] data, int offset, int length) {
        lane.transmitConditioned(sendBuffer(length), address, data, offset, length);
    }

    /** The direct buffer a datagram of {@code length} bytes is copied into: larger once the connection's datagrams grew. */
    private ByteBuffer sendBuffer(int length) {
        ByteBuffer b = sendBuffer;
        if (length > b.capacity()) {
            b = ByteBuffer.allocateDirect(length + 512);
            sendBuffer = b;
        }
        return b;
    }

    /** The peer's conditioner, following the node's current setting (under lock). */
    private @Nullable LinkConditioner conditioner() {
        int generation = node.conditionerGeneration();
        if (generation != conditionerGeneration) {
            conditionerGeneration = generation;
            LinkConditionerConfig config = node.linkConditionerConfig();
            LinkConditioner old = conditioner;
            if (config == null) {
                conditioner = null;
                if (old != null) {
                    old.poll(Double.POSITIVE_INFINITY, forward); // deliver what was in flight
                }
            } else if (old == null) {
                // one seeded stream per peer: the same seed and port give the same fates
                conditioner = new LinkConditioner(new LinkConditionerConfig(config.latencyMillis(), config.jitterMillis(),
                        config.lossProbability(), config.burstEnterProbability(), config.burstExitProbability(),
                        config.burstLossProbability(), config.duplicateProbability(), config.reorderProbability(),
                        config.reorderDelayMillis(), config.bandwidthBytesPerSecond(), config.queueLimitBytes(),
                        config.seed() * 31 + address.getPort()));
            } else {
                old.reconfigure(config);
            }
        }
        return conditioner;
    }

    /** Sends conditioned datagrams that are due (I/O thread, every loop turn while a conditioner is set). */
    void pollConditioner(double now) {
        lock.lock();
        try {
            LinkConditioner c = conditioner();
            if (c != null && c.nextDueTime() <= now) {
                c.poll(now, forward);
            }
        } finally {
            unlock();
        }
    }

    @Override
    public String toString() {
        return "Peer[" + address + ", " + state + (reason == null ? "" : ", " + reason) + "]";
    }
}
