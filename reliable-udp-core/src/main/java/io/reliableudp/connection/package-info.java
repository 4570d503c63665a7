/**
 * Connection layer: handshake, challenge cookies, keepalive, timeout, disconnect, optional AEAD encryption with replay protection. No sockets.
 *
 * <p>User API: {@link io.reliableudp.connection.DisconnectReason}, {@link io.reliableudp.connection.DropReason},
 * {@link io.reliableudp.connection.HandshakeFailure}. {@code Connection}, {@code HandshakeServer},
 * {@code ConnectionSettings}, {@code Session} and {@code MessageSession} are public only as the layer's
 * contract with the transport; the wire and crypto internals are package-private.
 */
@NullMarked
package io.reliableudp.connection;

import org.jspecify.annotations.NullMarked;
