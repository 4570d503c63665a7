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
 */
public record ConnectionSettings(
        long protocolId,
        byte @Nullable [] preSharedKey,
        double keepAliveInterval,
        double timeout,
        double connectTimeout,
        double handshakeResendInterval,
        MessageConfig message,
        Session.Factory sessions) {

    /** Whether frames are sealed. */
    public boolean encrypted() {
        return preSharedKey != null;
    }

    /** Handshake flags this side announces. */
    int flags() {
        return encrypted() ? Protocol.FLAG_ENCRYPTED : 0;
    }

    @Override
    public String toString() {
        return "ConnectionSettings[protocolId=0x" + Long.toHexString(protocolId) + ", encrypted=" + encrypted()
                + ", keepAliveInterval=" + keepAliveInterval + ", timeout=" + timeout + "]";
    }
}
