package io.reliableudp.connection;

/**
 * When a client's handshake resends its packet, asks for a fresh challenge, or gives up: the timers
 * of the handshake whose packets and keys are {@link ClientHandshake}'s. Decides only; the connection
 * sends what {@link #due} says and reports back what it did ({@link #sent}, {@link #challenged},
 * {@link #refreshed}). Time is in seconds, from the owner's monotonic clock. Not thread-safe.
 */
final class HandshakeSchedule {

    /**
     * How long a client answers one challenge before it asks for a fresh one (seconds): half the
     * cookie's lifetime ({@value Protocol#COOKIE_LIFETIME_MILLIS} ms, counted by the server from the
     * challenge's issue), so that a response still arrives with a valid cookie when the round trip takes
     * up to 5 s. Without it, a client whose connect timeout exceeds the lifetime would resend an expired
     * cookie until it gave up.
     */
    static final double COOKIE_REFRESH_SECONDS = Protocol.COOKIE_LIFETIME_MILLIS / 2000.0;

    /** What is due at a given time. */
    enum Due {
        /** Nothing yet. */
        NOTHING,
        /** Send the handshake packet again. */
        RESEND,
        /** The challenge being answered is old: ask for a fresh one. */
        REFRESH,
        /** The connect timeout ran out. */
        GIVE_UP
    }

    private final double started;
    private final double connectTimeout;
    private final double resendInterval;
    private double lastSend;
    /** When the challenge being answered arrived (its cookie's age is at least the time since). */
    private double challengedAt;
    private int refreshes;

    /** The schedule of a handshake started at {@code now}. */
    HandshakeSchedule(ConnectionSettings settings, double now) {
        this.started = now;
        this.connectTimeout = settings.connectTimeout();
        this.resendInterval = settings.handshakeResendInterval();
    }

    /**
     * What is due at {@code time}, {@code responding} telling whether a challenge is being answered:
     * giving up once more than the connect timeout passed since the start, else a fresh challenge once
     * one was answered for {@link #COOKIE_REFRESH_SECONDS}, else a resend once the resend interval passed
     * since the last send.
     */
    Due due(double time, boolean responding) {
        if (time - started > connectTimeout) {
            return Due.GIVE_UP;
        } else if (responding && time - challengedAt >= COOKIE_REFRESH_SECONDS) {
            return Due.REFRESH;
        } else if (time - lastSend >= resendInterval) {
            return Due.RESEND;
        }
        return Due.NOTHING;
    }

    /** The handshake packet went at {@code time}. */
    void sent(double time) {
        lastSend = time;
    }

    /** A challenge arrived at {@code time}; the response to it goes now. */
    void challenged(double time) {
        challengedAt = time;
    }

    /** The handshake went back to a fresh challenge. */
    void refreshed() {
        refreshes++;
    }

    /** How many times the handshake went back to a fresh challenge because its cookie grew old. */
    int refreshes() {
        return refreshes;
    }
}
