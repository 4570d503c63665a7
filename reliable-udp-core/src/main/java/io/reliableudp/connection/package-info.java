/**
 * Connection layer: handshake, challenge cookies, keepalive, timeout, disconnect, optional AEAD encryption with replay protection. No sockets.
 *
 * <p>Not exported by the core's module: the layer's contract with the transport. The user-facing
 * reasons it reports ({@link io.reliableudp.DisconnectReason}, {@link io.reliableudp.DropReason},
 * {@link io.reliableudp.HandshakeFailure}) are in the root package. {@code Connection},
 * {@code HandshakeServer}, {@code ConnectionSettings}, {@code Credentials}, {@code AuthenticatedPeer},
 * {@code Session} and {@code MessageSession} are public only because the transport, another package,
 * drives them; the parts of a connection and the wire and crypto internals are package-private.
 */
@NullMarked
package io.reliableudp.connection;

import org.jspecify.annotations.NullMarked;
