package io.reliableudp.spring.aot;

import io.reliableudp.spring.listener.UdpListenerFailure;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The runtime hints of {@code reliable-udp-spring} (registered in {@code META-INF/spring/aot.factories},
 * so Spring AOT applies them to every application that has the library): JSON binding of the payloads
 * the library itself sends ({@link UdpListenerFailure}, the error reply of a one-way message).
 *
 * <p>What the application's own classes need is registered elsewhere: the methods of
 * {@code @UdpMessageListener} beans, their payload parameters and return values by Spring's
 * {@code @MessageMapping} processing (the annotation is meta-annotated with it); classes named in
 * {@code reliable-udp.types.mappings} by the Boot auto-configuration's AOT processor. Reply types passed
 * to {@code sendAndReceive} and classes a peer names by class name from a trusted package cannot be
 * known at build time: declare them with {@code @RegisterReflectionForBinding}.
 */
public final class ReliableUdpRuntimeHints implements RuntimeHintsRegistrar {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        bindings.registerReflectionHints(hints.reflection(), UdpListenerFailure.class);
    }
}
