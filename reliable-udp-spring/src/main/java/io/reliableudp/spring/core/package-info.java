/**
 * The Spring-managed node, its peer directory and inbound fan-out, the template and the replying
 * template. It builds on {@code support} (envelope, headers, the message and send-result values) and
 * {@code observation}; neither of them depends on it.
 */
@NullMarked
package io.reliableudp.spring.core;

import org.jspecify.annotations.NullMarked;
