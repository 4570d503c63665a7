package io.reliableudp.connection;

import io.reliableudp.message.MessageConfig;
import org.jspecify.annotations.Nullable;

/**
 * What every connection of a node shares. Times in seconds. Holds the pre-shared key: never logged.
 * The connection layer's contract with the transport; not user API.
 *
 * @param protocolId 64-bit application protocol id
 * @param preSharedKey 32-byte key, or null for plain mode
 * @param keepAliveInterval keepalive when nothing was sent for this long
 * @param timeout silence after which the connection times out
 * @param connectTimeout how long a client handshake may take
 * @param handshakeResendInterval how often a client repeats its request or response
 * @param message message-layer settings, with {@code lowerLayerOverhead} covering the frame overhead
 * @param sessions makes the message layer of each connection
 * @param probes whether this end sends PROBE keepalives after silence and answers the peer's (spec 3.7,
 *               3.10); false behaves as a peer that predates them (neither sends nor answers)
 * @param probeInterval seconds between two probes while the peer stays silent
 *                      ({@link #probeInterval(double, double)})
 * @param credentials this node's static identity and allow-list ({@link Credentials#none()}: none)
 */
public record ConnectionSettings(
        long protocolId,
        byte @Nullable [] preSharedKey,
        double keepAliveInterval,
        double timeout,
        double connectTimeout,
        double handshakeResendInterval,
        MessageConfig message,
        Session.Factory sessions,
        boolean probes,
        double probeInterval,
        Credentials credentials) {

    /**
     * Silence, in keepalive intervals, after which a connected end probes: the peer's keepalive comes 1
     * to 1 + tick/interval intervals after its last packet (1.125 at the defaults), and the owner's tick
     * sees it up to one more tick later, so 1.5 is a keepalive that did not come, not a late one.
     */
    public static final double PROBE_AFTER_INTERVALS = 1.5;

    /** The shortest time between two probes, whatever the keepalive interval (seconds). */
    public static final double MIN_PROBE_INTERVAL = 0.1;

    /** Settings without identities. */
    public ConnectionSettings(long protocolId, byte @Nullable [] preSharedKey, double keepAliveInterval, double timeout,
                              double connectTimeout, double handshakeResendInterval, MessageConfig message,
                              Session.Factory sessions, boolean probes, double probeInterval) {
        this(protocolId, preSharedKey, keepAliveInterval, timeout, connectTimeout, handshakeResendInterval, message,
                sessions, probes, probeInterval, Credentials.none());
    }

    /** Settings with probes on, every {@link #probeInterval(double, double)} (no tick: the floor only). */
    public ConnectionSettings(long protocolId, byte @Nullable [] preSharedKey, double keepAliveInterval, double timeout,
                              double connectTimeout, double handshakeResendInterval, MessageConfig message,
                              Session.Factory sessions) {
        this(protocolId, preSharedKey, keepAliveInterval, timeout, connectTimeout, handshakeResendInterval, message,
                sessions, true, probeInterval(keepAliveInterval, 0));
    }

    /**
     * The time between two probes: a quarter of the keepalive interval (250 ms at the default 1 s), never
     * below the owner's housekeeping tick (a probe is sent on a tick; a shorter interval would only
     * become one probe per tick) nor below {@link #MIN_PROBE_INTERVAL}.
     */
    public static double probeInterval(double keepAliveInterval, double tick) {
        return Math.max(Math.max(keepAliveInterval / 4, tick), MIN_PROBE_INTERVAL);
    }

    /** Silence after which a connected end sends its first probe (seconds). */
    public double probeAfter() {
        return PROBE_AFTER_INTERVALS * keepAliveInterval;
    }

    /** These settings with probes off: an end that neither sends probes nor answers them (a v1 peer before probes). */
    public ConnectionSettings withoutProbes() {
        return new ConnectionSettings(protocolId, preSharedKey, keepAliveInterval, timeout, connectTimeout,
                handshakeResendInterval, message, sessions, false, probeInterval, credentials);
    }

    /** Whether frames are sealed. */
    public boolean encrypted() {
        return preSharedKey != null || credentials.identities();
    }

    /** Handshake flags this side announces: bit 0 a pre-shared key, bit 1 an identity (spec 3.2). */
    int flags() {
        return (preSharedKey != null ? Protocol.FLAG_ENCRYPTED : 0) | (credentials.identities() ? Protocol.FLAG_IDENTITY : 0);
    }

    @Override
    public String toString() {
        return "ConnectionSettings[protocolId=0x" + Long.toHexString(protocolId) + ", encrypted=" + encrypted() + ", identities=" + credentials.identities()
                + ", keepAliveInterval=" + keepAliveInterval + ", timeout=" + timeout + ", probes=" + probes
                + ", probeInterval=" + probeInterval + "]";
    }
}
