/**
 * Listener containers, endpoints, their registry and error handling.
 */
@NullMarked
package io.reliableudp.spring.listener;

import org.jspecify.annotations.NullMarked;
