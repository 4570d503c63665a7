package io.reliableudp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.reliableudp.packet.archfixture.CoreNamingALibrary;
import io.reliableudp.packet.archfixture.PacketLayerReachingUp;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The core's architecture as ArchUnit rules over its main classes (test classes are not scanned):
 * the layers point down only ({@code transport -> connection -> message -> packet}, {@code link} on its
 * own), the shared packages (the root package, {@code internal}) depend on nothing of ours, and the core
 * names nothing but the JDK and jspecify. The Spring module's rules are its {@code ArchitectureTests}.
 * {@link #theLayerRuleReportsAWrongImport} and {@link #theLibraryRuleReportsAForeignType} show on fixtures
 * (test classes, outside the real scan) that a wrong import fails the rules.
 */
@AnalyzeClasses(packages = "io.reliableudp", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** The root package ({@link InvalidConfigurationException}) and the wire codec: below every layer. */
    private static final String[] SHARED = {"io.reliableudp", "io.reliableudp.internal.."};

    @ArchTest
    static final ArchRule LAYERS_POINT_DOWN_ONLY = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            // a layer without classes is no violation: the fixture check imports one class only
            .withOptionalLayers(true)
            .layer("transport").definedBy("io.reliableudp.transport..")
            .layer("connection").definedBy("io.reliableudp.connection..")
            .layer("message").definedBy("io.reliableudp.message..")
            .layer("packet").definedBy("io.reliableudp.packet..")
            .layer("link").definedBy("io.reliableudp.link..")
            .layer("shared").definedBy(SHARED)
            .whereLayer("transport").mayNotBeAccessedByAnyLayer()
            .whereLayer("connection").mayOnlyBeAccessedByLayers("transport")
            .whereLayer("message").mayOnlyBeAccessedByLayers("connection", "transport")
            .whereLayer("packet").mayOnlyBeAccessedByLayers("message", "connection", "transport")
            .whereLayer("link").mayOnlyBeAccessedByLayers("transport")
            .whereLayer("packet").mayOnlyAccessLayers("shared")
            .whereLayer("link").mayOnlyAccessLayers("shared")
            .whereLayer("shared").mayNotAccessAnyLayer()
            .because("dependencies point down only (docs/architecture.md)");

    /** No two packages depend on each other, directly or around a ring (sub-packages belong to their top package). */
    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("io.reliableudp.(*)..")
            .should().beFreeOfCycles()
            .because("a cycle between packages makes neither understandable nor replaceable alone");

    @ArchTest
    static final ArchRule THE_CORE_NAMES_ONLY_THE_JDK_AND_JSPECIFY = classes()
            .that().resideInAPackage("io.reliableudp..")
            .should().onlyDependOnClassesThat().resideInAnyPackage("io.reliableudp..", "java..", "javax..", "org.jspecify..")
            .because("the core is plain Java: no Spring, Micrometer, Jakarta or other library");

    @Test
    void everyLayerHasClassesSoTheRulesSeeThem() {
        JavaClasses core = mainClasses();
        // a renamed or moved package would leave a layer empty and its rules vacuous
        for (String layer : List.of("transport", "connection", "message", "packet", "link", "internal")) {
            assertThat(core.stream().filter(c -> c.getPackageName().equals("io.reliableudp." + layer)).count())
                    .as("classes in io.reliableudp.%s", layer).isPositive();
        }
        assertThat(core.contain(InvalidConfigurationException.class)).isTrue();
        assertThat(core.contain(PacketLayerReachingUp.class)).as("test fixtures are not scanned").isFalse();
    }

    @Test
    void theLayerRuleReportsAWrongImport() {
        JavaClasses fixture = new ClassFileImporter().importClasses(PacketLayerReachingUp.class);
        EvaluationResult result = LAYERS_POINT_DOWN_ONLY.evaluate(fixture);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .anySatisfy(line -> assertThat(line)
                        .contains(PacketLayerReachingUp.class.getName())
                        .contains("io.reliableudp.transport.NodeConfig"));
    }

    @Test
    void theLibraryRuleReportsAForeignType() {
        JavaClasses fixture = new ClassFileImporter().importClasses(CoreNamingALibrary.class);
        EvaluationResult result = THE_CORE_NAMES_ONLY_THE_JDK_AND_JSPECIFY.evaluate(fixture);
        assertThat(result.getFailureReport().getDetails())
                .anySatisfy(line -> assertThat(line).contains(CoreNamingALibrary.class.getName()).contains("org.assertj"));
    }

    private static JavaClasses mainClasses() {
        return new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests()).importPackages("io.reliableudp");
    }
}
