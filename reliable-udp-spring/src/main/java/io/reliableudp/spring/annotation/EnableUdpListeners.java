package io.reliableudp.spring.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Turns on {@link UdpMessageListener} processing in a configuration without auto-configuration. Needs a
 * {@link io.reliableudp.spring.listener.UdpListenerContainerFactory} bean named
 * {@value UdpListenerConfigUtils#DEFAULT_CONTAINER_FACTORY_BEAN_NAME} (or one named on each listener).
 * The auto-configuration does this by itself.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(UdpListenerBootstrapConfiguration.class)
public @interface EnableUdpListeners {
}
