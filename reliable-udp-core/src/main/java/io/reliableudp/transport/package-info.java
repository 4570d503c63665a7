/**
 * Transport: a node on one {@link io.reliableudp.transport.DatagramPort} (a UDP socket or a port of an
 * {@link io.reliableudp.transport.InMemoryNetwork}), serving many peers; the public entry point without Spring.
 */
@NullMarked
package io.reliableudp.transport;

import org.jspecify.annotations.NullMarked;
