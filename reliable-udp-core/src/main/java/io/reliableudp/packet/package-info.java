/**
 * Packet layer, byte-compatible with the C library {@code reliable} 1.4.0: 16-bit sequence numbers, piggybacked acks, fragmentation, statistics. No I/O.
 */
@NullMarked
package io.reliableudp.packet;

import org.jspecify.annotations.NullMarked;
