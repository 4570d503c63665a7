/**
 * Spring Boot auto-configuration of reliable-udp peers from Spring Cloud discovery.
 */
@NullMarked
package io.reliableudp.spring.cloud.autoconfigure;

import org.jspecify.annotations.NullMarked;
