package io.reliableudp.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.spring.boot.actuate.endpoint.ReliableUdpEndpoint;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;

/**
 * The auto-configuration's runtime hints, as Spring AOT applies them when it processes an application:
 * the classes of {@code reliable-udp.types.mappings} (loaded by name), the configuration properties, the
 * failure analyzers and the actuator endpoint's answers.
 */
class ReliableUdpAutoConfigurationRuntimeHintsTests {

    public record Fix(long seq, double x) {
    }

    public record Unmapped(long seq) {
    }

    @Test
    void bothAreListedInAotFactories() {
        SpringFactoriesLoader aot = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");
        assertThat(aot.load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(ReliableUdpAutoConfigurationRuntimeHints.class);
        assertThat(aot.load(BeanFactoryInitializationAotProcessor.class)).hasAtLeastOneElementOfType(ReliableUdpTypeMappingsAotProcessor.class);
    }

    @Test
    void theFailureAnalyzersAndTheEndpointsAnswers() throws Exception {
        RuntimeHints hints = new RuntimeHints();
        new ReliableUdpAutoConfigurationRuntimeHints().registerHints(hints, getClass().getClassLoader());

        assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(ReliableUdpFailureAnalyzer.class.getDeclaredConstructor()))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(ReliableUdpNodeStartFailureAnalyzer.class)).accepts(hints);
        // the answers and what they hold, down to a peer's channels
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ReliableUdpEndpoint.NodesReport.class, "nodes")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(ReliableUdpEndpoint.PeerReport.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ReliableUdpEndpoint.ChannelReport.class, "messagesSent")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(ReliableUdpEndpoint.LinkConditionerResult.class)).accepts(hints);
    }

    @Test
    void aotProcessingRegistersTheMappedTypesAndTheProperties() {
        RuntimeHints hints = processAheadOfTime(Map.of(
                "reliable-udp.types.mappings.fix", Fix.class.getName(),
                "reliable-udp.types.mappings.gone", "com.example.NoSuchClass"));

        assertThat(RuntimeHintsPredicates.reflection().onType(Fix.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Fix.class, "seq")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Unmapped.class)).rejects(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(ReliableUdpProperties.Channel.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(ReliableUdpTypeProperties.class)).accepts(hints);
    }

    @Test
    void withoutMappingsNothingIsAddedForThem() {
        RuntimeHints hints = processAheadOfTime(Map.of());
        assertThat(RuntimeHintsPredicates.reflection().onType(Fix.class)).rejects(hints);
    }

    private static RuntimeHints processAheadOfTime(Map<String, Object> properties) {
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(ReliableUdpAutoConfigurationRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
            context.register(ReliableUdpAutoConfiguration.class);
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        }
        return generation.getRuntimeHints();
    }
}
