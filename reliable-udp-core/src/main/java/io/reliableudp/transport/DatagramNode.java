package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.connection.DisconnectReason;
import io.reliableudp.connection.DropReason;
import io.reliableudp.connection.Handshake;
import io.reliableudp.connection.HandshakeFailure;
import io.reliableudp.connection.HandshakeServer;
import io.reliableudp.connection.Protocol;
import io.reliableudp.connection.Session;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ReliableUdpNode} over one {@link DatagramChannel}.
 *
 * <p>Threads: one I/O thread (virtual by default, see {@link ReceiveThreadMode}) receives every
 * datagram, runs the send tick at {@link NodeConfig#sendRateHz()} (keepalives, timeouts, resends,
 * handshake retries) and calls the {@link NodeListener}. Application threads send, flush and
 * disconnect directly under the peer's lock; the socket is written by whichever thread produced the
 * datagram. Listener events caused by application threads (e.g. a local disconnect) are handed to
 * the I/O thread, so the listener sees the calls of one peer one at a time, in order.
 */
final class DatagramNode implements ReliableUdpNode {

    private static final System.Logger LOG = System.getLogger(DatagramNode.class.getName());
    /**
     * Handshake work budget: requests and responses that reach the cookie crypto, per second, with a
     * burst allowance. Beyond it they are dropped as {@code rate_limited}, so a flood of handshakes
     * cannot starve established connections of the I/O thread. Legitimate clients retry every 250 ms.
     */
    static final double HANDSHAKES_PER_SECOND = 10_000;
    static final double HANDSHAKE_BURST = 1_000;
    /** Larger than any UDP payload (65,507 over IPv4, 65,527 over IPv6): nothing is ever truncated. */
    static final int RECEIVE_BUFFER_BYTES = 65_536;

    private final NodeConfig config;
    private final NodeListener listener;
    private final DatagramChannel channel;
    private final DatagramSocket socket;
    private final InetSocketAddress localAddress;
    private final ConnectionSettings settings;
    private final HandshakeServer handshake;
    /** Thread-safe; shared by every node of the process (nonces, salts, cookie keys). */
    private static final SecureRandom RANDOM = new SecureRandom();
    private final SecureRandom random = RANDOM;
    private final long startNanos = System.nanoTime();
    private final double tickSeconds;
    private final int budget;
    private final Thread ioThread;

    private final ConcurrentHashMap<InetSocketAddress, NodePeer> peers = new ConcurrentHashMap<>();
    private final AtomicInteger serverConnections = new AtomicInteger();
    private final ConcurrentLinkedQueue<Event> crossThreadEvents = new ConcurrentLinkedQueue<>();
    private final EventBuffer ioEvents = new EventBuffer();

    private final LongAdder datagramsSent = new LongAdder();
    private final LongAdder datagramsReceived = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder connectionsOpened = new LongAdder();
    private final LongAdder listenerErrors = new LongAdder();
    private final LongAdder sendErrors = new LongAdder();
    private final AtomicLongArray drops = new AtomicLongArray(DropReason.values().length);
    private final AtomicLongArray handshakeFailures = new AtomicLongArray(HandshakeFailure.values().length);

    private volatile boolean open = true;
    private volatile boolean acceptingSends = true;
    private volatile @Nullable LinkConditionerConfig linkConditioner;
    private volatile int conditionerGeneration;

    // I/O thread only
    private final byte[] receiveBuffer = new byte[RECEIVE_BUFFER_BYTES];
    /** The receive buffer as a ByteBuffer, for the non-blocking reads of the busy-poll window. */
    private final ByteBuffer receiveView = ByteBuffer.wrap(receiveBuffer);
    private final long busyPollNanos;
    /** Whether the channel is in blocking mode (the socket adaptor's timed receive needs it). */
    private boolean channelBlocking = true;
    private volatile double handshakeRate = HANDSHAKES_PER_SECOND;
    private volatile double handshakeBurst = HANDSHAKE_BURST;
    private double handshakeTokens = HANDSHAKE_BURST;
    private double handshakeTokensAt;
    private final byte[] reply = new byte[Protocol.REQUEST_SIZE];
    private final ByteBuffer replyBuffer = ByteBuffer.allocateDirect(Protocol.REQUEST_SIZE);

