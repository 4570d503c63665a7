/**
 * Helpers shared by the core's layers and by nothing else: the wire codec (varints, byte order).
 * Public only so that every layer package can reach it; not API. Depends on nothing of the project,
 * and no code outside {@code reliable-udp-core} may use it (both checked by {@code ArchitectureTest}).
 */
@NullMarked
package io.reliableudp.internal;

import org.jspecify.annotations.NullMarked;
