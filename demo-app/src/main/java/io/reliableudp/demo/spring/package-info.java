/**
 * The Spring Boot demo: a station and a rover, two reliable-udp nodes in one JVM, exchanging typed events.
 */
@NullMarked
package io.reliableudp.demo.spring;

import org.jspecify.annotations.NullMarked;