    private DatagramNode(NodeConfig config, NodeListener listener, Session.Factory sessions) throws IOException {
        this.config = config;
        this.listener = listener;
        MessageConfig requested = config.message();
        int overhead = Protocol.frameOverhead(config.encrypted());
        MessageConfig message = requested.toBuilder()
                .lowerLayerOverhead(Math.max(overhead, requested.lowerLayerOverhead()))
                .sendRateHz(config.sendRateHz())
                .build();
        this.budget = message.datagramBudget();
        double keepAlive = seconds(config.keepAliveInterval());
        this.settings = new ConnectionSettings(config.protocolId(), config.preSharedKey(), keepAlive,
                seconds(config.timeout()), seconds(config.connectTimeout()), Math.min(keepAlive, 0.25), message, sessions);
        this.tickSeconds = 1.0 / config.sendRateHz();
        this.busyPollNanos = config.receiveBusyPoll().toNanos();
        this.handshake = new HandshakeServer(settings, random, new HandshakeServer.Reporter() {
            @Override
            public void drop(DropReason reason) {
                countDrop(reason);
            }

            @Override
            public void failure(HandshakeFailure failure) {
                countFailure(failure);
            }
        });
        InetSocketAddress bind = config.bindAddress();
        ProtocolFamily family = bind.getAddress() == null || bind.getAddress().isAnyLocalAddress() ? null
                : bind.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6
                : bind.getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET : null;
        this.channel = family == null ? DatagramChannel.open() : DatagramChannel.open(family);
        try {
            setBuffer(StandardSocketOptions.SO_RCVBUF, "socketReceiveBufferSize", config.socketReceiveBufferSize());
            setBuffer(StandardSocketOptions.SO_SNDBUF, "socketSendBufferSize", config.socketSendBufferSize());
            channel.bind(bind);
            this.localAddress = (InetSocketAddress) channel.getLocalAddress();
            this.socket = channel.socket();
            socket.setSoTimeout(tickMillis());
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        Runnable loop = this::ioLoop;
        String name = "reliable-udp-io-" + localAddress.getPort();
        this.ioThread = config.receiveThreadMode() == ReceiveThreadMode.VIRTUAL
                ? Thread.ofVirtual().name(name).unstarted(loop)
                : Thread.ofPlatform().name(name).daemon(true).unstarted(loop);
    }

    static ReliableUdpNode start(NodeConfig config, NodeListener listener) throws IOException {
        return start(config, listener, Sessions.DEFAULT);
    }

    /** Starts a node whose connections use {@code sessions} as their message layer (tests use doubles). */
    static DatagramNode start(NodeConfig config, NodeListener listener, Session.Factory sessions) throws IOException {
        DatagramNode node = new DatagramNode(config, listener, sessions);
        if (config.linkConditioner() != null) {
            node.setLinkConditioner(config.linkConditioner());
        }
        node.ioThread.start();
        LOG.log(Level.DEBUG, () -> "reliable-udp node started on " + node.localAddress + " with " + config);
        return node;
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private void setBuffer(java.net.SocketOption<Integer> option, String field, int requested) throws IOException {
        if (requested <= 0) {
            return;
        }
        channel.setOption(option, requested);
        int granted = channel.getOption(option);
        // Linux reports twice the usable size it granted (bookkeeping overhead): a cap shows as less than asked
        if (granted < requested) {
            LOG.log(Level.WARNING, "{0}: asked the kernel for {1} bytes, got {2} (raise net.core.{3}_max to allow more)",
                    field, requested, granted, option == StandardSocketOptions.SO_RCVBUF ? "rmem" : "wmem");
        }
    }

    double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private long nowMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    boolean acceptsSends() {
        return acceptingSends;
    }

    ConnectionSettings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ I/O loop

    private void ioLoop() {
        try {
            receiveLoop();
        } catch (Throwable t) {
            // an Error (or a bug) killed the loop: nothing would be received or ticked any more, so
            // close the node for real (pending sends fail with CLOSED, peers are told) instead of hanging
            LOG.log(Level.ERROR, "I/O thread of " + localAddress + " died; closing the node", t);
            if (open) {
                close();
                dispatchEvents();
            }
            if (t instanceof VirtualMachineError vme) {
                throw vme;
            }
        }
    }

    private void receiveLoop() {
        DatagramPacket packet = new DatagramPacket(receiveBuffer, receiveBuffer.length);
        double nextTick = now() + tickSeconds;
        // the channel hands back the same InetAddress while the sender stays the same: reuse the socket address
        java.net.InetAddress lastAddress = null;
        int lastPort = -1;
        InetSocketAddress lastFrom = null;
        // end of the busy-poll window opened by the last datagram (meaningful only while spinning)
        long spinUntil = 0;
        boolean spinning = false;
        while (open) {
            try {
                InetSocketAddress polled = spinning ? pollUntil(spinUntil) : null;
                if (polled != null) {
                    spinUntil = System.nanoTime() + busyPollNanos; // traffic goes on: keep the window open
                    onDatagram(polled, receiveView.position());
                } else {
                    spinning = false; // no window, or it closed empty: block (no CPU) until the next datagram
                    if (!channelBlocking) {
                        channel.configureBlocking(true);
                        channelBlocking = true;
                    }
                    packet.setData(receiveBuffer, 0, receiveBuffer.length);
                    socket.receive(packet);
                    java.net.InetAddress address = packet.getAddress();
                    int port = packet.getPort();
                    if (address != lastAddress || port != lastPort || lastFrom == null) {
                        lastAddress = address;
                        lastPort = port;
                        lastFrom = new InetSocketAddress(address, port);
                    }
                    if (busyPollNanos > 0) {
                        spinUntil = System.nanoTime() + busyPollNanos;
                        spinning = true;
                    }
                    onDatagram(lastFrom, packet.getLength());
                }
            } catch (SocketTimeoutException e) {
                // no datagram within a tick: fall through to the tick
            } catch (ClosedChannelException | java.net.SocketException e) {
                if (open) {
                    // the socket broke under us: end every connection properly rather than go deaf
                    LOG.log(Level.ERROR, "receive loop of " + localAddress + " stopped: socket failed; closing the node", e);
                    close();
                    dispatchEvents();
                }
                break;
            } catch (IOException e) {
                LOG.log(Level.WARNING, "receive failed on " + localAddress + ": " + e);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "bug: datagram handling threw; datagram dropped", e);
                countDrop(DropReason.MALFORMED);
            }
            double now = now();
            if (linkConditioner != null) {
                for (NodePeer peer : peers.values()) {
                    peer.pollConditioner(now);
                }
            }
            if (now >= nextTick) {
                tick(now);
                nextTick += tickSeconds;
                if (nextTick <= now) {
                    nextTick = now + tickSeconds; // fell behind: skip the missed ticks rather than run them back to back
                }
            }
            dispatchEvents();
        }
    }

    /**
     * Reads the socket without blocking until a datagram comes or {@code until} (System.nanoTime) passes;
     * the datagram lands in {@link #receiveBuffer} ({@link #receiveView}'s position is its length).
     */
    private @Nullable InetSocketAddress pollUntil(long until) throws IOException {
        if (channelBlocking) {
            channel.configureBlocking(false);
            channelBlocking = false;
        }
        do {
            receiveView.clear();
            java.net.SocketAddress from = channel.receive(receiveView);
            if (from != null) {
                return (InetSocketAddress) from;
            }
            Thread.yield(); // not onSpinWait: a peer thread woken on this core (or a virtual thread waiting for this carrier) must not wait out the window
        } while (System.nanoTime() - until < 0 && open);
        return null;
    }

    private void tick(double now) {
        for (NodePeer peer : peers.values()) {
            try {
                peer.tick(now);
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "bug: update of " + peer.address() + " threw; disconnecting it", e);
                try {
                    peer.disconnect(DisconnectReason.PROTOCOL_ERROR, "internal error: " + e);
                } catch (RuntimeException again) {
                    peers.remove(peer.address(), peer); // cannot even disconnect: forget it
                }
            }
        }
    }

