package io.reliableudp.spring.boot.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Registers JSON binding hints for the classes named in {@code reliable-udp.types.mappings} (listed in
 * {@code META-INF/spring/aot.factories}): the auto-configuration loads them by name and the converter
 * reads and writes them reflectively, and only the build's configuration knows which they are. The
 * mappings are read from the environment the application is processed with, so they must be in
 * {@code application.yml} (or the profiles active at build time), not only given when the native image
 * runs. A name that is no class of the application is left to the start, which fails with a message
 * naming the property.
 */
final class ReliableUdpTypeMappingsAotProcessor implements BeanFactoryInitializationAotProcessor {

    static final String MAPPINGS = "reliable-udp.types.mappings";

    @Override
    public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(ConfigurableListableBeanFactory beanFactory) {
        Environment environment = beanFactory.getBeanProvider(Environment.class).getIfAvailable();
        if (environment == null) {
            return null;
        }
        Map<String, String> mappings = Binder.get(environment).bind(MAPPINGS, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        Set<Class<?>> types = new LinkedHashSet<>();
        for (String className : mappings.values()) {
            try {
                types.add(ClassUtils.forName(className.trim(), beanFactory.getBeanClassLoader()));
            } catch (ClassNotFoundException | LinkageError e) {
                // reported at start by the auto-configuration (InvalidReliableUdpPropertyException)
            }
        }
        if (types.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> new BindingReflectionHintsRegistrar()
                .registerReflectionHints(generationContext.getRuntimeHints().reflection(), types.toArray(Class<?>[]::new));
    }
}
