package io.reliableudp.spring;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.reliableudp.spring.archfixture.UnlistedPublicType;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.testsupport.CoreModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The rules that make {@code reliable-udp-spring} a library apart from Boot, with one public face:
 * none of its main classes names Spring Boot, nor the Boot side of this project
 * ({@code io.reliableudp.spring.boot..}); its packages form no cycle; and its public types are exactly
 * those {@code docs/spring.md} lists under "Public types" ({@link #thePublicTypesAreTheListedOnes} one
 * way, {@link #PUBLIC_TYPES_ARE_LISTED} the other, and {@link #anUnlistedPublicTypeFailsTheRule} on a
 * fixture); and none names a package the core's module does not export (read from its module
 * descriptor: on the class path only this rule keeps them out). The other rules on how Spring code may
 * use the core are {@code ArchitectureTests} of the
 * auto-configuration module, which scans both modules.
 */
@AnalyzeClasses(packages = "io.reliableudp.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class SpringLibraryArchitectureTests {

    /** A list entry: {@code - `io.reliableudp.spring.<package>.<Type>`}. */
    private static final Pattern ENTRY = Pattern.compile("^- `(io\\.reliableudp\\.spring\\.[a-z.]+\\.[A-Z]\\w*)`");

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
    private static final Set<String> CORE_NOT_EXPORTED = CoreModule.notExported();

    @ArchTest
    static final ArchRule ONLY_THE_CORES_EXPORTED_PACKAGES = noClasses()
            .that().resideInAPackage("io.reliableudp.spring..")
            .should().dependOnClassesThat().resideInAnyPackage(CORE_NOT_EXPORTED.toArray(String[]::new))
            .because("the core exports its public face only (docs/standalone.md, \"Public API\"); its "
                    + "connection layer and internal packages are its own");

    @Test
    void theCoresUnexportedPackagesAreKnown() {
        // an empty set would make the core's rule pass
        assertThat(CORE_NOT_EXPORTED).contains("io.reliableudp.connection", "io.reliableudp.internal");
    }

    @ArchTest
    static final ArchRule PUBLIC_TYPES_ARE_LISTED = classes()
            .that().resideInAPackage("io.reliableudp.spring..").and().arePublic().and().areTopLevelClasses()
            .should(beListedIn(listedPublicTypes()))
            .because("the library's public face is small and documented: a type is public because an application, "
                    + "another package of the library or the Boot module needs it, and then docs/spring.md says so");

    @Test
    void thePublicTypesAreTheListedOnes() {
        Set<String> publicTypes = mainClasses().stream()
                .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC) && c.isTopLevelClass())
                .map(JavaClass::getName).collect(Collectors.toCollection(TreeSet::new));
        Set<String> listed = listedPublicTypes();
        assertThat(listed).as("docs/spring.md, Public types, lists types that are not public (or do not exist)")
                .isSubsetOf(publicTypes);
        assertThat(listed).hasSameSizeAs(publicTypes);
    }

    @Test
    void anUnlistedPublicTypeFailsTheRule() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UnlistedPublicType.class, ReliableUdpTemplate.class);
        EvaluationResult result = PUBLIC_TYPES_ARE_LISTED.evaluate(fixture);
        assertThat(result.hasViolation()).isTrue();
        assertThat(result.getFailureReport().getDetails())
                .singleElement().asString().contains(UnlistedPublicType.class.getName()).contains("not listed");
    }

    @Test
    void theScanSeesTheModule() {
        JavaClasses spring = mainClasses();
        // an empty scan would make the rules above pass
        assertThat(spring.contain(ReliableUdpTemplate.class)).isTrue();
        assertThat(spring.contain(SpringLibraryArchitectureTests.class)).isFalse();
        assertThat(listedPublicTypes()).contains(ReliableUdpTemplate.class.getName()).hasSizeGreaterThan(20);
    }

    private static JavaClasses mainClasses() {
        return new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests()).importPackages("io.reliableudp.spring");
    }

    private static ArchCondition<JavaClass> beListedIn(Set<String> listed) {
        return new ArchCondition<>("be listed in docs/spring.md, Public types") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                if (!listed.contains(type.getName())) {
                    events.add(SimpleConditionEvent.violated(type, type.getName()
                            + " is public but not listed in docs/spring.md, Public types: make it package-private, or list it"));
                }
            }
        };
    }

    /** The entries of docs/spring.md's "Public types" section. */
    static Set<String> listedPublicTypes() {
        Path docs = Path.of("..", "docs", "spring.md");
        if (!Files.exists(docs)) {
            docs = Path.of("docs", "spring.md");
        }
        Set<String> listed = new LinkedHashSet<>();
        boolean inSection = false;
        try {
            for (String line : Files.readAllLines(docs)) {
                if (line.startsWith("## ")) {
                    inSection = line.equals("## Public types");
                    continue;
                }
                Matcher m = ENTRY.matcher(line);
                if (inSection && m.find()) {
                    listed.add(m.group(1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return listed;
    }
}