    private void onDatagram(InetSocketAddress from, int length) {
        datagramsReceived.increment();
        bytesReceived.add(length);
        if (length > budget) {
            countDrop(DropReason.TOO_LARGE);
            return;
        }
        if (length == 0) {
            countDrop(DropReason.MALFORMED);
            return;
        }
        byte type = receiveBuffer[0];
        double now = now();
        if ((type == Protocol.REQUEST || type == Protocol.RESPONSE) && !handshakeBudget(now)) {
            countDrop(DropReason.RATE_LIMITED);
            return;
        }
        if (type == Protocol.REQUEST) {
            int n = handshake.onRequest(from, receiveBuffer, 0, length, nowMillis(), config.acceptIncoming(),
                    serverConnections.get() < config.maxConnections(), reply);
            if (n > 0) {
                transmit(replyBuffer, from, reply, 0, n);
            }
            return;
        }
        if (type == Protocol.RESPONSE) {
            onResponse(from, length, now);
            return;
        }
        NodePeer peer = peers.get(from);
        if (peer == null) {
            countDrop(type >= Protocol.CHALLENGE && type <= Protocol.DISCONNECT ? DropReason.UNKNOWN_SENDER : DropReason.MALFORMED);
            return;
        }
        peer.receive(receiveBuffer, 0, length, now);
    }

