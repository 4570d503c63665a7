/**
 * Micrometer observations of sends and listener invocations, and the carriers that propagate trace context inside the envelope.
 * Depends on {@code support} only (the values it describes); the template and the containers depend on it.
 */
@NullMarked
package io.reliableudp.spring.observation;

import org.jspecify.annotations.NullMarked;
