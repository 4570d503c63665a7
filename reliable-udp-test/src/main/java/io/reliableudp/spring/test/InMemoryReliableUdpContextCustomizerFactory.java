package io.reliableudp.spring.test;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Turns {@link InMemoryReliableUdp} on a test class into the two beans of the in-memory network
 * (registered in {@code META-INF/spring.factories} for Spring's test context framework).
 */
public final class InMemoryReliableUdpContextCustomizerFactory implements ContextCustomizerFactory {

    /** Bean name of the {@link ReliableUdpTestNetwork}. */
    public static final String NETWORK_BEAN_NAME = "reliableUdpTestNetwork";

    /** Bean name of the node factory (the one the auto-configuration backs off for). */
    public static final String NODE_FACTORY_BEAN_NAME = "reliableUdpNodeFactory";

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        return TestContextAnnotationUtils.hasAnnotation(testClass, InMemoryReliableUdp.class) ? new Customizer() : null;
    }

    /** Registers the shared network and its node factory; equal to every other, so contexts are cached alike. */
    private static final class Customizer implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
            ReliableUdpTestNetwork.shared().initializer().initialize(context);
        }

        @Override
        public boolean equals(@Nullable Object other) {
            return other != null && other.getClass() == getClass();
        }

        @Override
        public int hashCode() {
            return Customizer.class.hashCode();
        }
    }
}