    /** Changes the handshake budget (tests use a small one to make a flood deterministic). */
    void handshakeBudget(double perSecond, double burst) {
        this.handshakeRate = perSecond;
        this.handshakeBurst = burst;
    }

    /** Token bucket of {@link #HANDSHAKES_PER_SECOND}; I/O thread only. */
    private boolean handshakeBudget(double now) {
        handshakeTokens = Math.min(handshakeBurst, handshakeTokens + (now - handshakeTokensAt) * handshakeRate);
        handshakeTokensAt = now;
        if (handshakeTokens < 1) {
            return false;
        }
        handshakeTokens -= 1;
        return true;
    }

    private void onResponse(InetSocketAddress from, int length, double now) {
        HandshakeServer.Verified verified = handshake.onResponse(from, receiveBuffer, 0, length, nowMillis(), reply);
        if (verified == null) {
            int n = handshake.lastReplyLength();
            if (n > 0) {
                transmit(replyBuffer, from, reply, 0, n);
            }
            return;
        }
        Handshake.Response response = verified.response();
        NodePeer existing = peers.get(from);
        if (existing != null) {
            existing.lock.lock();
            try {
                Connection c = existing.connection();
                if (c.state() != Connection.State.DISCONNECTED) {
                    if (c.isClient()) {
                        countDrop(DropReason.UNEXPECTED); // we are connecting to that address ourselves
                        return;
                    }
                    if (c.salt() == response.salt()) {
                        c.onRepeatedResponse(now);
                        return;
                    }
                    if (c.cookieTime() >= verified.cookieTime()) {
                        countDrop(DropReason.STALE_CONNECTION);
                        return;
                    }
                    // a newer handshake from the same address: the peer restarted
                    c.disconnect(DisconnectReason.CLOSED_BY_PEER, "the peer reconnected from the same address", false, now);
                }
            } finally {
                existing.lock.unlock();
            }
        }
        if (!config.acceptIncoming() || serverConnections.get() >= config.maxConnections()) {
            HandshakeFailure failure = config.acceptIncoming() ? HandshakeFailure.SERVER_FULL : HandshakeFailure.NOT_ACCEPTING;
            countFailure(failure);
            int n = Handshake.encodeDenied(response.clientNonce(),
                    config.acceptIncoming() ? Protocol.DENY_SERVER_FULL : Protocol.DENY_NOT_ACCEPTING, reply);
            transmit(replyBuffer, from, reply, 0, n);
            return;
        }
        NodePeer peer = new NodePeer(this, from, false);
        peer.lock.lock();
        try {
            peers.put(from, peer);
            serverConnections.incrementAndGet();
            connectionsOpened.increment();
            peer.attach(Connection.server(settings, peer, peer, response, verified.keys(), verified.cookieTime(), now), true);
            post(Event.connected(peer));
        } finally {
            peer.lock.unlock();
        }
    }

    // ------------------------------------------------------------------ events

    /** Queues a listener call: on the I/O thread in order, from other threads for the I/O thread. */
    void post(Event event) {
        if (Thread.currentThread() == ioThread) {
            ioEvents.add(event.kind, event.peer, event.channel, event.messageId, event.payload, event.reason, event.detail);
        } else {
            crossThreadEvents.add(event);
        }
    }

    /** Queues a delivered message (the message layer delivers only on the I/O thread): no event object. */
    void postMessage(NodePeer peer, int channel, int messageId, byte[] payload) {
        if (Thread.currentThread() == ioThread) {
            ioEvents.add(Event.Kind.MESSAGE, peer, channel, messageId, payload, null, "");
        } else {
            crossThreadEvents.add(Event.message(peer, channel, messageId, payload));
        }
    }

