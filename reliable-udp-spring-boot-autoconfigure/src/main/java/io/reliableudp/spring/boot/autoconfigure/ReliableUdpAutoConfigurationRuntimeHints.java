package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.spring.boot.actuate.endpoint.ReliableUdpEndpoint;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * The runtime hints of the auto-configuration (listed in {@code META-INF/spring/aot.factories}): the
 * failure analyzers of {@code spring.factories} (instantiated reflectively) and, with actuator, the JSON
 * shape of the {@code reliableudp} endpoint's answers. The configuration properties need nothing here:
 * Boot's AOT processing registers the binding of every {@code @ConfigurationProperties} bean.
 */
final class ReliableUdpAutoConfigurationRuntimeHints implements RuntimeHintsRegistrar {

    private static final String ACTUATOR_RESPONSE = "org.springframework.boot.actuate.endpoint.OperationResponseBody";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.reflection().registerType(ReliableUdpFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        hints.reflection().registerType(ReliableUdpNodeStartFailureAnalyzer.class, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
        if (ClassUtils.isPresent(ACTUATOR_RESPONSE, classLoader)) {
            new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
                    ReliableUdpEndpoint.NodesReport.class, ReliableUdpEndpoint.PeerMatches.class,
                    ReliableUdpEndpoint.DisconnectResult.class, ReliableUdpEndpoint.LinkConditionerResult.class);
        }
    }
}
