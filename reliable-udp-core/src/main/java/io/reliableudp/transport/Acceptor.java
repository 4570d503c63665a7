package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.HandshakeServer;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The server side of connecting, on the I/O thread, beside {@link HandshakeServer}: a token bucket
 * over the handshake work (requests and responses), the answers to requests (cookie challenges and
 * denials, sent straight back to the source address), and turning a verified response into a peer
 * (or a repeat confirmation, a stale drop, a restart of the same address, a refusal when full).
 * With several I/O threads ({@link NodeConfig#ioThreads()}) they take turns ({@link #onHandshake} is
 * synchronized): one token bucket and one cookie key per node, and handshakes are a small share of the
 * work. A datagram without a handshake's shape (its exact length and the magic) is dropped as
 * malformed before it takes a token, so a flood of garbage cannot spend the budget real clients need.
 * Before the global bucket, each source address has a budget of its own ({@link SourceBudget}), so
 * that one source cannot spend the global one.
 */
final class Acceptor {

    /**
     * Handshake work budget: requests and responses that reach the cookie crypto, per second, with a
     * burst allowance. Beyond it they are dropped as {@code rate_limited}, so a flood of handshakes
     * cannot starve established connections of the I/O thread. Legitimate clients retry every 250 ms.
     * Per node (shared by its I/O threads): N nodes on one port (SO_REUSEPORT) have N budgets. The burst is one second of the rate:
     * 5,000 clients connecting at once (a restart of a server they all use) cost 10,000 tokens, a
     * request and a response each, and pass the bucket at once; with a burst of 1,000, the retries
     * come back in waves 250 ms apart that each find only what refilled since (1,000 tokens, 500
     * clients), so the last of 5,000 would wait about ten waves, half of their 5 s connect timeout.
     */
    static final double HANDSHAKES_PER_SECOND = 10_000;
    static final double HANDSHAKE_BURST = 10_000;

    /** What the acceptor asks of its node (implemented by {@link DatagramNode}). */
    interface Node {
        /**
         * A verified response that makes a new connection (not a repeat, not refused): the node adds the
         * peer to {@code lane} (whose socket read it) and to its table, or drops it when the address
         * got a live peer meanwhile.
         */
        void admit(IoLane lane, InetSocketAddress from, HandshakeServer.Verified verified, double now);
    }

    private final Node node;
    private final NodeConfig config;
    private final NodeCounters counters;
    private final NodeClock clock;
    private final HandshakeServer handshake;
    private final PeerTable peers;
    private final byte[] reply = new byte[HandshakeServer.REPLY_BYTES];
    private final ByteBuffer replyBuffer = ByteBuffer.allocateDirect(HandshakeServer.REPLY_BYTES);
    private volatile double rate = HANDSHAKES_PER_SECOND;
    private volatile double burst = HANDSHAKE_BURST;
    private double tokens = HANDSHAKE_BURST;
    private double tokensAt;
    private final SourceBudget sources;

    Acceptor(Node node, NodeConfig config, NodeCounters counters, NodeClock clock, HandshakeServer handshake, PeerTable peers,
             java.util.random.RandomGenerator random) {
        this.node = node;
        this.config = config;
        this.counters = counters;
        this.clock = clock;
        this.handshake = handshake;
        this.peers = peers;
        this.sources = new SourceBudget(random);
    }

    /**
     * Handles a request or a response from {@code from} in {@code data[0..length)}, read by
     * {@code lane}'s socket (answers leave by it; a new peer belongs to it).
     */
    synchronized void onHandshake(IoLane lane, InetSocketAddress from, byte[] data, int length, double now) {
        if (!HandshakeServer.hasHandshakeShape(data, 0, length)) {
            counters.drop(DropReason.MALFORMED); // before the token bucket and any crypto
            return;
        }
        if (!sources.take(from.getAddress(), now)) {
            counters.drop(DropReason.SOURCE_RATE_LIMITED); // before the global bucket: it costs the others nothing
            return;
        }
        if (!takeToken(now)) {
            counters.drop(DropReason.RATE_LIMITED);
            return;
        }
        if (HandshakeServer.isRequest(data[0])) {
            int n = handshake.onRequest(from, data, 0, length, clock.nowMillis(), config.acceptIncoming(),
                    peers.serverConnections() < config.maxConnections(), reply);
            if (n > 0) {
                lane.transmit(replyBuffer, from, reply, 0, n);
            }
        } else {
            onResponse(lane, from, data, length, now);
        }
    }

    /** Changes the handshake budget (tests use a small one to make a flood deterministic). */
    void budget(double perSecond, double burstAllowance) {
        this.rate = perSecond;
        this.burst = burstAllowance;
    }

    /** Changes the per-source handshake budget; {@code loopbackToo} limits loopback sources as well (tests). */
    synchronized void sourceBudget(double perSecond, double burstAllowance, boolean loopbackToo) {
        sources.budget(perSecond, burstAllowance, loopbackToo);
    }

    /** The bucket {@code address} shares with other addresses of the per-source budget (tests). */
    synchronized int sourceSlot(java.net.InetAddress address) {
        return sources.slot(address);
    }

    /** Token bucket of {@link #HANDSHAKES_PER_SECOND}. */
    private boolean takeToken(double now) {
        tokens = Math.min(burst, tokens + (now - tokensAt) * rate);
        tokensAt = now;
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }

    private void onResponse(IoLane lane, InetSocketAddress from, byte[] data, int length, double now) {
        HandshakeServer.Verified verified = handshake.onResponse(from, data, 0, length, clock.nowMillis(), reply);
        if (verified == null) {
            int n = handshake.lastReplyLength();
            if (n > 0) {
                lane.transmit(replyBuffer, from, reply, 0, n);
            }
            return;
        }
        PeerDriver[] existing = peers.at(from);
        if (verified.repeat()) {
            // its cookie made a connection already: it confirms that one again (our accept was lost), or is a replay
            for (PeerDriver p : existing) {
                p.lock.lock();
                try {
                    Connection c = p.connection();
                    if (!c.isClient() && c.state() != Connection.State.DISCONNECTED && c.salt() == verified.salt()) {
                        c.onRepeatedResponse(now);
                        return;
                    }
                } finally {
                    p.lock.release();
                }
            }
            handshake.replayed();
            return;
        }
        for (PeerDriver p : existing) {
            p.lock.lock();
            try {
                Connection c = p.connection();
                if (c.state() != Connection.State.DISCONNECTED) {
                    if (c.isClient()) {
                        counters.drop(DropReason.UNEXPECTED); // we are connecting to that address ourselves
                        return;
                    }
                    if (c.salt() == verified.salt()) {
                        c.onRepeatedResponse(now);
                        return;
                    }
                    if (!verified.another()) {
                        if (c.cookieTime() >= verified.cookieTime()) {
                            counters.drop(DropReason.STALE_CONNECTION);
                            return;
                        }
                        // a newer handshake from the same address, not flagged as another connection: the peer restarted
                        c.disconnect(DisconnectReason.CLOSED_BY_PEER, "the peer reconnected from the same address", false, now);
                    }
                }
            } finally {
                p.unlock();
            }
        }
        if (!config.acceptIncoming() || peers.serverConnections() >= config.maxConnections()) {
            int n = handshake.refuse(verified, config.acceptIncoming(), reply);
            lane.transmit(replyBuffer, from, reply, 0, n);
            return;
        }
        node.admit(lane, from, verified, now);
    }
}
