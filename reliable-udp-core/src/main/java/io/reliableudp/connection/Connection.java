package io.reliableudp.connection;

import io.reliableudp.internal.WireCodec;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.SendCompletion;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * One connection, client or server side: the client handshake's timers (its packets and keys are
 * {@link ClientHandshake}'s), keepalives and probes, timeout, disconnect; its frames are sealed, opened
 * and checked against the replay window by its {@link FrameCodec}. Owns the {@link Session} (the
 * message layer) of the connection. No sockets: datagrams come in through {@link #receive} and go out
 * through the {@link Transmitter}.
 *
 * <p>One datagram buffer per connection: the session composes its packets in it behind room for this
 * layer's frame header ({@link #datagramBuffer()}, {@link #headroom()}), and the frame header is then
 * written in front of the packet and, in encrypted mode, the packet sealed in place (ChaCha20-Poly1305
 * over the same bytes, the tag after them), so the packet's bytes are not copied here. The buffer is
 * direct in plain mode (a socket sends it without a copy of its own) and a heap buffer in encrypted
 * mode: the JDK's ChaCha20-Poly1305 seals a {@code byte[]} in place, but copies a direct buffer through
 * a new array, in and out, on every call (see docs/architecture.md, "One datagram's buffer").
 *
 * <p>Not thread-safe: the owner serialises every call (the transport holds a per-peer lock).
 * Time is in seconds, from the owner's monotonic clock.
 *
 * <p>The connection layer's contract with the transport; not user API.
 */
public final class Connection implements Session.Output, Session.Input {

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
    private final Transmitter transmitter;
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

    /** The connection's one datagram buffer: frames are composed, framed and sealed in it. */
    private ByteBuffer datagram;
    /** Bytes reserved in front of every body in {@link #datagram}: the frame header. */
    private final int headroom;
    /** Seals and opens this connection's frames; keeps its replay window and its frame keys. */
    private final FrameCodec frames;
    /**
     * The largest datagram this connection sends now: the message layer's {@code datagramBudget} until
     * a size probe of a larger one was answered ({@link #discoverDatagramBudget}).
     */
    private int datagramBudget;
    /** The datagram size to probe once the session asks for larger packets (0: none, or done). */
    private int sizeProbeTarget;
    /** Size probes sent for {@link #sizeProbeTarget} so far; after {@link #SIZE_PROBE_TRIES} unanswered, it is given up. */
    private int sizeProbeTries;
    /** When the next try of the size probe is due (+inf: none outstanding). */
    private double nextSizeProbe = Double.POSITIVE_INFINITY;
    private long sizeProbesSent;
    private long sizeProbesAnswered;

    private State state;
    private int salt;
    private long cookieTime = -1;
    private @Nullable Session session;
    private @Nullable DisconnectReason reason;

    private double now;
    private final double started;
    private double lastReceive;
    private double lastSend = Double.NEGATIVE_INFINITY;
    private double lastHandshakeSend;
    /** Client: when the challenge being answered arrived (its cookie's age is at least the time since). */
    private double challengedAt;
    /**
     * Server: whether a valid frame came from the client since the handshake. Until one does, the
     * connection is unconfirmed: its client may have given up before our keepalive reached it (a response
     * that waited in an overloaded server's socket buffer), so it ends after {@link #unconfirmedTimeout}.
     */
    private boolean confirmed;
    /**
     * Server: when an unconfirmed connection ends ({@link #unconfirmedDeadline}); moved later by a
     * repeated response.
     */
    private double unconfirmedUntil = Double.POSITIVE_INFINITY;
    /** Client: how many times the handshake went back to a fresh challenge. */
    private int cookieRefreshes;
    /** When {@link #update} last ran the session's update while connected (its housekeeping: statistics, loss timeout). */
    private double lastSessionUpdate = Double.NEGATIVE_INFINITY;
    /** When the last PROBE keepalive went out (probes follow silence of {@link ConnectionSettings#probeAfter()}). */
    private double lastProbe = Double.NEGATIVE_INFINITY;
    /** {@link ConnectionSettings#probeAfter()}, or +inf when this end does not probe. */
    private final double probeAfter;
    /** {@link ConnectionSettings#probeInterval()}. */
    private final double probeInterval;
    /**
     * How long this end waits after its last frame before it sends a keepalive of its own: the keepalive
     * interval on the server, {@link #CLIENT_KEEPALIVE_FACTOR} times it on a client, which answers the
     * server's keepalives instead ({@link #answersKeepalive}), so the server leads.
     */
    private final double keepAliveAfter;
    private long probesSent;
    private long probesAnswered;
    private long keepalivesAnswered;

    private long datagramsSent;
    private long datagramsReceived;
    private long bytesSent;
    private long bytesReceived;

    private Connection(boolean client, ConnectionSettings settings, Transmitter transmitter, Events events, double now) {
        this.client = client;
        this.settings = settings;
        this.transmitter = transmitter;
        this.events = events;
        this.encrypted = settings.encrypted();
        int budget = settings.message().datagramBudget();
        this.datagramBudget = budget;
        this.frames = new FrameCodec(encrypted, settings.protocolId(), budget);
        this.headroom = FrameCodec.HEADER;
        // room for a session whose configuration undercounts the overhead: it gets the clear error of send()
        int capacity = budget + Protocol.REQUEST_SIZE;
        this.datagram = frameBuffer(encrypted, capacity);
        this.now = now;
        this.started = now;
        this.lastReceive = now;
        this.probeAfter = settings.probes() ? settings.probeAfter() : Double.POSITIVE_INFINITY;
        this.probeInterval = settings.probeInterval();
        this.keepAliveAfter = client ? CLIENT_KEEPALIVE_FACTOR * settings.keepAliveInterval() : settings.keepAliveInterval();
        this.state = client ? State.REQUESTING : State.CONNECTED;
    }

    /**
     * How long a client answers one challenge before it asks for a fresh one (seconds): half the
     * cookie's lifetime ({@value Protocol#COOKIE_LIFETIME_MILLIS} ms, counted by the server from the
     * challenge's issue), so that a response still arrives with a valid cookie when the round trip takes
     * up to 5 s. Without it, a client whose connect timeout exceeds the lifetime would resend an expired
     * cookie until it gave up.
     */
    public static final double COOKIE_REFRESH_SECONDS = Protocol.COOKIE_LIFETIME_MILLIS / 2000.0;

    /**
     * A client's own keepalive goes after this many keepalive intervals of sending nothing (the server's
     * after one). In between it answers each plain keepalive of the server at once when it sent nothing
     * for half an interval, so on an idle connection the server's keepalive leads and the client's
     * follows within the round trip. A server sends its keepalives from its housekeeping tick, many
     * connections' at once, and their answers come back together: one wake-up of the server's I/O
     * thread serves several received keepalives instead of one each (docs/connection.md, "An idle
     * node"). 1.25 leaves a tick (1/8 interval at the defaults) of margin on both sides: the server's
     * keepalive goes 1 to 1.125 intervals after its last, the client's own 1.25 to 1.375, and the peer's
     * probes start after 1.5 intervals of silence. The count of datagrams does not change: one keepalive
     * each way per interval.
     */
    static final double CLIENT_KEEPALIVE_FACTOR = 1.25;

    /**
     * The least time a server-side connection may stay unconfirmed (no valid frame from its client since
     * the handshake): a live client answers our keepalive at once and then every keepalive interval, and
     * repeats its response every resend interval until it gets one, so four of the longer of the two
     * (4 s with the 1 s default keepalive, 2 s at the former 500 ms), and never more than the timeout.
     * See {@link #unconfirmedDeadline}.
     */
    public static double unconfirmedTimeout(ConnectionSettings settings) {
        return Math.min(settings.timeout(), 4 * Math.max(settings.keepAliveInterval(), settings.handshakeResendInterval()));
    }

    /**
     * When a server-side connection made at {@code now} from a cookie issued at {@code cookieMillis}
     * (milliseconds on the same clock as {@code now}'s seconds, as the transport passes them) ends if it
     * is still unconfirmed: not before its client's connect timeout has run out (the client started
     * before the cookie was issued; {@code connectTimeout} of these settings stands for the client's),
     * nor before {@link #unconfirmedTimeout} has passed, nor after the timeout. So a prompt handshake
     * keeps about the whole connect timeout to confirm (a burst of clients whose first frames the
     * server's socket buffer drops), and a connection made from a response that waited in the buffer
     * until its client gave up ends {@code unconfirmedTimeout} after it was made.
     */
    public static double unconfirmedDeadline(ConnectionSettings settings, long cookieMillis, double now) {
        double clientGivesUp = cookieMillis / 1000.0 + settings.connectTimeout();
        return Math.min(now + settings.timeout(), Math.max(clientGivesUp, now + unconfirmedTimeout(settings)));
    }

    /** Client: how many times this handshake went back to a fresh challenge because its cookie grew old. */
    public int cookieRefreshes() {
        return cookieRefreshes;
    }

    /** Server: whether the client has sent a valid frame since the handshake. */
    public boolean confirmed() {
        return confirmed;
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

    /**
     * Starts a client handshake with a fresh nonce from {@code random}, and an ephemeral key from it
     * when it is a {@link java.security.SecureRandom} (else from a new one): sends the first request at once.
     */
    public static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                                    java.util.Random random, double now) {
        byte[] nonce = new byte[Protocol.NONCE_BYTES];
        random.nextBytes(nonce);
        return client(settings, transmitter, events, nonce,
                random instanceof java.security.SecureRandom secure ? secure : new java.security.SecureRandom(), now);
    }

    /** Starts a client handshake with this nonce (tests): sends the first request at once. */
    static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                             byte[] clientNonce, double now) {
        return client(settings, transmitter, events, clientNonce, new java.security.SecureRandom(), now);
    }

    /** Starts a client handshake with this nonce and its ephemeral key from {@code random}: sends the first request at once. */
    static Connection client(ConnectionSettings settings, Transmitter transmitter, Events events,
                             byte[] clientNonce, java.security.SecureRandom random, double now) {
        Connection c = new Connection(true, settings, transmitter, events, now);
        c.handshake = new ClientHandshake(settings, clientNonce, random);
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
        c.salt = salt;
        c.cookieTime = cookieTime;
        c.unconfirmedUntil = unconfirmedDeadline(settings, cookieTime, now);
        c.authenticatedPeer = client;
        if (keys != null) {
            c.frames.keys(new FrameKeys(keys[1]), new FrameKeys(keys[0]));
            Arrays.fill(keys[0], (byte) 0);
            Arrays.fill(keys[1], (byte) 0);
        }
        c.accept = accept;
        c.session = settings.sessions().create(settings.message(), now, c, c);
        c.confirmToClient();
        return c;
    }

    /** Server: the accept (encrypted modes) or a keepalive (plain mode), both smaller than the response they answer. */
    private void confirmToClient() {
        byte[] a = accept;
        if (a != null) {
            lastSend = now;
            datagramsSent++;
            bytesSent += a.length;
            transmitter.transmit(a, 0, a.length);
        } else {
            sendFrame(Protocol.KEEPALIVE, headroom, 0);
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

    /** The connection salt (0 while a client has no challenge yet). */
    public int salt() {
        return salt;
    }

    /** Server side: the issue time of the cookie that created this connection. */
    public long cookieTime() {
        return cookieTime;
    }

    /** Why the connection ended, or null while it has not. */
    @Nullable DisconnectReason disconnectReason() {
        return reason;
    }

    /** The message layer, or null before the connection is established. */
    public @Nullable Session session() {
        return session;
    }

    /** Datagrams this connection sent (handshake and frames). */
    long datagramsSent() {
        return datagramsSent;
    }

    /** Datagrams accepted for this connection. */
    long datagramsReceived() {
        return datagramsReceived;
    }

    /** PROBE keepalives this connection sent (after silence from the peer). */
    long probesSent() {
        return probesSent;
    }

    /** The peer's PROBE keepalives this connection answered (one plain keepalive each). */
    long probesAnswered() {
        return probesAnswered;
    }

    /** Client: the server's plain keepalives this connection answered with its own ({@link #answersKeepalive}). */
    long keepalivesAnswered() {
        return keepalivesAnswered;
    }

    /** Bytes this connection sent, as on the wire. */
    public long bytesSent() {
        return bytesSent;
    }

    /** Bytes accepted for this connection, as on the wire. */
    public long bytesReceived() {
        return bytesReceived;
    }

    // ---------------------------------------------------------------- input

    /** A datagram from this connection's address. Never throws for any content. */
    public void receive(byte[] data, int offset, int length, double time) {
        this.now = time;
        if (state == State.DISCONNECTED || length < 1) {
            events.onDrop(length < 1 ? DropReason.MALFORMED : DropReason.UNEXPECTED);
            return;
        }
        byte type = data[offset];
        switch (type) {
            case Protocol.CHALLENGE -> onHandshake(type, data, offset, length);
            case Protocol.DENIED -> onHandshake(type, data, offset, length);
            case Protocol.ACCEPT -> onHandshake(type, data, offset, length);
            case Protocol.KEEPALIVE, Protocol.PAYLOAD, Protocol.DISCONNECT -> onFrame(type, data, offset, length);
            default -> events.onDrop(DropReason.MALFORMED);
        }
    }

    /**
     * Server side: the client repeated its (verified) response; confirm again (a keepalive is smaller
     * than a response). A verified response is proof the client is alive, so it counts as hearing from
     * it: a client still waiting for the confirmation must not see its connection time out and be
     * re-created from its next repeat (a stalled client must not cost the server several connections).
     */
    public void onRepeatedResponse(double time) {
        this.now = time;
        if (state == State.CONNECTED) {
            lastReceive = time;
            // alive, still waiting for our keepalive: at least unconfirmedTimeout more to confirm
            unconfirmedUntil = Math.max(unconfirmedUntil, Math.min(time + settings.timeout(), time + unconfirmedTimeout(settings)));
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
                salt = h.salt();
                challengedAt = now;
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
                lastReceive = now;
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
        session = settings.sessions().create(settings.message(), now, this, this);
        events.onConnected();
    }

    private void onFrame(byte type, byte[] data, int offset, int length) {
        if (state == State.REQUESTING || (state == State.RESPONDING && encrypted)) {
            // encrypted: no key before the accept (a frame that overtook it is resent by the message layer)
            events.onDrop(DropReason.UNEXPECTED);
            return;
        }
        int bodyLen = frames.open(data, offset, length, salt);
        if (bodyLen < 0) {
            events.onDrop(frames.dropReason());
            return;
        }
        byte[] body = frames.body();
        int bodyOff = frames.bodyOffset();
        datagramsReceived++;
        bytesReceived += length;
        lastReceive = now;
        confirmed = true;
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
            case Protocol.PAYLOAD -> {
                Session s = session;
                if (s != null && bodyLen > 0) {
                    s.receive(body, bodyOff, bodyLen, now);
                }
            }
            case Protocol.DISCONNECT -> end(DisconnectReason.CLOSED_BY_PEER, "the peer disconnected", false);
            default -> {
                // keepalive: lastReceive is all it carries, and a probe asks for one plain keepalive at once
                // (never a probe, so two ends cannot ping-pong; unknown flag bits are ignored); a SIZE
                // probe asks for a SIZE answer naming the length that arrived
                int flags = bodyLen > 0 ? body[bodyOff] : 0;
                if ((flags & Protocol.KEEPALIVE_SIZE_PROBE) != 0 && state == State.CONNECTED) {
                    sizeProbesAnswered++;
                    datagram.put(headroom, (byte) Protocol.KEEPALIVE_SIZE_ANSWER);
                    datagram.putInt(headroom + 1, length); // big-endian, as every connection-layer field
                    sendFrame(Protocol.KEEPALIVE, headroom, Protocol.KEEPALIVE_SIZE_ANSWER_BODY);
                } else if ((flags & Protocol.KEEPALIVE_SIZE_ANSWER) != 0 && bodyLen >= Protocol.KEEPALIVE_SIZE_ANSWER_BODY) {
                    onSizeAnswer(WireCodec.getIntBE(body, bodyOff + 1));
                } else if (settings.probes() && bodyLen >= Protocol.KEEPALIVE_PROBE_BODY
                        && (body[bodyOff] & Protocol.KEEPALIVE_PROBE) != 0 && state == State.CONNECTED) {
                    probesAnswered++;
                    sendFrame(Protocol.KEEPALIVE, headroom, 0);
                } else if (!confirming && answersKeepalive()) { // the confirmation: the first tick's keepalive answers it
                    keepalivesAnswered++;
                    sendFrame(Protocol.KEEPALIVE, headroom, 0);
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
        this.now = time;
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
        Session s = session;
        if (state != State.CONNECTED || s == null) {
            if (completion != null) {
                DeliveryFailure failure = refusalFor(state, reason);
                completion.failed(new DeliveryException(failure, "peer is " + state.name().toLowerCase(java.util.Locale.ROOT)));
            }
            return io.reliableudp.message.MessageEndpoint.OFFER_CLOSED;
        }
        return s.offer(channel, payload, completion);
    }

    /**
     * Queues a message without a future.
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int offer(int channel, byte[] payload, double time) {
        this.now = time;
        return offer(channel, payload);
    }

    /**
     * Queues a message without a future and without moving the connection's clock (see
     * {@link #send(int, byte[], SendCompletion)}).
     *
     * @return the message id, or a negative {@code MessageEndpoint.OFFER_*} code (OFFER_CLOSED when not connected)
     */
    public int offer(int channel, byte[] payload) {
        Session s = session;
        if (state != State.CONNECTED || s == null) {
            return io.reliableudp.message.MessageEndpoint.OFFER_CLOSED;
        }
        return s.offer(channel, payload);
    }

    /** Sends what the session has queued now. */
    public void flush(double time) {
        this.now = time;
        Session s = session;
        if (state == State.CONNECTED && s != null) {
            s.flush(time);
        }
    }

    /**
     * When the session wants its next {@link #update} (seconds on the owner's clock; at or before now:
     * at once; +inf: nothing due until something happens, or not connected). Keepalive, timeout and
     * handshake retries are not included: the owner's housekeeping tick covers them.
     */
    public double nextDeadline() {
        Session s = session;
        return state == State.CONNECTED && s != null ? s.nextDeadline() : Double.POSITIVE_INFINITY;
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
            case CONNECTED -> Math.min(Math.min(Math.min(Math.min(lastSend + keepAliveAfter,
                    // strictly after the timeout: update ends the connection only when more than timeout passed
                    Math.nextUp(lastReceive + settings.timeout())), lastSessionUpdate + settings.keepAliveInterval()),
                    client || confirmed ? Double.POSITIVE_INFINITY : Math.nextUp(unconfirmedUntil)),
                    Math.min(nextProbe(), nextSizeProbe));
            case REQUESTING, RESPONDING -> Double.NEGATIVE_INFINITY;
            default -> Double.POSITIVE_INFINITY;
        };
    }

    /**
     * When the next probe is due: {@code probeAfter} after the last valid frame heard, and
     * {@code probeInterval} after the last probe (+inf when this end does not probe). Hearing the peer
     * and sending a probe both move it later, never earlier.
     */
    private double nextProbe() {
        return Math.max(lastReceive + probeAfter, lastProbe + probeInterval);
    }

    /**
     * Client, on a plain keepalive of the server: whether to answer it with one now, because this end sent
     * nothing for half a keepalive interval (its own would be due within the next 0.75 interval). So a
     * client follows the server's keepalive schedule (see {@link #CLIENT_KEEPALIVE_FACTOR}); a busy client
     * sends its frames anyway and answers nothing; never a server, so two ends cannot ping-pong.
     */
    private boolean answersKeepalive() {
        return client && state == State.CONNECTED && now - lastSend >= settings.keepAliveInterval() / 2;
    }

    /**
     * Connected, whether the session waits only for timers the owner may leave to its next service of
     * this connection (a datagram, or a timer it sets for {@link #nextDeadline}), rather than wake for
     * them now ({@link Session#settled}).
     */
    public boolean settled() {
        Session s = session;
        return state == State.CONNECTED && s != null && s.settled();
    }

    /** Whether reliable messages still wait for acknowledgement. */
    public boolean hasPendingReliable() {
        Session s = session;
        return state == State.CONNECTED && s != null && s.hasPendingReliable();
    }

    /** Timers: handshake resends and connect timeout, session update, keepalive, probe, timeout. */
    public void update(double time) {
        this.now = time;
        switch (state) {
            case REQUESTING, RESPONDING -> {
                if (time - started > settings.connectTimeout()) {
                    end(DisconnectReason.CONNECT_TIMEOUT, "no answer within the connect timeout", false);
                } else if (state == State.RESPONDING && time - challengedAt >= COOKIE_REFRESH_SECONDS) {
                    requestAgain();
                } else if (time - lastHandshakeSend >= settings.handshakeResendInterval()) {
                    sendHandshake();
                }
            }
            case CONNECTED -> {
                // written as nextHousekeeping() computes the times, so that "due" and "done" agree to the bit
                if (time > lastReceive + settings.timeout()) {
                    end(DisconnectReason.TIMEOUT, "nothing heard for " + settings.timeout() + " s", false);
                    return;
                }
                if (!client && !confirmed && time > unconfirmedUntil) {
                    end(DisconnectReason.TIMEOUT, "no frame from the client since the handshake (it gave up before"
                            + " our answer reached it?)", false);
                    return;
                }
                Session s = session;
                if (s != null) {
                    lastSessionUpdate = time;
                    s.update(time);
                }
                if (state == State.CONNECTED && time >= nextProbe()) {
                    // silence beyond the peer's keepalive schedule: ask for an answer now (it is a keepalive too)
                    lastProbe = time;
                    probesSent++;
                    datagram.put(headroom, (byte) Protocol.KEEPALIVE_PROBE);
                    sendFrame(Protocol.KEEPALIVE, headroom, Protocol.KEEPALIVE_PROBE_BODY);
                }
                if (state == State.CONNECTED && time >= nextSizeProbe) {
                    sendSizeProbe();
                }
                if (state == State.CONNECTED && time >= lastSend + keepAliveAfter) {
                    sendFrame(Protocol.KEEPALIVE, headroom, 0);
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
        this.now = time;
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
                datagram.put(headroom, (byte) why.ordinal());
                sendFrame(Protocol.DISCONNECT, headroom, DISCONNECT_BODY);
            }
        }
        state = State.DISCONNECTED;
        reason = why;
        ClientHandshake h = handshake;
        if (h != null) {
            h.abandon();
            handshake = null;
        }
        Session s = session;
        if (s != null) {
            s.close(failureFor(why));
        }
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
     * Client, responding for {@link #COOKIE_REFRESH_SECONDS}: the server would find the cookie expired
     * (or never answered), so ask again with the same nonce for a fresh challenge, cookie and salt.
     */
    private void requestAgain() {
        cookieRefreshes++;
        state = State.REQUESTING;
        salt = 0;
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
        lastHandshakeSend = now;
        datagramsSent++;
        bytesSent += h.packetLength();
        transmitter.transmit(h.packet(), 0, h.packetLength());
    }

    /**
     * Frames the body at {@code datagram[bodyOff, bodyOff+bodyLen)} in place and transmits the frame:
     * the header goes right in front of the body (type, salt, sequence), and in encrypted mode the body
     * is sealed where it lies, its tag after it ({@link FrameCodec#seal}).
     */
    private void sendFrame(byte type, int bodyOff, int bodyLen) {
        sendFrame(datagram, type, bodyOff, bodyLen);
    }

    private void sendFrame(ByteBuffer d, byte type, int bodyOff, int bodyLen) {
        int total = frames.seal(d, type, salt, bodyOff, bodyLen);
        if (total < 0) {
            return; // encrypted without keys: no frame goes before the challenge brought them
        }
        int start = bodyOff - FrameCodec.HEADER;
        lastSend = now;
        datagramsSent++;
        bytesSent += total;
        transmitter.transmit(d, start, total);
    }

    // ------------------------------------------------------------ datagram size

    /** Size probes a connection sends for one size before it gives the size up. */
    static final int SIZE_PROBE_TRIES = 3;

    /** Seconds between two tries of a size probe. */
    static final double SIZE_PROBE_INTERVAL = 0.2;

    /**
     * Lets this connection grow its datagrams up to {@code target} bytes (the transport knows the path
     * carries them: a peer on this host): once its session asks for larger packets
     * ({@link #largerDatagramsWanted}), it sends a SIZE probe of {@code target} bytes, and when the peer
     * answers that it received that many, later packets may be that large. Unanswered after
     * {@value #SIZE_PROBE_TRIES} tries at least {@value #SIZE_PROBE_INTERVAL} s apart (the peer does not accept
     * datagrams that long, or predates size probes), the connection keeps its budget. Ignored when
     * {@code target} is not above the current budget; capped at the message layer's
     * {@code maxDatagramBudget}.
     */
    public void discoverDatagramBudget(int target) {
        int t = Math.min(target, settings.message().maxDatagramBudget());
        sizeProbeTarget = t > datagramBudget ? t : 0;
    }

    /** The largest datagram this connection sends now (bytes). */
    public int datagramBudget() {
        return datagramBudget;
    }

    /** SIZE probes this connection sent. */
    public long sizeProbesSent() {
        return sizeProbesSent;
    }

    /** The peer's SIZE probes this connection answered. */
    public long sizeProbesAnswered() {
        return sizeProbesAnswered;
    }

    /** From the session, once: a packet was full while more waited. The first size probe goes now. */
    @Override
    public void largerDatagramsWanted() {
        if (sizeProbeTarget > 0 && sizeProbeTries == 0 && state == State.CONNECTED) {
            sendSizeProbe();
        }
    }

    /**
     * One SIZE probe of {@link #sizeProbeTarget} bytes, in a buffer of its own (the session's packets
     * stay where they are composed): the flags byte, then zeros to the size. Gives the size up after
     * the last try's interval.
     */
    private void sendSizeProbe() {
        int target = sizeProbeTarget;
        if (target == 0 || sizeProbeTries >= SIZE_PROBE_TRIES) {
            if (target != 0) {
                LOG.log(Level.DEBUG, () -> this + ": no answer to " + SIZE_PROBE_TRIES + " size probes of "
                        + target + " bytes; the datagram budget stays " + datagramBudget);
            }
            sizeProbeTarget = 0;
            nextSizeProbe = Double.POSITIVE_INFINITY;
            return;
        }
        sizeProbeTries++;
        sizeProbesSent++;
        nextSizeProbe = now + SIZE_PROBE_INTERVAL;
        ByteBuffer probe = frameBuffer(encrypted, target);
        probe.put(headroom, (byte) Protocol.KEEPALIVE_SIZE_PROBE);
        sendFrame(probe, Protocol.KEEPALIVE, headroom, target - Protocol.frameOverhead(encrypted));
    }

    /** A SIZE answer: the peer received {@code size} bytes. When that is the size probed, the budget grows to it. */
    private void onSizeAnswer(int size) {
        int target = sizeProbeTarget;
        if (target == 0 || size != target || sizeProbeTries == 0) {
            return; // not ours to act on: a late answer to a size given up, or a peer's mistake
        }
        sizeProbeTarget = 0;
        nextSizeProbe = Double.POSITIVE_INFINITY;
        datagram = frameBuffer(encrypted, target + Protocol.REQUEST_SIZE);
        datagramBudget = target;
        Session s = session;
        if (s != null) {
            s.datagramBudgetChanged(target);
        }
        LOG.log(Level.DEBUG, () -> this + ": datagram budget " + target + " bytes (size probe answered)");
    }

    // ------------------------------------------------------- session callbacks

    /** To the session: the buffer to compose packets in (behind {@link #headroom()} bytes). */
    @Override
    public ByteBuffer datagramBuffer() {
        return datagram;
    }

    /** To the session: the bytes this layer writes in front of a packet (the largest frame header of this mode). */
    @Override
    public int headroom() {
        return headroom;
    }

    /**
     * From the session: one packet of message-layer bytes, copied into the datagram buffer, then
     * framed and sent (for sessions that do not compose in place).
     */
    @Override
    public void send(byte[] data, int offset, int length) {
        if (state != State.CONNECTED) {
            return;
        }
        checkBody(length);
        datagram.put(headroom, data, offset, length);
        sendFrame(Protocol.PAYLOAD, headroom, length);
    }

    /**
     * From the session: one packet composed in place in {@link #datagramBuffer()} at {@code offset}
     * (with the headroom in front), framed and sealed where it lies. A packet in another buffer, or
     * without the headroom, is copied in first.
     */
    @Override
    public void send(ByteBuffer buffer, int offset, int length) {
        if (state != State.CONNECTED) {
            return;
        }
        checkBody(length);
        if (buffer != datagram || offset < headroom) {
            datagram.put(headroom, buffer, offset, length);
            offset = headroom;
        }
        sendFrame(Protocol.PAYLOAD, offset, length);
    }

    /**
     * A buffer frames are composed and sent from: direct in plain mode (the socket sends it without a
     * copy of its own), heap in encrypted mode (sealed in place through its array).
     */
    private static ByteBuffer frameBuffer(boolean encrypted, int capacity) {
        return encrypted ? ByteBuffer.allocate(capacity) : ByteBuffer.allocateDirect(capacity);
    }

    private void checkBody(int length) {
        int maxBody = datagramBudget - Protocol.frameOverhead(encrypted);
        if (length > maxBody) {
            // the message layer was told the overhead: this is a bug below us, never silently truncate
            throw new IllegalStateException("message layer emitted " + length + " bytes, more than the " + maxBody + " that fit");
        }
    }

    /** From the session: a message arrived. */
    @Override
    public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
        events.onMessage(channel, messageId, data, offset, length);
    }

    @Override
    public String toString() {
        return "Connection[" + (client ? "client" : "server") + ", state=" + state + ", salt=" + Integer.toHexString(salt)
                + ", encrypted=" + encrypted + "]";
    }
}
