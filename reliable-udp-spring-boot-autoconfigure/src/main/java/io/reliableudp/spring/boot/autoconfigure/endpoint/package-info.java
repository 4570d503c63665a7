/**
 * Auto-configuration of the {@code reliableudp} actuator endpoint (when actuator is present and the endpoint is available).
 */
@NullMarked
package io.reliableudp.spring.boot.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
