/**
 * Spring Boot auto-configuration of reliable-udp: properties, the managed node, listener infrastructure, Spring Integration and observation wiring.
 */
@NullMarked
package io.reliableudp.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
