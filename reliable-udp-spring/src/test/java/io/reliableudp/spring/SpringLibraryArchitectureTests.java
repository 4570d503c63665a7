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
import io.reliableudp.transport.ReliableUdpNode;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rule that makes {@code reliable-udp-spring} a library apart from Boot: none of its main classes
 * names Spring Boot, nor the Boot side of this project ({@code io.reliableudp.spring.boot..}); and none
 * names a package the core's module does not export (read from its module descriptor: on the class path
 * only this rule keeps them out). The other rules on how Spring code may use the core are
 * {@code ArchitectureTests} of the auto-configuration module, which scans both modules.
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

    /** The core's packages its module descriptor does not export. */
    private static final Set<String> CORE_NOT_EXPORTED = coreNotExported();

    @ArchTest
    static final ArchRule ONLY_THE_CORES_EXPORTED_PACKAGES = noClasses()
            .that().resideInAPackage("io.reliableudp.spring..")
            .should().dependOnClassesThat().resideInAnyPackage(CORE_NOT_EXPORTED.toArray(String[]::new))
            .because("the core exports its public face only (docs/standalone.md, \"Public API\"); its "
                    + "connection layer and internal packages are its own");

    @Test
    void theScanSeesTheModule() {
        JavaClasses spring = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.spring");
        // an empty scan would make the rule above pass
        assertThat(spring.contain(ReliableUdpTemplate.class)).isTrue();
        assertThat(spring.contain(SpringLibraryArchitectureTests.class)).isFalse();
        // an empty set would make the core's rule pass
        assertThat(CORE_NOT_EXPORTED).contains("io.reliableudp.connection", "io.reliableudp.internal");
    }

    /** The packages of the core's module descriptor (from its classes directory or jar) that it does not export. */
    static Set<String> coreNotExported() {
        try {
            Path core = Path.of(ReliableUdpNode.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            ModuleDescriptor module = ModuleFinder.of(core).findAll().iterator().next().descriptor();
            if (module.isAutomatic()) {
                throw new IllegalStateException("the core on the class path has no module descriptor: " + core);
            }
            Set<String> packages = new HashSet<>(module.packages());
            module.exports().forEach(e -> packages.remove(e.source()));
            return packages;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
