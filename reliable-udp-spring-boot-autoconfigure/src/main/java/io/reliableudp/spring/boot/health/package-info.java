/**
 * The actuator health indicator of reliable-udp nodes: {@code UP}, {@code DEGRADED} (a configured peer away or above the RTT or loss threshold) or {@code DOWN} (socket closed).
 */
@NullMarked
package io.reliableudp.spring.boot.health;

import org.jspecify.annotations.NullMarked;
