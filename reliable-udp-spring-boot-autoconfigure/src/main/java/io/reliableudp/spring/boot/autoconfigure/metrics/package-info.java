/**
 * Auto-configuration of the reliable-udp Micrometer meters and their refresh interval ({@code reliable-udp.metrics.*}).
 */
@NullMarked
package io.reliableudp.spring.boot.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
