/**
 * Auto-configuration of the reliable-udp health indicator and its thresholds ({@code reliable-udp.health.*}).
 */
@NullMarked
package io.reliableudp.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
