package io.reliableudp.transport;

import java.util.Map;

/**
 * A snapshot of a node's own statistics (all counts monotonic since start).
 *
 * @param datagramsSent datagrams written to the socket; with a link conditioner, datagrams handed to it
 *     (it stands for the network: a datagram it drops counts as sent, one it duplicates counts once)
 * @param datagramsReceived datagrams read from the socket
 * @param bytesSent bytes written to the socket, or handed to the link conditioner as above
 * @param bytesReceived bytes read from the socket
 * @param datagramsDropped datagrams dropped, by reason (e.g. "malformed", "unknown_sender", "replayed", "decrypt_failed", "wrong_protocol", "too_large", "rate_limited", "source_rate_limited")
 * @param handshakeFailures failed handshakes, by reason
 * @param connections connections right now (connecting or connected)
 * @param connectionsOpened connections that completed a handshake
 * @param listenerErrors exceptions thrown by listeners
 * @param receiveMemoryBytes bytes all connections hold for their peers now (reassembly, early arrivals of
 *     ordered channels, messages held for paused channels), bounded by {@link NodeConfig#receiveMemoryLimit()}
 * @param memoryRefusals received packets refused (not acknowledged) because they would have passed a
 *     receive memory limit (a connection's or the node's), over all connections since start
 * @param migrations connections moved to a new address of their peer after it answered a path challenge
 *     (encrypted modes; docs/connection.md, "Migration")
 * @param pathValidationsFailed path challenges to a new address that went unanswered (the connection went
 *     back to the address it had)
 */
public record NodeStats(
        long datagramsSent,
        long datagramsReceived,
        long bytesSent,
        long bytesReceived,
        Map<String, Long> datagramsDropped,
        Map<String, Long> handshakeFailures,
        int connections,
        long connectionsOpened,
        long listenerErrors,
        long receiveMemoryBytes,
        long memoryRefusals,
        long migrations,
        long pathValidationsFailed) {

    /** Statistics without migrations (both counts 0). */
    public NodeStats(long datagramsSent, long datagramsReceived, long bytesSent, long bytesReceived,
                     Map<String, Long> datagramsDropped, Map<String, Long> handshakeFailures, int connections,
                     long connectionsOpened, long listenerErrors, long receiveMemoryBytes, long memoryRefusals) {
        this(datagramsSent, datagramsReceived, bytesSent, bytesReceived, datagramsDropped, handshakeFailures, connections,
                connectionsOpened, listenerErrors, receiveMemoryBytes, memoryRefusals, 0, 0);
    }
}
