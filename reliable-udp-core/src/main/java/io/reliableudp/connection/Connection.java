package io.reliableudp.connection;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.internal.WireCodec;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.SendCompletion;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One connection, client or server side: its life cycle (requesting, responding, connected,
 * disconnected), what each datagram that arrives does to it, and its disconnect. Composes the parts
 * that do the work, none of which knows the connection: the client handshake's packets and keys
 * ({@link ClientHandshake}) and timers ({@link HandshakeSchedule}); the frames' sealing, opening and
 * replay window ({@link FrameCodec}); the datagram buffer, clock and send counts ({@link FrameSender});
 * keepalives, probes and timeout ({@link Liveness}); the datagram size and its probes
 * ({@link SizeProbe}); and the {@link Session} (the message layer) it carries ({@link SessionPort}).
 * No sockets: datagrams come in through {@link #receive} and go out through the {@link Transmitter}.
 *
 * <p>One datagram buffer per connection: the session composes its packets in it behind room for this
 * layer's frame header, and the frame header is then written in front of the packet and, in encrypted
 * mode, the packet sealed in place, so the packet's bytes are not copied here ({@link FrameSender}).
 *
 * <p>Not thread-safe: the owner serialises every call (the transport holds a per-peer lock).
 * Time is in seconds, from the owner's monotonic clock.
 *
 * <p>The connection layer's contract with the transport; not user API.
 */
public final class Connection {

    /** Puts a datagram on the wire to this connection's address. */
    @FunctionalInterface
    public interface Transmitter {
        /** The buffer is valid only during the call (handshake packets). */
        void transmit(byte[] data, int offset, int length);

        /**
         * A frame in the connection's datagram buffer, {@code buffer[offset, offset+length)} (absolute
         * indexes), valid only during the call. The transmitter may move the buffer's position and limit
         * but must leave them as {@link ByteBuffer#clear()} does. The default hands a heap buffer's array
         * to {@link #transmit(byte[], int, int)} and copies a direct buffer into a new array (that
         * allocates: the transport overrides this to send the region as it is).
         */
        default void transmit(ByteBuffer buffer, int offset, int length) {
            if (buffer.hasArray()) {
                transmit(buffer.array(), buffer.arrayOffset() + offset, length);
            } else {
                byte[] copy = new byte[length];
                buffer.get(offset, copy);
                transmit(copy, 0, length);
            }
        }

        /**
         * The IP TOS byte of the datagrams transmitted from now until the next call, or
         * {@link io.reliableudp.message.DatagramSender#NODE_CLASS} for the owner's own class (what
         * every datagram has unless the message layer says otherwise around one of its packets). The
         * default ignores it.
         */
        default void trafficClass(int tos) {
        }
    }

    /** What a connection reports to its owner (called on the thread that made the call causing it). */
    public interface Events {
        /** The handshake completed. */
        void onConnected();

        /** The connection ended; every pending send was failed already. */
        void onDisconnected(DisconnectReason reason, String detail);

        /** A message arrived; the buffer is valid only during the call. */
        void onMessage(int channel, int messageId, byte[] data, int offset, int length);

        /** A datagram for this connection was dropped. */
        void onDrop(DropReason reason);

        /** The path being validated ({@link #validatePath}) answered its challenge. */
        default void onPathValidated() {
        }

        /** The path being validated did not answer any of its challenges. */
        default void onPathValidationFailed() {
        }
    }

    /** Life cycle. */
    public enum State {
        /** Client: sending requests, waiting for a challenge. */
        REQUESTING,
        /** Client: sending responses, waiting for the server's first frame. */
        RESPONDING,
        /** Messages flow. */
        CONNECTED,
        /** Over. */
        DISCONNECTED
    }

    private static final int DISCONNECT_BODY = 1;
    private static final System.Logger LOG = System.getLogger(Connection.class.getName());

    private final boolean client;
    private final ConnectionSettings settings;
    private final Events events;
    private final boolean encrypted;
    /** Client: the handshake, until it ends (null on a server, and once connected or failed). */
    private @Nullable ClientHandshake handshake;
    /** Server, encrypted modes: the accept that confirms the connection, sent again for a repeated response. */
    private byte @Nullable [] accept;
    /** The peer's allow-list entry, when the handshake authenticated it by its static key. */
    private @Nullable AuthenticatedPeer authenticatedPeer;
    /** Client: why the handshake failed, when it did. */
    private @Nullable HandshakeFailure handshakeFailure;

    /** Seals and opens this connection's frames; keeps its replay window and its frame keys. */
    private final FrameCodec frames;
    /** The datagram buffer, the clock, the salt; frames go out through it. */
    private final FrameSender out;
    /** Keepalives, probes, timeout. */
    private final Liveness liveness;
    /** The datagram budget and its growth by size probes. */
    private final SizeProbe sizes;
    /** The session, once established. */
    private final SessionPort port;
    /** The validation of a new path of the peer (server side, encrypted modes). */
    private final PathValidation path;
    /** Client: the nonce of the handshake (it tells this connection's challenge and denial from another's). */
    private byte @Nullable [] clientNonce;

    private State state;
    private long cookieTime = -1;
    private @Nullable DisconnectReason reason;

    /** Client: the handshake's resends, fresh challenges and connect timeout. */
    private final HandshakeSchedule schedule;

    private long datagramsReceived;
    private long bytesReceived;

    private Connection(boolean client, ConnectionSettings settings, Transmitter transmitter, Events events, double now) {
        this.client = client;
        this.settings = settings;
        this.events = events;
        this.encrypted = settings.encrypted();
        int budget = settings.message().datagramBudget();
        this.frames = new FrameCodec(encrypted, settings.protocolId(), budget);
        // room for a session whose configuration undercounts the overhead: it gets the clear error of send()
        this.out = new FrameSender(encrypted, frames, transmitter, budget + Protocol.REQUEST_SIZE, now);
        this.liveness = new Liveness(client, settings, now);
        this.sizes = new SizeProbe(budget, settings.message().maxDatagramBudget());
        this.port = new SessionPort(out, sizes, events::onMessage);
        this.schedule = new HandshakeSchedule(settings, now);
        this.path = new PathValidation(settings.probeInterval());
        this.state = client ? State.REQUESTING : State.CONNECTED;
    }

    /** Client: how many times this handshake went back to a fresh challenge because its cookie grew old. */
    public int cookieRefreshes() {
        return schedule.refreshes();
    }

    /** Server: whether the client has sent a valid frame since the handshake. */
    public boolean confirmed() {
        return liveness.confirmed();
    }

    /** Bytes a connection adds around the message-layer bytes of one datagram (frame header, plus the tag when encrypted). */
    public static int frameOverhead(boolean encrypted) {
        return Protocol.frameOverhead(encrypted);
    }

    /**
     * Whether a datagram of this type (its first byte) belongs to an established or connecting
     * connection (challenge, denial, frames), so that one from an unknown address is an unknown
     * sender rather than garbage.
     */
    public static boolean belongsToConnection(byte type) {
        return type == Protocol.CHALLENGE || type == Protocol.DENIED || type == Protocol.ACCEPT || Protocol.isFrame(type);
    }

    /** Where a challenge and a denial carry the client nonce they echo (spec 3.3, 3.6). */
    public static final int NONCE_OFFSET = 2;
    /** Length of the client nonce. */
    public static final int NONCE_BYTES = Protocol.NONCE_BYTES;

    /** Whether a datagram of this type echoes a client nonce at {@link #NONCE_OFFSET} (a challenge, a denial). */
    public static boolean echoesNonce(byte type) {
        return type == Protocol.CHALLENGE || type == Protocol.DENIED;
    }

    /** Whether a datagram of this type is a connected frame (spec 3.7, 3.7a). */
    public static boolean isFrame(byte type) {
        return Protocol.isFrame(type);
    }

    /**
     * The connection id (salt) a datagram names: a frame's (at least a frame header long) or an accept's;
     * 0 (never a salt) for anything else.
     */
    public static int frameSalt(byte[] data, int length) {
        if (length >= Protocol.FRAME_HEADER && Protocol.isFrame(data[0])) {
            return WireCodec.getIntBE(data, 1);
        }
        if (length == Protocol.ACCEPT_SIZE && data[0] == Protocol.ACCEPT) {
            return WireCodec.getIntBE(data, 2);
        }
        return 0;
    }

    /**
     * Starts a client handshake with a fresh nonce from {@code random}, and an ephemeral key from it
     * when it is a {@link java.security.SecureRandom} (else from a new one): sends the first request at once.
     */
    public static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                                    java.util.Random random, double now) {
        byte[] nonce = new byte[Protocol.NONCE_BYTES];
        random.nextBytes(nonce);
        return client(settings, transmitter, events, random, false, now);
    }

    /**
     * As {@link #client(ConnectionSettings, Transmitter, Events, java.util.Random, double)}; {@code another}
     * when this end keeps another connection to the same server address open, so that the server does
     * not take this handshake for a restart of this end (request flag bit 2, spec 3.2).
     */
    public static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                                    java.util.Random random, boolean another, double now) {
        byte[] nonce = new byte[Protocol.NONCE_BYTES];
        random.nextBytes(nonce);
        return client(settings, transmitter, events, nonce,
                random instanceof java.security.SecureRandom secure ? secure : new java.security.SecureRandom(), another, now);
    }

    /** Starts a client handshake with this nonce (tests): sends the first request at once. */
    static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                             byte[] clientNonce, double now) {
        return client(settings, transmitter, events, clientNonce, new java.security.SecureRandom(), now);
    }

    /** Starts a client handshake with this nonce and its ephemeral key from {@code random}: sends the first request at once. */
    static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                             byte[] clientNonce, java.security.SecureRandom random, double now) {
        return client(settings, transmitter, events, clientNonce, random, false, now);
    }

    private static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                                     byte[] clientNonce, java.security.SecureRandom random, boolean another, double now) {
        Connection c = new Connection(true, settings, transmitter, events, now);
        c.clientNonce = clientNonce.clone();
        c.handshake = new ClientHandshake(settings, clientNonce, random, another);
        c.sendHandshake();
        return c;
    }

    /**
     * Accepts a verified response (cookie opened, proofs checked, keys derived): the connection is
     * established and confirmed to the client at once, with the accept in the encrypted modes and a
     * keepalive in plain mode. Does not report {@code onConnected}: the owner does, once it registered
     * the connection.
     */
    public static Connection server(ConnectionSettings settings, Transmitter transmitter, Events events,
                                    HandshakeServer.Verified verified, double now) {
        if (verified.repeat()) {
            throw new IllegalArgumentException("a repeated response makes no connection");
        }
        return server(settings, transmitter, events, verified.response().salt(), verified.keys(), verified.accept(),
                verified.client(), verified.cookieTime(), now);
    }

    static Connection server(ConnectionSettings settings, Transmitter transmitter, Events events, int salt,
                             byte @Nullable [][] keys, byte @Nullable [] accept, @Nullable AuthenticatedPeer client,
                             long cookieTime, double now) {
        Connection c = new Connection(false, settings, transmitter, events, now);
        c.out.salt(salt);
        c.cookieTime = cookieTime;
        c.liveness.unconfirmedUntil(Liveness.unconfirmedDeadline(settings, cookieTime, now));
        c.authenticatedPeer = client;
        if (keys != null) {
            c.frames.keys(new FrameKeys(keys[1]), new FrameKeys(keys[0]));
            Arrays.fill(keys[0], (byte) 0);
            Arrays.fill(keys[1], (byte) 0);
        }
        c.accept = accept;
        c.port.open(settings.sessions(), settings.message(), now);
        c.confirmToClient();
        return c;
    }

    /** Server: the accept (encrypted modes) or a keepalive (plain mode), both smaller than the response they answer. */
    private void confirmToClient() {
        byte[] a = accept;
        if (a != null) {
            out.accept(a);
        } else {
            out.keepalive();
        }
    }

    /** The peer's allow-list entry when the handshake authenticated it by its static key, else null. */
    public @Nullable AuthenticatedPeer authenticatedPeer() {
        return authenticatedPeer;
    }

    /** Frame key updates so far, both directions (spec 3.8, "Key update"). */
    long keyUpdates() {
        return frames.keyUpdates();
    }

    /** Client: why the handshake failed (for the node's counters), or null. */
    public @Nullable HandshakeFailure handshakeFailure() {
        return handshakeFailure;
    }

    /** The current state. */
    public State state() {
        return state;
    }

    /** Whether this side started the handshake. */
    public boolean isClient() {
        return client;
    }

    /** Client: the nonce of its handshake (a copy), which its challenge and denial echo; null on a server. */
    public byte @Nullable [] clientNonce() {
        byte[] n = clientNonce;
        return n == null ? null : n.clone();
    }

    /** The connection salt (0 while a client has no challenge yet). */
    public int salt() {
        return out.salt();
    }

    /** Server side: the issue time of the cookie that created this connection. */
    public long cookieTime() {
        return cookieTime;
    }

    /** Why the connection ended, or null while it has not. */
    @Nullable DisconnectReason disconnectReason() {
        return reason;
    }

    /** What the session writes to and delivers to (tests stand in for the session with it). */
    Session.Output sessionOutput() {
        return port;
    }

    /** The message layer, or null before the connection is established. */
    public @Nullable Session session() {
        return port.session();
    }

    /** Datagrams this connection sent (handshake and frames). */
    long datagramsSent() {
        return out.datagramsSent();
    }

    /** Datagrams accepted for this connection. */
    long datagramsReceived() {
        return datagramsReceived;
    }

    /** PROBE keepalives this connection sent (after silence from the peer). */
    long probesSent() {
        return liveness.probesSent();
    }

    /** The peer's PROBE keepalives this connection answered (one plain keepalive each). */
    long probesAnswered() {
        return liveness.probesAnswered();
    }

    /** Client: the server's plain keepalives this connection answered with its own. */
    long keepalivesAnswered() {
        return liveness.keepalivesAnswered();
    }

    /** Bytes this connection sent, as on the wire. */
    public long bytesSent() {
        return out.bytesSent();
    }

    /** Bytes accepted for this connection, as on the wire. */
    public long bytesReceived() {
        return bytesReceived;
    }

    // ---------------------------------------------------------------- input

    /** A datagram from this connection's address. Never throws for any content. */
    public void receive(byte[] data, int offset, int length, double time) {
        out.at(time);
        if (state == State.DISCONNECTED || length < 1) {
            events.onDrop(length < 1 ? DropReason.MALFORMED : DropReason.UNEXPECTED);
            return;
        }
        byte type = data[offset];
        switch (type) {
            case Protocol.CHALLENGE -> onHandshake(type, data, offset, length);
            case Protocol.DENIED -> onHandshake(type, data, offset, length);
            case Protocol.ACCEPT -> onHandshake(type, data, offset, length);
            case Protocol.KEEPALIVE, Protocol.PAYLOAD, Protocol.DISCONNECT, Protocol.PATH_CHALLENGE, Protocol.PATH_RESPONSE ->
                    onFrame(type, data, offset, length);
            default -> events.onDrop(DropReason.MALFORMED);
        }
    }

    /**
     * A datagram of this connection that came from another address than the connection's (spec 3.7a):
     * handled as {@link #receive} does, and the answer is whether it may move the connection there:
     * an established connection in an encrypted mode accepted it (not replayed, authenticated) and its
     * sequence is newer than that of every frame accepted before. Never throws for any content.
     */
    public boolean receiveFromNewPath(byte[] data, int offset, int length, double time) {
        if (state != State.CONNECTED || !encrypted || length < Protocol.FRAME_HEADER || !Protocol.isFrame(data[offset])) {
            receive(data, offset, length, time);
            return false;
        }
        long sequence = WireCodec.getLongBE(data, offset + 5);
        boolean newest = datagramsReceived == 0 || sequence > frames.newestReceived();
        long before = datagramsReceived;
        receive(data, offset, length, time);
        return newest && datagramsReceived > before && state == State.CONNECTED;
    }

    /**
     * Starts validating the path the connection was moved to (the transport moved it): sends a
     * PATH_CHALLENGE now and again up to {@value PathValidation#TRIES} times, one probe interval apart;
     * {@link Events#onPathValidated} or {@link Events#onPathValidationFailed} tells the outcome. A
     * validation in progress is replaced.
     */
    public void validatePath(double time) {
        out.at(time);
        if (state != State.CONNECTED) {
            return;
        }
        out.pathFrame(Protocol.PATH_CHALLENGE, path.start(time));
    }

    /** Stops a path validation in progress without an outcome (the transport moved back to a validated path). */
    public void abandonPathValidation() {
        path.abandon();
    }

    /** Whether a path validation is in progress. */
    public boolean validatingPath() {
        return path.pending();
    }

    /**
     * Server side: the client repeated its (verified) response; confirm again (a keepalive is smaller
     * than a response). A verified response is proof the client is alive, so it counts as hearing from
     * it: a client still waiting for the confirmation must not see its connection time out and be
     * re-created from its next repeat (a stalled client must not cost the server several connections).
     */
    public void onRepeatedResponse(double time) {
        out.at(time);
        if (state == State.CONNECTED) {
            // alive, still waiting for our keepalive: at least unconfirmedTimeout more to confirm
            liveness.repeatedResponse(time, Liveness.unconfirmedTimeout(settings));
            confirmToClient();
        }
    }

    /** Client: a challenge, an accept or a denial, for {@link ClientHandshake} to judge. */
    private void onHandshake(byte type, byte[] data, int offset, int length) {
        ClientHandshake h = handshake;
        if (h == null || state == State.CONNECTED) {
            events.onDrop(DropReason.UNEXPECTED);
            return;
        }
        ClientHandshake.Answer answer = switch (type) {
            case Protocol.CHALLENGE -> h.onChallenge(data, offset, length);
            case Protocol.ACCEPT -> h.onAccept(data, offset, length);
            default -> h.onDenied(data, offset, length);
        };
        switch (answer) {
            case MALFORMED -> events.onDrop(DropReason.MALFORMED);
            case UNEXPECTED -> events.onDrop(DropReason.UNEXPECTED);
            case DECRYPT_FAILED -> events.onDrop(DropReason.DECRYPT_FAILED);
            case RESPOND -> {
                countReceived(length);
                out.salt(h.salt());
                schedule.challenged(out.now());
                state = State.RESPONDING;
                sendHandshake();
            }
            case FAILED -> {
                countReceived(length);
                handshake = null;
                handshakeFailure = h.failure();
                DisconnectReason why = h.reason();
                end(why == null ? DisconnectReason.DENIED : why, h.detail(), false);
            }
            case CONNECTED -> {
                countReceived(length);
                byte[][] keys = h.keys();
                if (keys != null) {
                    frames.keys(new FrameKeys(keys[0]), new FrameKeys(keys[1]));
                    Arrays.fill(keys[0], (byte) 0);
                    Arrays.fill(keys[1], (byte) 0);
                }
                authenticatedPeer = h.server();
                handshake = null;
                liveness.heard(out.now());
                connected();
            }
        }
    }

    private void countReceived(int length) {
        datagramsReceived++;
        bytesReceived += length;
    }

    /** Client: the handshake completed; the session starts and the owner hears of it. */
    private void connected() {
        state = State.CONNECTED;
        port.open(settings.sessions(), settings.message(), out.now());
        events.onConnected();
    }

    private void onFrame(byte type, byte[] data, int offset, int length) {
        if (state == State.REQUESTING || (state == State.RESPONDING && encrypted)) {
            // encrypted: no key before the accept (a frame that overtook it is resent by the message layer)
            events.onDrop(DropReason.UNEXPECTED);
            return;
        }
        int bodyLen = frames.open(data, offset, length, out.salt());
        if (bodyLen < 0) {
            events.onDrop(frames.dropReason());
            return;
        }
        byte[] body = frames.body();
        int bodyOff = frames.bodyOffset();
        datagramsReceived++;
        bytesReceived += length;
        liveness.frameHeard(out.now());
        boolean confirming = state == State.RESPONDING;
        if (confirming) {
            ClientHandshake h = handshake;
            if (h == null || !h.confirmedByFrame()) {
                return;
            }
            handshake = null;
            connected();
            if (state != State.CONNECTED) {
                return; // the owner closed it from the callback
            }
        }
        switch (type) {
            case Protocol.PAYLOAD -> port.receive(body, bodyOff, bodyLen, out.now());
            case Protocol.DISCONNECT -> end(DisconnectReason.CLOSED_BY_PEER, "the peer disconnected", false);
            case Protocol.PATH_CHALLENGE -> {
                // answered at once, from wherever this end is, with the same bytes (a short body is ignored)
                if (state == State.CONNECTED && bodyLen >= Protocol.PATH_DATA_BYTES) {
                    out.pathFrame(Protocol.PATH_RESPONSE, body, bodyOff);
                }
            }
            case Protocol.PATH_RESPONSE -> {
                if (path.answered(body, bodyOff, bodyLen)) {
                    events.onPathValidated();
                }
            }
            default -> {
                // keepalive: lastReceive is all it carries, and a probe asks for one plain keepalive at once
                // (never a probe, so two ends cannot ping-pong; unknown flag bits are ignored); a SIZE
                // probe asks for a SIZE answer naming the length that arrived
                int flags = bodyLen > 0 ? body[bodyOff] : 0;
                if ((flags & Protocol.KEEPALIVE_SIZE_PROBE) != 0 && state == State.CONNECTED) {
                    sizes.answer(out, length);
                } else if ((flags & Protocol.KEEPALIVE_SIZE_ANSWER) != 0 && bodyLen >= Protocol.KEEPALIVE_SIZE_ANSWER_BODY) {
                    onSizeAnswer(WireCodec.getIntBE(body, bodyOff + 1));
                } else if (settings.probes() && bodyLen >= Protocol.KEEPALIVE_PROBE_BODY
                        && (body[bodyOff] & Protocol.KEEPALIVE_PROBE) != 0 && state == State.CONNECTED) {
                    liveness.probeAnswered();
                    out.keepalive();
                } else if (!confirming && state == State.CONNECTED && liveness.answersKeepalive(out.now(), out.lastSend())) {
                    // (the confirmation: the first tick's keepalive answers it)
                    out.keepalive();
                }
            }
        }
    }

    // ---------------------------------------------------------------- output

    /**
     * Queues a message on the session; when not connected, {@code completion} fails at once (nothing thrown).
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int send(int channel, byte[] payload, @Nullable SendCompletion completion, double time) {
        out.at(time);
        return send(channel, payload, completion);
    }

    /**
     * Queues a message like {@link #send(int, byte[], SendCompletion, double)}, without moving the
     * connection's clock: queueing reads no time, and whatever sends the message next (a
     * {@link #flush}, the owner's {@link #update}) brings its own. So a caller that only queues need
     * not read a clock per message (about 25 ns a read on this project's machine, a sixth of a
     * sending thread's time at 4 M messages/s).
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int send(int channel, byte[] payload, @Nullable SendCompletion completion) {
        return send(channel, payload, completion, 0);
    }

    /**
     * {@link #send(int, byte[], SendCompletion)} with a time-to-live in milliseconds (0: the channel's;
     * docs/messages.md, "Time-to-live").
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int send(int channel, byte[] payload, @Nullable SendCompletion completion, int ttlMillis) {
        if (!port.isOpen()) {
            if (completion != null) {
                DeliveryFailure failure = refusalFor(state, reason);
                completion.failed(new DeliveryException(failure, "peer is " + state.name().toLowerCase(java.util.Locale.ROOT)));
            }
            return MessageEndpoint.OFFER_CLOSED;
        }
        return port.offer(channel, payload, completion, ttlMillis);
    }

    /** During a delivery to the listener: the message's age in ms when it has a time-to-live, else -1. */
    public int deliveredMessageAgeMillis() {
        return port.deliveredMessageAgeMillis();
    }

    /**
     * Queues a message without a future.
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int offer(int channel, byte[] payload, double time) {
        out.at(time);
        return offer(channel, payload);
    }

    /**
     * Queues a message without a future and without moving the connection's clock (see
     * {@link #send(int, byte[], SendCompletion)}).
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int offer(int channel, byte[] payload) {
        return port.offer(channel, payload);
    }

    /** Sends what the session has queued now. */
    public void flush(double time) {
        out.at(time);
        port.flush(time);
    }

    /**
     * When the session wants its next {@link #update} (seconds on the owner's clock; at or before now:
     * at once; +inf: nothing due until something happens, or not connected). Keepalive, timeout and
     * handshake retries are not included: the owner's housekeeping tick covers them. A size probe's
     * next try is (see {@link #discoverDatagramBudget(int, int, boolean)}).
     */
    public double nextDeadline() {
        return state == State.CONNECTED ? Math.min(port.nextDeadline(), sizes.next()) : port.nextDeadline();
    }

    /**
     * When {@link #update} next has work of its own (seconds on the owner's clock; at or before now: at
     * once): connected, the earliest of the keepalive ({@code keepAliveInterval} after the last packet
     * sent), the timeout ({@code timeout} after the last valid packet heard), the next probe (once
     * nothing was heard for {@code probeAfter}, then every {@code probeInterval}; never while the peer is
     * heard) and the session's
     * housekeeping update (once per {@code keepAliveInterval}); in the handshake, at once (the owner's
     * tick paces handshake resends); ended, never. Between now and then an {@code update} would do
     * nothing but the session's own deadlines ({@link #nextDeadline}), so an owner with many idle
     * connections calls it only for those that are due. Every event moves the answer later or leaves it,
     * never earlier, so an owner may keep the last answer and ask again only when it has come.
     */
    public double nextHousekeeping() {
        return switch (state) {
            case CONNECTED -> Math.min(Math.min(liveness.nextHousekeeping(out.lastSend()), Math.min(sizes.next(), sizes.raiseAt())), path.next());
            case REQUESTING, RESPONDING -> Double.NEGATIVE_INFINITY;
            default -> Double.POSITIVE_INFINITY;
        };
    }

    /**
     * Connected, whether the session waits only for timers the owner may leave to its next service of
     * this connection (a datagram, or a timer it sets for {@link #nextDeadline}), rather than wake for
     * them now ({@link Session#settled}).
     */
    public boolean settled() {
        return state == State.CONNECTED && port.settled();
    }

    /** Whether reliable messages still wait for acknowledgement. */
    public boolean hasPendingReliable() {
        return state == State.CONNECTED && port.hasPendingReliable();
    }

    /** Timers: handshake resends and connect timeout, session update, keepalive, probe, timeout. */
    public void update(double time) {
        out.at(time);
        switch (state) {
            case REQUESTING, RESPONDING -> {
                switch (schedule.due(time, state == State.RESPONDING)) {
                    case GIVE_UP -> end(DisconnectReason.CONNECT_TIMEOUT, "no answer within the connect timeout", false);
                    case REFRESH -> requestAgain();
                    case RESEND -> sendHandshake();
                    case NOTHING -> {
                        // waiting for the server
                    }
                }
            }
            case CONNECTED -> {
                // written as nextHousekeeping() computes the times, so that "due" and "done" agree to the bit
                if (liveness.timedOut(time)) {
                    end(DisconnectReason.TIMEOUT, "nothing heard for " + settings.timeout() + " s", false);
                    return;
                }
                if (liveness.unconfirmedExpired(time)) {
                    end(DisconnectReason.TIMEOUT, "no frame from the client since the handshake (it gave up before"
                            + " our answer reached it?)", false);
                    return;
                }
                liveness.sessionUpdated(time);
                port.update(time);
                if (state == State.CONNECTED && liveness.probeDue(time)) {
                    // silence beyond the peer's keepalive schedule: ask for an answer now (it is a keepalive too)
                    liveness.probeSent(time);
                    out.keepalive(Protocol.KEEPALIVE_PROBE, Protocol.KEEPALIVE_PROBE_BODY);
                }
                if (state == State.CONNECTED && time >= sizes.raiseAt()) {
                    sizes.raise(time);
                }
                if (state == State.CONNECTED && time >= sizes.next()) {
                    sizes.send(out, time);
                }
                if (state == State.CONNECTED && time >= path.next()) {
                    byte[] again = path.due(time);
                    if (again == PathValidation.FAILED) {
                        events.onPathValidationFailed();
                    } else if (again != null) {
                        out.pathFrame(Protocol.PATH_CHALLENGE, again);
                    }
                }
                if (state == State.CONNECTED && liveness.keepaliveDue(time, out.lastSend())) {
                    out.keepalive();
                }
            }
            default -> {
                // disconnected: nothing to do
            }
        }
    }

    /**
     * Ends the connection: fails every pending send, tells the peer with redundant disconnect
     * packets when asked to (and when it has a salt to address them), reports {@code onDisconnected}.
     * Does nothing when already ended.
     */
    public void disconnect(DisconnectReason why, String detail, boolean notifyPeer, double time) {
        out.at(time);
        end(why, detail, notifyPeer);
    }

    private void end(DisconnectReason why, String detail, boolean notifyPeer) {
        if (state == State.DISCONNECTED) {
            return;
        }
        // a client still responding has frame keys in plain mode only (encrypted ones come with the accept)
        if (notifyPeer && (state == State.CONNECTED || (state == State.RESPONDING && !encrypted))) {
            for (int i = 0; i < Protocol.REDUNDANT_DISCONNECTS; i++) {
                // written again each time: in encrypted mode the last seal turned it into ciphertext
                out.datagram().put(out.headroom(), (byte) why.ordinal());
                out.frame(Protocol.DISCONNECT, out.headroom(), DISCONNECT_BODY);
            }
        }
        state = State.DISCONNECTED;
        reason = why;
        ClientHandshake h = handshake;
        if (h != null) {
            h.abandon();
            handshake = null;
        }
        port.close(failureFor(why));
        events.onDisconnected(why, detail);
    }

    /**
     * Why a send is refused when there is no connection to queue it on. It never left, so the reason
     * is NOT_CONNECTED whatever ended the connection (TIMEOUT and DISCONNECTED are for messages that
     * were pending when it ended: their fate is unknown), except CLOSED after a local close, as a send
     * on a closed node is.
     */
    static DeliveryFailure refusalFor(State state, @Nullable DisconnectReason why) {
        return state == State.DISCONNECTED && why == DisconnectReason.CLOSED_LOCALLY
                ? DeliveryFailure.CLOSED : DeliveryFailure.NOT_CONNECTED;
    }

    /** The delivery failure of the messages pending when the connection ended for {@code why}. */
    static DeliveryFailure failureFor(@Nullable DisconnectReason why) {
        if (why == null) {
            return DeliveryFailure.NOT_CONNECTED;
        }
        return switch (why) {
            case CLOSED_LOCALLY -> DeliveryFailure.CLOSED;
            case TIMEOUT -> DeliveryFailure.TIMEOUT;
            case CLOSED_BY_PEER, PROTOCOL_ERROR -> DeliveryFailure.DISCONNECTED;
            case DENIED, SERVER_FULL, CONNECT_TIMEOUT -> DeliveryFailure.NOT_CONNECTED;
        };
    }

    /**
     * Client, responding for {@link HandshakeSchedule#COOKIE_REFRESH_SECONDS}: the server would find the cookie expired
     * (or never answered), so ask again with the same nonce for a fresh challenge, cookie and salt.
     */
    private void requestAgain() {
        schedule.refreshed();
        state = State.REQUESTING;
        out.salt(0);
        frames.clearKeys();
        ClientHandshake h = handshake;
        if (h != null) {
            h.requestAgain();
        }
        sendHandshake();
    }

    private void sendHandshake() {
        ClientHandshake h = handshake;
        if (h == null) {
            return;
        }
        schedule.sent(out.now());
        out.handshake(h.packet(), h.packetLength());
    }

    // ------------------------------------------------------------ datagram size

    /**
     * Lets this connection grow its datagrams up to {@code target} bytes on a path known to carry them
     * (a peer on this host): once its session asks for larger packets, it sends a SIZE probe of
     * {@code target} bytes, and when the peer answers that it received that many, later packets may be
     * that large. Unanswered after {@value SizeProbe#TRIES} tries {@value SizeProbe#INTERVAL} s apart
     * (the peer does not accept datagrams that long, or predates size probes), the connection keeps its
     * budget. Ignored when {@code target} is not above the current budget; capped at the message layer's
     * {@code maxDatagramBudget}.
     */
    public void discoverDatagramBudget(int target) {
        sizes.discover(target);
    }

    /**
     * Lets this connection search, once its session asks for larger packets, for the largest datagram
     * up to {@code max} bytes that reaches the peer ({@link SizeProbe}, RFC 8899 datagram PLPMTUD):
     * {@code preferred} first, then {@code max}, then a binary search. {@code watched}: the path can
     * change (off the host), so a grown budget falls back to the base when large packets are lost while
     * smaller ones pass, and a search that ended below {@code max} is raised again later. Call before
     * the session asks (when the connection is attached to its path).
     */
    public void discoverDatagramBudget(int max, int preferred, boolean watched) {
        sizes.discover(max, preferred, watched);
    }

    /**
     * The connection now uses another path (its peer's address changed): its datagram budget falls back
     * to the base at once, and the search of {@link #discoverDatagramBudget(int, int, boolean)} starts
     * over with the new path's limits, at once when the session had asked for larger packets before.
     */
    public void restartDatagramBudget(int max, int preferred, boolean watched, double time) {
        out.at(time);
        int budget = sizes.restart(max, preferred, watched, time);
        if (budget > 0) {
            port.datagramBudgetChanged(budget, false);
        }
        if (state == State.CONNECTED && time >= sizes.next()) {
            sizes.send(out, time);
        }
    }

    /** Times this connection's budget fell back to the base because large datagrams seemed lost. */
    public long datagramBudgetFallbacks() {
        return sizes.blackHoles();
    }

    /** The largest datagram this connection sends now (bytes). */
    public int datagramBudget() {
        return sizes.budget();
    }

    /** SIZE probes this connection sent. */
    public long sizeProbesSent() {
        return sizes.sent();
    }

    /** The peer's SIZE probes this connection answered. */
    public long sizeProbesAnswered() {
        return sizes.answers();
    }

    /** A SIZE answer: the peer received {@code size} bytes. When that is the size probed, the budget grows to it. */
    private void onSizeAnswer(int size) {
        double now = out.now();
        int budget = sizes.answered(size, now);
        if (budget == 0) {
            return; // not ours to act on: a late answer to a size given up, or a peer's mistake
        }
        out.grow(budget + Protocol.REQUEST_SIZE);
        port.datagramBudgetChanged(budget, sizes.watched());
        LOG.log(Level.DEBUG, () -> this + ": datagram budget " + budget + " bytes (size probe answered)");
        if (state == State.CONNECTED && now >= sizes.next()) {
            sizes.send(out, now); // the next size of the search
        }
    }

    @Override
    public String toString() {
        return "Connection[" + (client ? "client" : "server") + ", state=" + state + ", salt=" + Integer.toHexString(out.salt())
                + ", encrypted=" + encrypted + "]";
    }
}
