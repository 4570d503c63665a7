package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.connection.AuthenticatedPeer;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.Session;
import io.reliableudp.message.RttSampleListener;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The driver of one peer, owned by its {@link Lane} for the peer's life: the peer's {@link Connection}
 * behind {@link #lock}, and what the lane's thread does with it (a datagram received, the tick, a
 * message-layer deadline, a write of queued messages, a resume of paused channels). It is also the
 * connection's event sink ({@link Connection.Events}): those events run under the lock, on whichever
 * thread holds it, and only note the change and queue the listener call on the lane.
 *
 * <p>Threads: every call into the connection (and so into the message layer) holds {@link #lock}, which also
 * completes the send futures that ended under it once released ({@link PeerLock}). The
 * lane's thread holds it for receive, tick, deadlines and writes; an application thread holds it to
 * queue a message through the peer's {@link PeerHandle}, and, in the {@code IMMEDIATE} send mode, to
 * write that message itself when the lane's loop is idle ({@link ImmediateLaneSchedule}); in {@code TICK}
 * its {@code flush} writes. The lock-free state beside it: {@link #state}, {@link #reason},
 * {@link #identity} (volatile, written under the lock, read by anyone), the paused channels
 * ({@link PeerPauses}: any thread, atomically), and the {@code IMMEDIATE} fields {@link #dirty}, {@link #nextDirty}, {@link #quietMark}
 * of {@link DirtyPeers}. The timer-heap entry this class extends and {@link #housekeeping} belong to the
 * lane's thread alone.
 *
 * <p>It knows its lane and its node only through the narrow interfaces {@link Lane} and {@link Node},
 * implemented above it ({@link IoLane}, {@link DatagramNode}), so dependencies run one way.
 */
final class PeerDriver extends PeerTimers.Entry implements Connection.Events, RttSampleListener {

    private static final System.Logger LOG = System.getLogger(PeerDriver.class.getName());

    /** What a peer's driver asks of its lane (implemented by {@link IoLane}). */
    interface Lane {
        /** Whether the caller runs on the lane's thread. */
        boolean inLoop();

        /** A new peer of the lane (any thread): its housekeeping starts at the lane's next tick. */
        void adopt(PeerDriver peer);

        /** After an I/O-thread call into the connection: the message layer's next deadline (seconds on the node's clock; +inf: none). */
        void deadline(PeerDriver peer, double next);

        /** A resume of paused channels is left for the lane's thread (any thread, not under the lock). */
        void resumeLeft(PeerDriver peer);

        /** Queues a listener call of the peer's connection (see {@link NodeEvents}). */
        void connected(PeerDriver peer);

        /** Queues a listener call of the peer's end. */
        void disconnected(PeerDriver peer, DisconnectReason why, String detail);

        /** Queues a delivered message (the copy is the listener's), with its age in ms (-1: no time-to-live). */
        void message(PeerDriver peer, int channel, int messageId, byte[] payload, int ageMillis);

        /** Queues an RTT sample. */
        void rttSample(PeerDriver peer, float rttMillis);

        /** Queues the listener call of a migration. */
        void migrated(PeerDriver peer, InetSocketAddress from, InetSocketAddress to);

        /**
         * Another lane read a datagram of this lane's peer from {@code from} ({@code newPath}: an address
         * not the peer's): a copy is handled in this lane's next turn.
         */
        void handOver(PeerDriver peer, InetSocketAddress from, byte[] data, int length, boolean newPath);

        /** Opens a dedicated socket for the peer's address, if the lane's port can; returns whether it did. */
        boolean dedicate(InetSocketAddress address);

        /** Closes the peer's dedicated socket. */
        void undedicate(InetSocketAddress address);
    }

    /** What a peer's driver asks of its node (implemented by {@link DatagramNode}). */
    interface Node {
        /** The datagram budget a connection to {@code remote} may grow to. */
        int pathBudget(InetSocketAddress remote);

        /** Tells a new connection to {@code remote} how large its datagrams may grow and how it searches ({@link PathBudget#discover}). */
        void discoverPath(Connection c, InetSocketAddress remote);

        /** The connection moved to the path to {@code remote}: its size search starts over ({@link PathBudget#restart}). */
        void restartPath(Connection c, InetSocketAddress remote, double now);

        /** The channels paused on the whole node, one bit each. */
        long pausedChannels();

        /** The peer's connection became connected (under its lock). */
        void connected(PeerDriver peer);

        /** The peer's connection ended (under its lock): it leaves the node. */
        void removed(PeerDriver peer, DisconnectReason why, String detail);

        /** Forgets a peer that cannot even disconnect. */
        void forget(PeerDriver peer);

        /** The peer (under its lock) moved from {@code from} to {@code to}: its table entry follows. */
        void moved(PeerDriver peer, InetSocketAddress from, InetSocketAddress to);
    }

    /**
     * Least time between two path validations a connection starts (seconds): an on-path attacker who
     * races a peer's datagrams to another address makes at most this many challenges a second.
     */
    static final double MIN_VALIDATION_INTERVAL = 0.1;

    private final Node node;
    private final Lane lane;
    /** The peer's address now: a migration changes it (written under the lock, read by anyone). */
    private volatile InetSocketAddress address;
    /** The last address the peer proved it receives at (the handshake's, or a validated new one); under lock. */
    private InetSocketAddress validated;
    /** When this connection may start its next path validation ({@link #MIN_VALIDATION_INTERVAL}); under lock. */
    private double nextValidationAt;
    /** When the peer last moved to another address (node clock, seconds; -inf: never). */
    private volatile double movedAt = Double.NEGATIVE_INFINITY;
    /** The connection id (salt) of the connection once known, for the table's matching; written under lock. */
    private volatile int salt;
    /** Client: the nonce of the handshake, which challenges and denials echo. */
    private volatile byte @Nullable [] clientNonce;
    private final NodeClock clock;
    private final NodeCounters counters;
    private final PeerTransmitter transmitter;
    /** The handle application threads hold: what listener calls and futures name. Set once, before the peer is shared. */
    private @Nullable Peer handle;
    /** Whether this peer has a dedicated socket ({@link NodeConfig#dedicatedSockets()}); under lock. */
    private boolean dedicated;
    /** Guards the connection and every field below marked so. */
    final PeerLock lock = new PeerLock();
    private final @Nullable CompletableFuture<Peer> connectFuture;
    private @Nullable Connection connection;
    private volatile PeerState state = PeerState.CONNECTING;
    private volatile @Nullable DisconnectReason reason;
    /** The verified identity, once read ({@link #identity()}). */
    private volatile @Nullable PeerIdentity identity;
    private volatile boolean serverSide;
    /** Since when every send was refused with a full queue (under lock); -1 while sends are accepted. */
    private double queueFullSince = -1;
    /** The receive pauses: the peer's own (any thread) with the node's, against what the session knows (under lock). */
    private final PeerPauses pauses;

    // IMMEDIATE send mode
    /** Set while the peer waits in its lane's {@link DirtyPeers}. */
    final AtomicBoolean dirty = new AtomicBoolean();
    /** The next peer in {@link DirtyPeers} (written before the push that publishes it). */
    @Nullable PeerDriver nextDirty;
    /**
     * Set when the peer was marked without waking the I/O thread ({@link DirtyPeers#markQuietly}): the
     * next ordinary mark must wake it after all. Cleared by the drain.
     */
    volatile boolean quietMark;
    /** When the connection's own timers are next due ({@link Connection#nextHousekeeping()}); lane's thread only. */
    private double housekeepingAt = Double.NEGATIVE_INFINITY;
    /** IMMEDIATE: this peer's place in its lane's housekeeping heap, keyed by {@link #housekeepingAt}; lane's thread only. */
    final Housekeeping housekeeping = new Housekeeping(this);

    PeerDriver(Node node, Lane lane, InetSocketAddress address, boolean client, NodeClock clock, NodeCounters counters,
               PeerTransmitter transmitter) {
        this.node = node;
        this.lane = lane;
        this.address = address;
        this.validated = address;
        this.clock = clock;
        this.counters = counters;
        this.transmitter = transmitter;
        this.connectFuture = client ? new CompletableFuture<>() : null;
        this.pauses = new PeerPauses(node::pausedChannels);
    }

    /** Binds the handle application threads get (once, before the peer is shared). */
    void handle(Peer peerHandle) {
        if (handle != null) {
            throw new IllegalStateException("the peer has a handle already");
        }
        handle = peerHandle;
    }

    /** The handle application threads and the listener see. */
    Peer handle() {
        Peer h = handle;
        if (h == null) {
            throw new IllegalStateException("peer without handle");
        }
        return h;
    }

    /** The transmit path the connection writes to. */
    PeerTransmitter transmitter() {
        return transmitter;
    }

    /** Gives the peer its connection (under lock) and hands it to its lane's housekeeping. */
    void attach(Connection c, boolean server) {
        this.connection = c;
        this.clientNonce = c.clientNonce();
        this.salt = c.salt();
        node.discoverPath(c, address);
        this.serverSide = server;
        if (server) {
            state = PeerState.CONNECTED;
        }
        listenToRtt(c);
        lane.adopt(this);
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
        lane.rttSample(this, rttMillis);
    }

    /** The peer's connection (under lock). */
    Connection connection() {
        Connection c = connection;
        if (c == null) {
            throw new IllegalStateException("peer without connection");
        }
        return c;
    }

    /** The lane this peer lives on. */
    Lane lane() {
        return lane;
    }

    /** The peer's address now (a migration changes it). */
    InetSocketAddress address() {
        return address;
    }

    /** When the peer last moved to another address (node clock, seconds; -inf: never): tests measure from it. */
    double movedAt() {
        return movedAt;
    }

    /** The connection id (salt) of the peer's connection, 0 while a client has none yet. */
    int salt() {
        return salt;
    }

    /** Sets the salt of an accepted peer before it joins the table. */
    void salt(int value) {
        salt = value;
    }

    /** Client: the handshake's nonce; null on a server. */
    byte @Nullable [] clientNonce() {
        return clientNonce;
    }

    PeerState state() {
        return state;
    }

    @Nullable DisconnectReason disconnectReason() {
        return reason;
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

    /** Releases {@link #lock}, completing the send futures that ended under it (see {@link PeerLock#unlock()}). */
    void unlock() {
        lock.unlock();
    }

    // ------------------------------------------------------------ the send queue (under lock)

    /** Under lock: a message was queued, so the queue is not stuck full. */
    void queueAccepted() {
        queueFullSince = -1;
    }

    /**
     * A peer that leaves a send queue full for a whole timeout period (every send refused, none
     * accepted in between) cannot keep up: it is disconnected with PROTOCOL_ERROR.
     */
    void queueStayedFull(double timeoutSeconds) {
        double now = clock.now();
        lock.lock();
        try {
            if (queueFullSince < 0) {
                queueFullSince = now;
            } else if (now - queueFullSince > timeoutSeconds) {
                connection().disconnect(DisconnectReason.PROTOCOL_ERROR,
                        "the peer cannot keep up: its send queue stayed full for " + (now - queueFullSince) + " s", true, now);
            }
        } finally {
            unlock();
        }
    }

    /** Writes what is queued now, on the caller's thread ({@code TICK}'s flush). */
    void flushNow() {
        lock.lock();
        try {
            connection().flush(clock.now());
        } finally {
            unlock();
        }
    }

    // ------------------------------------------------------------ the lane's thread

    /** The lane's thread, IMMEDIATE: writes what application threads queued (within the congestion limits), then reschedules. */
    void writeQueued(double now) {
        drive(now, true);
    }

    /** The lane's thread, IMMEDIATE: a deadline of the message layer came (resend, ack delay, pacing). */
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
        lane.deadline(this, next);
    }

    /**
     * The lane's tick: keepalive, timeout, handshake retries, and the message layer's update. In the
     * {@code IMMEDIATE} send mode only when {@link #housekeepingDue} (a connected peer with nothing due
     * costs the tick one comparison, not a lock and an update).
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
        lane.deadline(this, next);
    }

    /**
     * Whether the connection's own timers (keepalive, timeout, handshake, the session's housekeeping)
     * may be due at {@code now}. The stored time is the connection's answer at the last tick; events
     * since then only move the true time later, so a stale answer costs at most one update that finds
     * nothing to do, never a late keepalive or timeout. Lane's thread.
     */
    boolean housekeepingDue(double now) {
        return now >= housekeepingAt;
    }

    /** The connection's answer to {@link Connection#nextHousekeeping()} at the last tick. Lane's thread. */
    double housekeepingAt() {
        return housekeepingAt;
    }

    /**
     * A peer's entry in its lane's heap of housekeeping times ({@link ImmediateLaneSchedule}): a second
     * heap beside the deadline heap, so the entry is an object of its own (one per peer, made with it).
     */
    static final class Housekeeping extends PeerTimers.Entry {
        final PeerDriver peer;

        Housekeeping(PeerDriver peer) {
            this.peer = peer;
        }
    }

    /** A datagram from this peer's address (the lane's thread). */
    void receive(byte[] data, int offset, int length, double now) {
        receive(address, data, offset, length, now, false);
    }

    /**
     * A datagram of this peer from {@code from} (the lane's thread); {@code newPath} when that is not the
     * peer's address: the datagram names the peer's connection id. Such a datagram that the connection
     * accepts as authentic and newer than every one before moves the peer there (see {@link #moveTo}).
     */
    void receive(InetSocketAddress from, byte[] data, int offset, int length, double now, boolean newPath) {
        double next;
        lock.lock();
        try {
            Connection c = connection();
            syncPauses();
            if (newPath) {
                if (c.receiveFromNewPath(data, offset, length, now) && !from.equals(address)) {
                    moveTo(c, from, length, now);
                }
            } else {
                if (transmitter.limited()) {
                    transmitter.credit(3L * length); // the amplification limit: three times what it sent us
                }
                c.receive(data, offset, length, now);
            }
            int s = c.salt();
            if (s != salt) {
                salt = s;
            }
            next = c.nextDeadline();
        } finally {
            unlock();
        }
        lane.deadline(this, next);
    }

    /**
     * Under the lock: an authentic datagram, newer than any before, came from {@code to}. The peer's
     * traffic moves there at once (after a NAT rebinding the old address is dead), within three times
     * the bytes received from it until it answers a path challenge; back to the validated address, it
     * moves without one. Path validations start at most every {@link #MIN_VALIDATION_INTERVAL}.
     */
    private void moveTo(Connection c, InetSocketAddress to, int length, double now) {
        InetSocketAddress from = address;
        if (to.equals(validated)) {
            c.abandonPathValidation();
            relocate(from, to, Long.MAX_VALUE);
            return;
        }
        if (now < nextValidationAt) {
            return; // the datagram was taken; the connection stays where it is
        }
        nextValidationAt = now + MIN_VALIDATION_INTERVAL;
        relocate(from, to, 3L * length);
        c.validatePath(now);
        // the challenge's resends make the connection's housekeeping due earlier than the tick knows: visit it
        // at the next tick (this runs on the lane's thread, which alone touches the housekeeping time)
        housekeepingAt = Double.NEGATIVE_INFINITY;
        lane.adopt(this);
        LOG.log(Level.DEBUG, () -> "peer " + from + " sent from " + to + ": validating the new path");
    }

    private void relocate(InetSocketAddress from, InetSocketAddress to, long credit) {
        movedAt = clock.now();
        address = to;
        transmitter.moveTo(to, credit);
        node.moved(this, from, to);
    }

    /** The connection's new path answered its challenge (under the lock): the move is confirmed. */
    @Override
    public void onPathValidated() {
        InetSocketAddress from = validated;
        InetSocketAddress to = address;
        transmitter.unlimited();
        validated = to;
        if (!from.equals(to)) {
            counters.migrations.increment();
            lane.migrated(this, from, to);
            // a new path, whose datagram budget is not known yet: back to the base, and search again
            Connection c = connection;
            if (c != null) {
                node.restartPath(c, to, clock.now());
            }
            LOG.log(Level.DEBUG, () -> "peer migrated from " + from + " to " + to);
        }
    }

    /** The new path did not answer (under the lock): the connection goes back to the validated address. */
    @Override
    public void onPathValidationFailed() {
        counters.pathValidationsFailed.increment();
        InetSocketAddress from = address;
        relocate(from, validated, Long.MAX_VALUE);
        LOG.log(Level.DEBUG, () -> "path validation of " + from + " failed; back to " + validated);
    }

    /** Sends the conditioned datagrams that are due (the lane's thread, every turn while a conditioner is set). */
    void pollConditioner(double now) {
        lock.lock();
        try {
            transmitter.pollConditioner(now);
        } finally {
            unlock();
        }
    }

    /** A bug below us threw for this peer (the lane's thread): logged, and the peer disconnected (or forgotten). */
    void failed(String what, RuntimeException e) {
        LOG.log(Level.ERROR, "bug: " + what + " of " + address + " threw; disconnecting it", e);
        try {
            disconnect(DisconnectReason.PROTOCOL_ERROR, "internal error: " + e);
        } catch (RuntimeException again) {
            node.forget(this); // cannot even disconnect: forget it
        }
    }

    // ------------------------------------------------------------ any thread

    void disconnect(DisconnectReason why, String detail) {
        lock.lock();
        try {
            connection().disconnect(why, detail, true, clock.now());
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

    /** A snapshot of the peer's statistics. */
    PeerStats stats() {
        lock.lock();
        try {
            return Sessions.stats(state, connection());
        } finally {
            unlock();
        }
    }

    /** The verified identity of the peer, read once from the connection. */
    @Nullable PeerIdentity identity() {
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
            lock.release();
        }
    }

    /** Why this end's handshake failed (client side), under lock or after the end. */
    @Nullable HandshakeFailure handshakeFailure() {
        Connection c = connection;
        return c == null ? null : c.handshakeFailure();
    }

    // ------------------------------------------------------------ receive pause

    /** Pauses {@code bit}'s channel on this peer (any thread). */
    void pause(long bit) {
        if (pauses.pause(bit)) {
            pausesChanged();
        }
    }

    /** Resumes {@code bit}'s channel on this peer (any thread). */
    void resume(long bit) {
        if (pauses.resume(bit)) {
            pausesChanged();
        }
    }

    /**
     * This peer's or the node's paused channels changed (any thread): a pause takes effect now, under
     * the lock (the messages that arrive from now on are held); a resume is handed to the lane's thread,
     * which delivers the held messages, so that they reach the listener in order with the rest.
     */
    void pausesChanged() {
        boolean resumeLeft;
        lock.lock();
        try {
            resumeLeft = pauses.apply(session(), lane.inLoop());
        } finally {
            unlock();
        }
        if (resumeLeft) {
            lane.resumeLeft(this);
        }
    }

    /** The connection's message layer, if it has one yet (under the lock). */
    private @Nullable Session session() {
        Connection c = connection;
        return c == null ? null : c.session();
    }

    /** The lane's thread, under the lock: brings the session's pauses up to date when they changed (two reads when not). */
    private void syncPauses() {
        if (pauses.outOfDate()) {
            pauses.apply(session(), true);
        }
    }

    /**
     * At dispatch (the lane's thread, not under the lock): a message the session delivered before its
     * channel was paused, which the listener has not seen yet, goes back to the session, held before the
     * ones held since. Returns false (deliver it) when the channel is not paused or the session is gone.
     */
    boolean holdBack(int channel, int messageId, byte[] payload) {
        if (!pauses.paused(channel)) {
            return false;
        }
        lock.lock();
        try {
            syncPauses();
            if (!pauses.applied(channel)) {
                return false;
            }
            Session s = session();
            return s != null && s.holdAgain(channel, messageId, payload);
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
        lane.connected(this);
    }

    @Override
    public void onDisconnected(DisconnectReason why, String detail) {
        reason = why;
        state = PeerState.DISCONNECTED;
        node.removed(this, why, detail);
        lane.disconnected(this, why, detail);
    }

    @Override
    public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
        byte[] copy = new byte[length];
        System.arraycopy(data, offset, copy, 0, length);
        lane.message(this, channel, messageId, copy, connection().deliveredMessageAgeMillis());
    }

    @Override
    public void onDrop(DropReason why) {
        counters.drop(why);
    }

    @Override
    public String toString() {
        return "Peer[" + address + ", " + state + (reason == null ? "" : ", " + reason) + "]";
    }
}