    /**
     * Queues an RTT sample (taken under the peer's lock while receiving, so on the I/O thread): the
     * sample travels in the message id slot as float bits, no event object.
     */
    void postRttSample(NodePeer peer, float rttMillis) {
        int bits = Float.floatToRawIntBits(rttMillis);
        if (Thread.currentThread() == ioThread) {
            ioEvents.add(Event.Kind.RTT_SAMPLE, peer, -1, bits, Event.NONE, null, "");
        } else {
            crossThreadEvents.add(Event.rttSample(peer, bits));
        }
    }

    private void dispatchEvents() {
        dispatchIoEvents();
        Event e;
        while ((e = crossThreadEvents.poll()) != null) {
            dispatch(e.kind, e.peer, e.channel, e.messageId, e.payload, e.reason, e.detail);
            dispatchIoEvents();
        }
    }

    private void dispatchIoEvents() {
        EventBuffer b = ioEvents;
        // index loop: a listener may post more events while we dispatch
        for (int i = 0; i < b.size; i++) {
            dispatch(b.kinds[i], b.peers[i], b.channels[i], b.ids[i], b.payloads[i], b.reasons[i], b.details[i]);
        }
        b.clear();
    }

    private void dispatch(Event.Kind kind, NodePeer peer, int channel, int messageId, byte[] payload,
                          @Nullable DisconnectReason reason, String detail) {
        try {
            switch (kind) {
                case MESSAGE -> listener.onMessage(peer, channel, messageId, payload);
                case RTT_SAMPLE -> listener.onRttSample(peer, Float.intBitsToFloat(messageId));
                case CONNECTED -> {
                    listener.onConnected(peer);
                    CompletableFuture<Peer> f = peer.connectFuture();
                    if (f != null) {
                        f.complete(peer);
                    }
                }
                case DISCONNECTED -> {
                    CompletableFuture<Peer> f = peer.connectFuture();
                    DisconnectReason why = reason == null ? DisconnectReason.CLOSED_LOCALLY : reason;
                    if (f != null && !f.isDone()) {
                        f.completeExceptionally(new ConnectionFailedException(why,
                                "connection to " + peer.address() + " failed: " + why + " (" + detail + ")"));
                    }
                    if (f == null || f.isDone() && !f.isCompletedExceptionally()) {
                        listener.onDisconnected(peer, why);
                    }
                }
            }
        } catch (RuntimeException | Error ex) {
            if (ex instanceof VirtualMachineError vme) {
                throw vme;
            }
            listenerErrors.increment();
            LOG.log(Level.WARNING, "listener threw on " + kind + " of " + peer.address() + "; ignored", ex);
        }
    }

    /** Listener calls queued by the I/O thread, in parallel arrays: no object per message. I/O thread only. */
    private static final class EventBuffer {
        Event.Kind[] kinds = new Event.Kind[64];
        NodePeer[] peers = new NodePeer[64];
        int[] channels = new int[64];
        int[] ids = new int[64];
        byte[][] payloads = new byte[64][];
        @Nullable DisconnectReason[] reasons = new DisconnectReason[64];
        String[] details = new String[64];
        int size;

        void add(Event.Kind kind, NodePeer peer, int channel, int id, byte[] payload, @Nullable DisconnectReason reason, String detail) {
            if (size == kinds.length) {
                int n = size * 2;
                kinds = java.util.Arrays.copyOf(kinds, n);
                peers = java.util.Arrays.copyOf(peers, n);
                channels = java.util.Arrays.copyOf(channels, n);
                ids = java.util.Arrays.copyOf(ids, n);
                payloads = java.util.Arrays.copyOf(payloads, n);
                reasons = java.util.Arrays.copyOf(reasons, n);
                details = java.util.Arrays.copyOf(details, n);
            }
            kinds[size] = kind;
            peers[size] = peer;
            channels[size] = channel;
            ids[size] = id;
            payloads[size] = payload;
            reasons[size] = reason;
            details[size] = detail;
            size++;
        }

