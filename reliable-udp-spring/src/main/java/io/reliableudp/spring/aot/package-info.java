/**
 * Ahead-of-time support: the runtime hints a native image of an application using reliable-udp needs
 * for what the library itself serializes, registered through {@code META-INF/spring/aot.factories}.
 */
@NullMarked
package io.reliableudp.spring.aot;

import org.jspecify.annotations.NullMarked;
