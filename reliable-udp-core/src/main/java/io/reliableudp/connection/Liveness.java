package io.reliableudp.connection;

/**
 * When an established connection sends keepalives and probes, and when it gives its peer up: the
 * keepalive schedule, the probes after silence, the timeout, and a server's wait for its client's first
 * frame. Decides only: the connection asks it what is due ({@link #timedOut}, {@link #probeDue},
 * {@link #keepaliveDue}, {@link #answersKeepalive}) and sends what it says through its
 * {@link FrameSender}, whose {@code lastSend} comes in as an argument.
 *
 * <p>Every event moves {@link #nextHousekeeping} later or leaves it, never earlier, and the checks
 * are written as it computes the times, so that "due" and "done" agree to the bit. Time is in seconds,
 * from the owner's monotonic clock. Not thread-safe.
 */
final class Liveness {

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

    private final boolean client;
    private final double timeout;
    private final double keepAliveInterval;
    /**
     * How long this end waits after its last frame before it sends a keepalive of its own: the keepalive
     * interval on the server, {@link #CLIENT_KEEPALIVE_FACTOR} times it on a client, which answers the
     * server's keepalives instead ({@link #answersKeepalive}), so the server leads.
     */
    private final double keepAliveAfter;
    /** {@link ConnectionSettings#probeAfter()}, or +inf when this end does not probe. */
    private final double probeAfter;
    /** {@link ConnectionSettings#probeInterval()}. */
    private final double probeInterval;

    private double lastReceive;
    /** When the last PROBE keepalive went out (probes follow silence of {@link ConnectionSettings#probeAfter()}). */
    private double lastProbe = Double.NEGATIVE_INFINITY;
    /** When the connection last ran its session's update (its housekeeping: statistics, loss timeout). */
    private double lastSessionUpdate = Double.NEGATIVE_INFINITY;
    /**
     * Server: whether a valid frame came from the client since the handshake. Until one does, the
     * connection is unconfirmed: its client may have given up before our keepalive reached it (a response
     * that waited in an overloaded server's socket buffer), so it ends after {@link #unconfirmedTimeout}.
     */
    private boolean confirmed;
    /** Server: when an unconfirmed connection ends ({@link #unconfirmedDeadline}); moved later by a repeated response. */
    private double unconfirmedUntil = Double.POSITIVE_INFINITY;
    private long probesSent;
    private long probesAnswered;
    private long keepalivesAnswered;

    /** The schedule of one end ({@code client} or server) of a connection started at {@code now}. */
    Liveness(boolean client, ConnectionSettings settings, double now) {
        this.client = client;
        this.timeout = settings.timeout();
        this.keepAliveInterval = settings.keepAliveInterval();
        this.keepAliveAfter = client ? CLIENT_KEEPALIVE_FACTOR * keepAliveInterval : keepAliveInterval;
        this.probeAfter = settings.probes() ? settings.probeAfter() : Double.POSITIVE_INFINITY;
        this.probeInterval = settings.probeInterval();
        this.lastReceive = now;
    }

