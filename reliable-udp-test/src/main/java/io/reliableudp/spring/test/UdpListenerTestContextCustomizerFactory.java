package io.reliableudp.spring.test;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Turns {@link UdpListenerTest} on a test class into the {@link UdpListenerTestHarness} bean (registered in
 * {@code META-INF/spring.factories} for Spring's test context framework); on a configuration class the
 * annotation's import does it.
 */
public final class UdpListenerTestContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        UdpListenerTest test = TestContextAnnotationUtils.findMergedAnnotation(testClass, UdpListenerTest.class);
        return test == null ? null : new Customizer(test.capture(), test.spy());
    }

    /** Equal for equal attributes, so contexts are cached alike. */
    private record Customizer(boolean capture, boolean spy) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
            if (context.getBeanFactory() instanceof BeanDefinitionRegistry registry) {
                UdpListenerTestHarness.Registrar.register(registry, capture, spy);
            }
        }
    }
}
