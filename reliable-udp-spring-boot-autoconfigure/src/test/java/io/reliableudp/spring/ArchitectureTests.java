package io.reliableudp.spring;

import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.reliableudp.spring.archfixture.SpringReachingTheConnectionLayer;
import io.reliableudp.spring.boot.autoconfigure.ReliableUdpAutoConfiguration;
import io.reliableudp.testsupport.CoreModule;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The Spring modules' side of the architecture, as ArchUnit rules over the main classes of
 * {@code reliable-udp-spring} and {@code reliable-udp-spring-boot-autoconfigure} (both on this test's
 * class path): they reach the core only through the public face (the transport's node, peer, config,
 * listener and stats, plus the message and link config and value types), never the engines below it,
 * and never a package the core's module does not export (read from its module descriptor: on the class
 * path only this rule keeps them out); inside the Boot module, Boot's layout: health, metrics and
 * the endpoint do not depend on the auto-configuration that creates them. The core's own rules are its
 * {@code ArchitectureTest}; {@code reliable-udp-spring}'s no-Boot rule is its
 * {@code SpringLibraryArchitectureTests}.
 */
@AnalyzeClasses(packages = "io.reliableudp.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTests {

    /** The core's packages its module descriptor does not export. */
    private static final Set<String> CORE_NOT_EXPORTED = CoreModule.notExported();

    @ArchTest
    static final ArchRule ONLY_THE_CORES_EXPORTED_PACKAGES = noClasses()
            .that().resideInAPackage("io.reliableudp.spring..")
            .should().dependOnClassesThat().resideInAnyPackage(CORE_NOT_EXPORTED.toArray(String[]::new))
            .because("the core exports its public face only (docs/standalone.md, \"Public API\"); its "
                    + "connection layer and internal packages are its own");

    @ArchTest
    static final ArchRule NOT_THE_PACKET_LAYER = noClasses()
            .that().resideInAPackage("io.reliableudp.spring..")
            .should().dependOnClassesThat().resideInAPackage("io.reliableudp.packet..")
            .because("packet statistics reach Spring as values of the transport's PeerStats (counters by name), "
                    + "so neither ReliableEndpoint nor PacketCounter is needed");

    @ArchTest
    static final ArchRule NOT_THE_MESSAGE_ENGINE = noClasses()
            .that().resideInAPackage("io.reliableudp.spring..")
            // by name, not class literal: these types may become package-private or be folded
            .should().dependOnClassesThat(nameMatching(
                    "io\\.reliableudp\\.message\\.(MessageEndpoint|SendHandle|DatagramSender|MessageListener|MessageAckListener)(\\$.*)?"))
            .because("the message layer's engine and its callbacks sit below the transport; "
                    + "Spring uses its config and value types only");

    @ArchTest
    static final ArchRule BOOT_LAYOUT = noClasses()
            .that().resideInAnyPackage("io.reliableudp.spring.boot.health..", "io.reliableudp.spring.boot.metrics..",
                    "io.reliableudp.spring.boot.actuate..")
            .should().dependOnClassesThat().resideInAPackage("io.reliableudp.spring.boot.autoconfigure..")
            .because("as in Boot 4's modules, the indicator, the meters and the endpoint take plain values; "
                    + "the auto-configuration (and its properties) sits above them");

    /** Every package of the library and of the Boot module is a slice of its own (boot.metrics apart from boot.autoconfigure.metrics). */
    @ArchTest
    static final ArchRule NO_PACKAGE_CYCLES = slices().matching("io.reliableudp.spring.(**)")
            .should().beFreeOfCycles()
            .because("a cycle between packages makes neither understandable nor replaceable alone");

    @Test
    void theScanSeesTheModule() {
        JavaClasses spring = new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests())
                .importPackages("io.reliableudp.spring");
        // an empty scan would make every rule above pass
        assertThat(spring.contain(ReliableUdpAutoConfiguration.class)).isTrue();
        assertThat(spring.contain(io.reliableudp.spring.core.ReliableUdpTemplate.class)).isTrue();
        assertThat(spring.contain(ArchitectureTests.class)).isFalse();
        // an empty set would make the core's rule pass
        assertThat(CORE_NOT_EXPORTED).contains("io.reliableudp.connection", "io.reliableudp.internal");
    }

    @Test
    void theCoreRuleReportsAUseOfTheConnectionLayer() {
        JavaClasses fixture = new ClassFileImporter().importClasses(SpringReachingTheConnectionLayer.class);
        assertThat(ONLY_THE_CORES_EXPORTED_PACKAGES.evaluate(fixture).getFailureReport().getDetails())
                .anySatisfy(line -> assertThat(line).contains(SpringReachingTheConnectionLayer.class.getName())
                        .contains("io.reliableudp.connection.Connection"));
    }
}
