/**
 * Transport: a node bound to one UDP socket, serving many peers; the public entry point without Spring.
 */
@NullMarked
package io.reliableudp.transport;

import org.jspecify.annotations.NullMarked;
