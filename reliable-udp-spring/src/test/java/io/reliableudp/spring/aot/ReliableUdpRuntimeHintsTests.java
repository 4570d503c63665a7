package io.reliableudp.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.listener.UdpListenerFailure;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.javapoet.ClassName;
import org.springframework.messaging.handler.annotation.Header;

/**
 * What Spring AOT registers for an application of the library: the hints of {@code aot.factories}, and
 * for a {@code @UdpMessageListener} bean its method (invoked reflectively by the container) and the JSON
 * binding of its payload and reply types.
 */
class ReliableUdpRuntimeHintsTests {

    record Fix(long seq, double x) {
    }

    record Receipt(long seq, String from) {
    }

    static class Listener {
        @UdpMessageListener(id = "fixes", channels = "events")
        Receipt onFix(Fix fix, @Header(ReliableUdpHeaders.PEER_NAME) String from) {
            return new Receipt(fix.seq(), from);
        }
    }

    @Test
    void theRegistrarIsListedInAotFactories() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                .load(RuntimeHintsRegistrar.class)).hasAtLeastOneElementOfType(ReliableUdpRuntimeHints.class);
    }

    @Test
    void theFailureReplyCanBeWrittenAsJson() {
        RuntimeHints hints = new RuntimeHints();
        new ReliableUdpRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertThat(RuntimeHintsPredicates.reflection().onType(UdpListenerFailure.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(UdpListenerFailure.class, "listenerId")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(UdpListenerFailure.class, "exceptionClass")).accepts(hints);
    }

    @Test
    void aotProcessingOfAnApplicationRegistersItsListenerMethodsAndPayloads() throws Exception {
        RuntimeHints hints = processAheadOfTime(Listener.class);

        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listener.class.getDeclaredMethod("onFix", Fix.class, String.class)))
                .accepts(hints);
        // the payload is read from JSON and the reply written as JSON
        assertThat(RuntimeHintsPredicates.reflection().onType(Fix.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Fix.class, "seq")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Receipt.class, "from")).accepts(hints);
        // and what aot.factories adds
        assertThat(RuntimeHintsPredicates.reflection().onType(UdpListenerFailure.class)).accepts(hints);
    }

    private static RuntimeHints processAheadOfTime(Class<?> bean) {
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(ReliableUdpRuntimeHintsTests.class)), new InMemoryGeneratedFiles());
        try (GenericApplicationContext context = new GenericApplicationContext()) {
            context.registerBean(bean);
            new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        }
        return generation.getRuntimeHints();
    }
}
