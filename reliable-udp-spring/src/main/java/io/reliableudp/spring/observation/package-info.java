/**
 * Micrometer observations of sends and listener invocations, and the carriers that propagate trace context inside the envelope.
 */
@NullMarked
package io.reliableudp.spring.observation;

import org.jspecify.annotations.NullMarked;
