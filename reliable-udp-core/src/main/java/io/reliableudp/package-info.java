/**
 * reliable-udp: reliable messaging over UDP.
 *
 * <p>Layers, each a package, dependencies pointing down only:
 * {@code transport -> connection -> message -> packet} ({@code link} is a datagram simulator used by
 * tests, benchmarks and the transport). See {@code docs/architecture.md}.
 *
 * <p>This package holds what every layer shares and the node API shows: the reasons a connection ends
 * ({@link io.reliableudp.DisconnectReason}), a datagram is dropped ({@link io.reliableudp.DropReason}) or a
 * handshake fails ({@link io.reliableudp.HandshakeFailure}), and the configuration error
 * ({@link io.reliableudp.InvalidConfigurationException}). It depends on no layer.
 */
@NullMarked
package io.reliableudp;

import org.jspecify.annotations.NullMarked;