        /** Drops the references (payloads belong to the listener now). */
        void clear() {
            java.util.Arrays.fill(peers, 0, size, null);
            java.util.Arrays.fill(payloads, 0, size, null);
            java.util.Arrays.fill(reasons, 0, size, null);
            java.util.Arrays.fill(details, 0, size, null);
            size = 0;
        }
    }

    /** A listener call waiting to be made. */
    static final class Event {
        enum Kind { MESSAGE, CONNECTED, DISCONNECTED, RTT_SAMPLE }

        final Kind kind;
        final NodePeer peer;
        final int channel;
        final int messageId;
        final byte[] payload;
        final @Nullable DisconnectReason reason;
        final String detail;

        private Event(Kind kind, NodePeer peer, int channel, int messageId, byte[] payload,
                      @Nullable DisconnectReason reason, String detail) {
            this.kind = kind;
            this.peer = peer;
            this.channel = channel;
            this.messageId = messageId;
            this.payload = payload;
            this.reason = reason;
            this.detail = detail;
        }

        static final byte[] NONE = new byte[0];

        static Event message(NodePeer peer, int channel, int messageId, byte[] payload) {
            return new Event(Kind.MESSAGE, peer, channel, messageId, payload, null, "");
        }

        static Event connected(NodePeer peer) {
            return new Event(Kind.CONNECTED, peer, -1, -1, NONE, null, "");
        }

        static Event rttSample(NodePeer peer, int rttBits) {
            return new Event(Kind.RTT_SAMPLE, peer, -1, rttBits, NONE, null, "");
        }

        static Event disconnected(NodePeer peer, DisconnectReason reason, String detail) {
            return new Event(Kind.DISCONNECTED, peer, -1, -1, NONE, reason, detail);
        }
    }

    // ------------------------------------------------------------------ output

