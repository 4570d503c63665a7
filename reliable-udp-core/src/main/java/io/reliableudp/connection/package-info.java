/**
 * Connection layer: handshake, challenge cookies, keepalive, timeout, disconnect, optional AEAD encryption with replay protection. No sockets.
 */
@NullMarked
package io.reliableudp.connection;

import org.jspecify.annotations.NullMarked;