    /**
     * The least time a server-side connection may stay unconfirmed (no valid frame from its client since
     * the handshake): a live client answers our keepalive at once and then every keepalive interval, and
     * repeats its response every resend interval until it gets one, so four of the longer of the two
     * (4 s with the 1 s default keepalive, 2 s at the former 500 ms), and never more than the timeout.
     * See {@link #unconfirmedDeadline}.
     */
    static double unconfirmedTimeout(ConnectionSettings settings) {
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
    static double unconfirmedDeadline(ConnectionSettings settings, long cookieMillis, double now) {
        double clientGivesUp = cookieMillis / 1000.0 + settings.connectTimeout();
        return Math.min(now + settings.timeout(), Math.max(clientGivesUp, now + unconfirmedTimeout(settings)));
    }

    /** Server: the connection ends at {@code deadline} unless a frame of the client confirms it first. */
    void unconfirmedUntil(double deadline) {
        this.unconfirmedUntil = deadline;
    }

    /** The peer was heard at {@code time}: a valid frame, an accept, or a repeated response. */
    void heard(double time) {
        lastReceive = time;
    }

    /** A valid frame came from the peer at {@code time}: heard, and a server's connection confirmed. */
    void frameHeard(double time) {
        lastReceive = time;
        confirmed = true;
    }

    /**
     * Server: the client repeated its (verified) response at {@code time}: it is alive and still waits
     * for our confirmation, so it is heard, and keeps at least {@link #unconfirmedTimeout} to confirm.
     */
    void repeatedResponse(double time, double unconfirmedTimeout) {
        lastReceive = time;
        unconfirmedUntil = Math.max(unconfirmedUntil, Math.min(time + timeout, time + unconfirmedTimeout));
    }

    /** Server: whether the client has sent a valid frame since the handshake. */
    boolean confirmed() {
        return confirmed;
    }

    /** Whether nothing valid was heard for more than the timeout. */
    boolean timedOut(double time) {
        return time > lastReceive + timeout;
    }

    /** Server: whether the connection is still unconfirmed past its deadline. */
    boolean unconfirmedExpired(double time) {
        return !client && !confirmed && time > unconfirmedUntil;
    }

    /** The connection runs its session's housekeeping update at {@code time}. */
    void sessionUpdated(double time) {
        lastSessionUpdate = time;
    }

    /** Whether a probe is due: silence beyond the peer's keepalive schedule. */
    boolean probeDue(double time) {
        return time >= nextProbe();
    }

    /** A PROBE keepalive goes at {@code time}. */
    void probeSent(double time) {
        lastProbe = time;
        probesSent++;
    }

    /** The peer's PROBE was answered with a plain keepalive. */
    void probeAnswered() {
        probesAnswered++;
    }

    /** Whether this end's own keepalive is due, its last frame having gone at {@code lastSend}. */
    boolean keepaliveDue(double time, double lastSend) {
        return time >= lastSend + keepAliveAfter;
    }

    /**
     * Client, on a plain keepalive of the server: whether to answer it with one now, because this end sent
     * nothing for half a keepalive interval (its own would be due within the next 0.75 interval). So a
     * client follows the server's keepalive schedule (see {@link #CLIENT_KEEPALIVE_FACTOR}); a busy client
     * sends its frames anyway and answers nothing; never a server, so two ends cannot ping-pong. Counts
     * the answer when there is one.
     */
    boolean answersKeepalive(double time, double lastSend) {
        if (client && time - lastSend >= keepAliveInterval / 2) {
            keepalivesAnswered++;
            return true;
        }
        return false;
    }

    /**
     * When the next probe is due: {@code probeAfter} after the last valid frame heard, and
     * {@code probeInterval} after the last probe (+inf when this end does not probe). Hearing the peer
     * and sending a probe both move it later, never earlier.
     */
    double nextProbe() {
        return Math.max(lastReceive + probeAfter, lastProbe + probeInterval);
    }

    /**
     * The earliest of this schedule's times, its last frame having gone at {@code lastSend}: the
     * keepalive, the timeout (strictly after it: the connection ends only when more than the timeout
     * passed), the session's housekeeping update (once per keepalive interval), a server's unconfirmed
     * deadline, and the next probe.
     */
    double nextHousekeeping(double lastSend) {
        return Math.min(Math.min(Math.min(Math.min(lastSend + keepAliveAfter,
                Math.nextUp(lastReceive + timeout)), lastSessionUpdate + keepAliveInterval),
                client || confirmed ? Double.POSITIVE_INFINITY : Math.nextUp(unconfirmedUntil)),
                nextProbe());
    }

    /** PROBE keepalives sent (after silence from the peer). */
    long probesSent() {
        return probesSent;
    }

    /** The peer's PROBE keepalives answered (one plain keepalive each). */
    long probesAnswered() {
        return probesAnswered;
    }

    /** Client: the server's plain keepalives answered with one of this end's ({@link #answersKeepalive}). */
    long keepalivesAnswered() {
        return keepalivesAnswered;
    }
}
