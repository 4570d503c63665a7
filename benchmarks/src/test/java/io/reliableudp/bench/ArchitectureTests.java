package io.reliableudp.bench;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.connection.MessageSession;
import io.reliableudp.testsupport.CoreModule;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks' use of the core, as ArchUnit rules over their main classes: none names a package the
 * core's module does not export (read from the core's module descriptor; on the class path, as here,
 * only these rules keep them out), with one exception, explicit and narrow: the scale benchmark's
 * {@code ClientHarness} drives many raw connections from one process, without a node per client, so it
 * may use the connection layer's {@link Connection}, {@link ConnectionSettings} and {@link MessageSession}
 * (its contract with the transport, which the harness stands in for) and nothing else of it.
 */
@AnalyzeClasses(packages = "io.reliableudp.bench", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTests {

    /** The core's packages its module descriptor does not export. */
    private static final Set<String> CORE_NOT_EXPORTED = CoreModule.notExported();

    /** The scale benchmark's client harness and its nested classes (package-private: named, not referenced). */
    private static final DescribedPredicate<JavaClass> CLIENT_HARNESS =
            nameMatching("io\\.reliableudp\\.bench\\.scale\\.ClientHarness(\\$.*)?").forSubtype();

    @ArchTest
    static final ArchRule ONLY_THE_CORES_EXPORTED_PACKAGES = noClasses()
            .that().resideInAPackage("io.reliableudp.bench..").and(not(CLIENT_HARNESS))
            .should().dependOnClassesThat().resideInAnyPackage(CORE_NOT_EXPORTED.toArray(String[]::new))
            .because("the core exports its public face only (docs/standalone.md, \"Public API\"); its "
                    + "connection layer and internal packages are its own");

    @ArchTest
    static final ArchRule THE_SCALE_CLIENT_HARNESS_ONLY_THE_CONNECTIONS_CONTRACT = noClasses()
            .that(CLIENT_HARNESS)
            .should().dependOnClassesThat(resideInAnyPackage(CORE_NOT_EXPORTED.toArray(String[]::new))
                    .and(not(belongToAnyOf(Connection.class, ConnectionSettings.class, MessageSession.class))))
            .because("the harness stands in for the transport, so it uses the connection layer's contract with it, "
                    + "and nothing else the core does not export");

    @Test
    void theScanSeesTheModule() {
        JavaClasses main = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.bench");
        // an empty scan, or an empty set of packages, would make the rules above pass
        assertThat(main.contain("io.reliableudp.bench.scale.ClientHarness")).isTrue();
        assertThat(main.contain(ArchitectureTests.class)).isFalse();
        assertThat(CORE_NOT_EXPORTED).contains("io.reliableudp.connection", "io.reliableudp.internal");
    }
}
