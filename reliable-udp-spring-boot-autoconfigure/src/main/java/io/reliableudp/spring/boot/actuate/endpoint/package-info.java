/**
 * Actuator support for reliable-UDP nodes: a health indicator per node and the {@code reliableudp}
 * endpoint. See {@code docs/observability.md}.
 */
@NullMarked
package io.reliableudp.spring.boot.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
