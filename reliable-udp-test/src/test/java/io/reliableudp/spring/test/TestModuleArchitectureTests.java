package io.reliableudp.spring.test;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The architecture of {@code reliable-udp-test} as ArchUnit rules over its main classes: its packages
 * form no cycle (every package is a slice, so one added beside {@code io.reliableudp.spring.test} is
 * checked too).
 */
@AnalyzeClasses(packages = "io.reliableudp.spring.test", importOptions = ImportOption.DoNotIncludeTests.class)
class TestModuleArchitectureTests {

    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("io.reliableudp.spring.(**)")
            .should().beFreeOfCycles()
            .because("a cycle between packages makes neither understandable nor replaceable alone");

    @Test
    void theScanSeesTheModule() {
        JavaClasses test = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.spring.test");
        // an empty scan would make the rule above pass
        assertThat(test.contain(ReliableUdpTestNetwork.class)).isTrue();
        assertThat(test.contain(TestModuleArchitectureTests.class)).isFalse();
    }
}