    /** Writes one datagram; {@code buffer} is owned by the caller's peer (under its lock) or the I/O thread. */
    void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length) {
        buffer.clear();
        buffer.put(data, offset, length);
        buffer.flip();
        try {
            int n = channel.send(buffer, to);
            if (n > 0) {
                datagramsSent.increment();
                bytesSent.add(n);
            } else {
                sendErrors.increment(); // socket send buffer full: the datagram is lost like on the wire
            }
        } catch (ClosedChannelException e) {
            // closing: nothing goes out any more
        } catch (IOException e) {
            sendErrors.increment();
            LOG.log(Level.DEBUG, () -> "send to " + to + " failed: " + e);
        }
    }

    void countDrop(DropReason reason) {
        drops.incrementAndGet(reason.ordinal());
        LOG.log(Level.TRACE, () -> "dropped a datagram: " + reason.key());
    }

    void countFailure(HandshakeFailure failure) {
        handshakeFailures.incrementAndGet(failure.ordinal());
        LOG.log(Level.DEBUG, () -> "handshake failed: " + failure.key());
    }

    void removed(NodePeer peer, DisconnectReason why, String detail) {
        if (peers.remove(peer.address(), peer) && peer.serverSide()) {
            serverConnections.decrementAndGet();
        }
        if (!peer.serverSide() && why != DisconnectReason.CLOSED_LOCALLY) {
            switch (why) {
                case DENIED, SERVER_FULL -> countFailure(HandshakeFailure.DENIED_BY_PEER);
                case CONNECT_TIMEOUT -> countFailure(HandshakeFailure.CONNECT_TIMEOUT);
                default -> {
                    // a disconnect after the handshake is not a handshake failure
                }
            }
        }
        LOG.log(Level.DEBUG, () -> "peer " + peer.address() + " disconnected: " + why + " (" + detail + ")");
    }

    PeerStats statsOf(NodePeer peer, Connection c) {
        return Sessions.stats(peer.state(), c);
    }

    // ------------------------------------------------------------------ public API

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public NodeConfig config() {
        return config;
    }

    @Override
    public CompletableFuture<Peer> connect(InetSocketAddress remote) {
        if (!open || !acceptingSends) {
            return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.CLOSED_LOCALLY, "node is closed"));
        }
        if (remote.isUnresolved()) {
            return CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.DENIED, "unresolved address " + remote));
        }
        NodePeer peer = new NodePeer(this, remote, true);
        peer.lock.lock();
        try {
            NodePeer existing = peers.putIfAbsent(remote, peer);
            if (existing != null) {
                CompletableFuture<Peer> f = existing.connectFuture();
                if (f != null) {
                    return f;
                }
                return existing.state() == PeerState.CONNECTED ? CompletableFuture.completedFuture(existing)
                        : CompletableFuture.failedFuture(new ConnectionFailedException(DisconnectReason.DENIED,
                        remote + " is already connected to this node as a client"));
            }
            byte[] nonce = new byte[Protocol.NONCE_BYTES];
            random.nextBytes(nonce);
            try {
                peer.attach(Connection.client(settings, peer, peer, nonce, now()), false);
            } catch (RuntimeException e) {
                peers.remove(remote, peer);
                return CompletableFuture.failedFuture(e);
            }
        } finally {
            peer.lock.unlock();
        }
        CompletableFuture<Peer> f = peer.connectFuture();
        if (f == null) {
            throw new IllegalStateException("client peer without future");
        }
        return f;
    }

    @Override
    public @Nullable Peer peer(InetSocketAddress address) {
        return peers.get(address);
    }

    @Override
    public Collection<Peer> peers() {
        return List.copyOf(peers.values());
    }

    @Override
    public NodeStats stats() {
        Map<String, Long> dropped = new LinkedHashMap<>();
        for (DropReason r : DropReason.values()) {
            long v = drops.get(r.ordinal());
            if (v > 0) {
                dropped.put(r.key(), v);
            }
        }
        Map<String, Long> failures = new LinkedHashMap<>();
        for (HandshakeFailure f : HandshakeFailure.values()) {
            long v = handshakeFailures.get(f.ordinal());
            if (v > 0) {
                failures.put(f.key(), v);
            }
        }
        return new NodeStats(datagramsSent.sum(), datagramsReceived.sum(), bytesSent.sum(), bytesReceived.sum(),
                Map.copyOf(dropped), Map.copyOf(failures), peers.size(), connectionsOpened.sum(), listenerErrors.sum());
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void setLinkConditioner(@Nullable LinkConditionerConfig config) {
        this.linkConditioner = config;
        conditionerGeneration++;
        try {
            // a conditioner delays datagrams: poll it at least every millisecond
            socket.setSoTimeout(config == null ? tickMillis() : 1);
        } catch (java.net.SocketException e) {
            LOG.log(Level.WARNING, "could not shorten the receive timeout for the link conditioner: " + e);
        }
    }

    int conditionerGeneration() {
        return conditionerGeneration;
    }

    @Nullable LinkConditionerConfig linkConditionerConfig() {
        return linkConditioner;
    }

    private int tickMillis() {
        return (int) Math.max(1, Math.round(tickSeconds * 1000));
    }

    @Override
    public CompletableFuture<Void> shutdown(Duration drainTimeout) {
        acceptingSends = false;
        CompletableFuture<Void> done = new CompletableFuture<>();
        long deadline = System.nanoTime() + drainTimeout.toNanos();
        Thread.ofVirtual().name("reliable-udp-shutdown-" + localAddress.getPort()).start(() -> {
            try {
                while (System.nanoTime() - deadline < 0 && open && anyPendingReliable()) {
                    Thread.sleep(5);
                }
                close();
                done.complete(null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                done.complete(null);
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private boolean anyPendingReliable() {
        for (NodePeer p : peers.values()) {
            if (p.hasPendingReliable()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        acceptingSends = false;
        if (!open) {
            return;
        }
        for (NodePeer p : peers.values()) {
            p.disconnect(DisconnectReason.CLOSED_LOCALLY, "node closed");
        }
        open = false;
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing the socket of " + localAddress + " failed: " + e);
        }
        if (Thread.currentThread() != ioThread) {
            try {
                ioThread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Event e;
            while ((e = crossThreadEvents.poll()) != null) {
                dispatch(e.kind, e.peer, e.channel, e.messageId, e.payload, e.reason, e.detail);
            }
        }
        LOG.log(Level.DEBUG, () -> "reliable-udp node on " + localAddress + " closed");
    }

    /**
     * Stops like a crashed process: closes the socket without telling any peer. Peers see a timeout.
     * For tests of timeout and restart handling.
     */
    void abort() {
        acceptingSends = false;
        open = false;
        try {
            channel.close();
            ioThread.join(5_000);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "abort: closing failed: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "ReliableUdpNode[" + localAddress + ", peers=" + peers.size() + (open ? "" : ", closed") + "]";
    }
}
