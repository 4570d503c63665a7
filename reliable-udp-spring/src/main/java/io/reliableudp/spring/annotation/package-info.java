/**
 * The @UdpMessageListener annotation, @EnableUdpListeners and the bean post-processor that finds listener methods.
 */
@NullMarked
package io.reliableudp.spring.annotation;

import org.jspecify.annotations.NullMarked;
