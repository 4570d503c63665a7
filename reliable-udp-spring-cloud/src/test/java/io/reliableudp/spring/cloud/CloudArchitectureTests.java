package io.reliableudp.spring.cloud;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.reliableudp.spring.cloud.autoconfigure.ReliableUdpDiscoveryAutoConfiguration;
import org.junit.jupiter.api.Test;

/**
 * The architecture of {@code reliable-udp-spring-cloud} as ArchUnit rules over its main classes: its
 * packages (the peer groups, the auto-configuration) form no cycle. The library's and Boot module's
 * rules are their own architecture tests.
 */
@AnalyzeClasses(packages = "io.reliableudp.spring.cloud", importOptions = ImportOption.DoNotIncludeTests.class)
class CloudArchitectureTests {

    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("io.reliableudp.spring.(**)")
            .should().beFreeOfCycles()
            .because("the auto-configuration sits above the peer groups it creates, never below");

    @Test
    void theScanSeesTheModule() {
        JavaClasses cloud = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.spring.cloud");
        // an empty scan would make the rule above pass
        assertThat(cloud.contain(ReliableUdpDiscoveryAutoConfiguration.class)).isTrue();
        assertThat(cloud.contain(CloudArchitectureTests.class)).isFalse();
    }
}
