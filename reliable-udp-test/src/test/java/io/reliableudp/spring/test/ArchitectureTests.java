package io.reliableudp.spring.test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.reliableudp.testsupport.CoreModule;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code reliable-udp-test}'s use of the core, as ArchUnit rules over its main classes: its packages form no cycle, and none names a package the
 * core's module does not export (read from the core's module descriptor; on the class path, as here,
 * only this rule keeps them out). The core's own rules are its {@code ArchitectureTest}.
 */
@AnalyzeClasses(packages = "io.reliableudp.spring.test", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTests {

    /** The core's packages its module descriptor does not export. */
    private static final Set<String> CORE_NOT_EXPORTED = CoreModule.notExported();

    @ArchTest
    static final ArchRule ONLY_THE_CORES_EXPORTED_PACKAGES = noClasses()
            .that().resideInAPackage("io.reliableudp.spring.test..")
            .should().dependOnClassesThat().resideInAnyPackage(CORE_NOT_EXPORTED.toArray(String[]::new))
            .because("the core exports its public face only (docs/standalone.md, \"Public API\"); its "
                    + "connection layer and internal packages are its own");

    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("io.reliableudp.spring.(**)")
            .should().beFreeOfCycles()
            .because("a cycle between packages makes neither understandable nor replaceable alone");

    @Test
    void theScanSeesTheModule() {
        JavaClasses main = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.spring.test");
        // an empty scan, or an empty set of packages, would make the rule above pass
        assertThat(main.contain(InMemoryReliableUdp.class)).isTrue();
        assertThat(main.contain(ArchitectureTests.class)).isFalse();
        assertThat(CORE_NOT_EXPORTED).contains("io.reliableudp.connection", "io.reliableudp.internal");
    }
}
