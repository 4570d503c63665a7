/**
 * reliable-udp: reliable messaging over UDP.
 *
 * <p>Layers, each a package, dependencies pointing down only:
 * {@code transport -> connection -> message -> packet} ({@code link} is a datagram simulator used by
 * tests, benchmarks and the transport). See {@code docs/architecture.md}.
 */
@NullMarked
package io.reliableudp;

import org.jspecify.annotations.NullMarked;
