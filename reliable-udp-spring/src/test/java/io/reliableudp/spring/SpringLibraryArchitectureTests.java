package io.reliableudp.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import org.junit.jupiter.api.Test;

/**
 * The rule that makes {@code reliable-udp-spring} a library apart from Boot: none of its main classes
 * names Spring Boot, nor the Boot side of this project ({@code io.reliableudp.spring.boot..}). The rules
 * on how Spring code may use the core are {@code ArchitectureTests} of the auto-configuration module,
 * which scans both modules.
 */
@AnalyzeClasses(packages = "io.reliableudp.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class SpringLibraryArchitectureTests {

    @ArchTest
    static final ArchRule NO_SPRING_BOOT = noClasses()
            .that().resideInAPackage("io.reliableudp.spring..")
            .should().dependOnClassesThat().resideInAnyPackage("org.springframework.boot..", "io.reliableudp.spring.boot..")
            .because("reliable-udp-spring works without Spring Boot (plain @EnableUdpListeners); "
                    + "properties, auto-configuration and actuator live in reliable-udp-spring-boot-autoconfigure");

    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("io.reliableudp.spring.(*)..")
            .should().beFreeOfCycles()
            .because("the packages are layers: support and observation below core, core below listener, "
                    + "annotation and integration (docs/spring.md)");

    @Test
    void theScanSeesTheModule() {
        JavaClasses spring = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.spring");
        // an empty scan would make the rule above pass
        assertThat(spring.contain(ReliableUdpTemplate.class)).isTrue();
        assertThat(spring.contain(SpringLibraryArchitectureTests.class)).isFalse();
    }
}
