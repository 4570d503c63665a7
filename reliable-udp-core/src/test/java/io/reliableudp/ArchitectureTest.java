package io.reliableudp;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
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
import io.reliableudp.link.UndocumentedPublicType;
import io.reliableudp.packet.archfixture.CoreNamingALibrary;
import io.reliableudp.packet.archfixture.PacketLayerReachingUp;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The core's architecture as ArchUnit rules over its main classes (test classes are not scanned):
 * the layers point down only ({@code transport -> connection -> message -> packet}, {@code link} on its
 * own), the shared packages (the root package, {@code internal}) depend on nothing of ours, and the core
 * names nothing but the JDK and jspecify. The public face: the module descriptor exports exactly the
 * packages docs/standalone.md's "Public API" heads, and the public top-level types of those packages are
 * exactly the ones its tables list (the page is read, so the page and the code cannot drift apart). The
 * Spring module's rules are its {@code ArchitectureTests}. {@link #theLayerRuleReportsAWrongImport},
 * {@link #theLibraryRuleReportsAForeignType} and {@link #thePublicFaceRuleReportsAnUndocumentedPublicType}
 * show on fixtures (test classes, outside the real scan) that a wrong import or an extra public type fails
 * the rules.
 */
@AnalyzeClasses(packages = "io.reliableudp", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    /** The root package (the reasons and {@link InvalidConfigurationException}) and the codecs: below every layer. */
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

    /** Per exported package, the public types docs/standalone.md lists. */
    private static final Map<String, Set<String>> DOCUMENTED = documentedPublicApi();

    @ArchTest
    static final ArchRule PUBLIC_TYPES_OF_EXPORTED_PACKAGES_ARE_DOCUMENTED = classes()
            .that().arePublic().and().areTopLevelClasses()
            .and().resideInAnyPackage(DOCUMENTED.keySet().toArray(String[]::new))
            .and().doNotHaveSimpleName("package-info")
            .should(beListedIn(DOCUMENTED))
            .because("the core's public face is the list in docs/standalone.md (\"Public API\"): a type users do "
                    + "not need is package-private, or lives in a package the module does not export");

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

    @Test
    void theModuleExportsExactlyThePackagesTheDocsHead() {
        assertThat(DOCUMENTED).as("packages headed in docs/standalone.md's Public API").isNotEmpty();
        assertThat(coreModule().exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()))
                .as("the packages module-info.java exports").isEqualTo(DOCUMENTED.keySet());
        assertThat(coreModule().exports()).as("exported to everyone").allSatisfy(e -> assertThat(e.isQualified()).isFalse());
    }

    @Test
    void everyDocumentedTypeIsAPublicTopLevelTypeOfItsPackage() {
        JavaClasses core = mainClasses();
        DOCUMENTED.forEach((pkg, names) -> names.forEach(name -> {
            assertThat(core.contain(name)).as("%s, listed in docs/standalone.md, exists", name).isTrue();
            JavaClass type = core.get(name);
            assertThat(type.getModifiers()).as("%s is public", name).contains(JavaModifier.PUBLIC);
            assertThat(type.isTopLevelClass()).as("%s is a top-level type", name).isTrue();
        }));
    }

    @Test
    void thePublicFaceRuleReportsAnUndocumentedPublicType() {
        JavaClasses fixture = new ClassFileImporter().importClasses(UndocumentedPublicType.class, ReliableUdpNode.class);
        EvaluationResult result = PUBLIC_TYPES_OF_EXPORTED_PACKAGES_ARE_DOCUMENTED.evaluate(fixture);
        assertThat(result.getFailureReport().getDetails())
                .singleElement().asString().contains(UndocumentedPublicType.class.getName());
    }

    private static ArchCondition<JavaClass> beListedIn(Map<String, Set<String>> documented) {
        return new ArchCondition<>("be listed in docs/standalone.md") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                boolean listed = documented.getOrDefault(type.getPackageName(), Set.of()).contains(type.getName());
                events.add(new SimpleConditionEvent(type, listed,
                        type.getName() + (listed ? " is" : " is not") + " listed in docs/standalone.md"));
            }
        };
    }

    /**
     * docs/standalone.md from "## Public API" to the end: each "### `package`" heading names an exported
     * package, and the backquoted names in the first cell of the table rows below it are its public types.
     */
    static Map<String, Set<String>> documentedPublicApi() {
        Pattern heading = Pattern.compile("^### `(io\\.reliableudp[\\w.]*)`\\s*$");
        Pattern row = Pattern.compile("^\\| ([^|]+) \\|");
        Pattern name = Pattern.compile("`([A-Z]\\w*)`");
        String page = standaloneMd();
        int start = page.indexOf("\n## Public API\n");
        assertThat(start).as("docs/standalone.md has a \"Public API\" section").isNotNegative();
        Map<String, Set<String>> api = new TreeMap<>();
        String pkg = null;
        for (String line : page.substring(start).split("\n")) {
            Matcher h = heading.matcher(line);
            Matcher r = row.matcher(line);
            if (h.matches()) {
                pkg = h.group(1);
                api.put(pkg, new TreeSet<>());
            } else if (pkg != null && r.find() && !line.startsWith("| type ")) {
                Matcher n = name.matcher(r.group(1));
                while (n.find()) {
                    api.get(pkg).add(pkg + "." + n.group(1));
                }
            }
        }
        return api;
    }

    private static String standaloneMd() {
        for (Path p : List.of(Path.of("docs", "standalone.md"), Path.of("..", "docs", "standalone.md"))) {
            if (Files.isRegularFile(p)) {
                try {
                    return Files.readString(p, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new AssertionError("docs/standalone.md not found from " + Path.of("").toAbsolutePath());
    }

    /** The core's module descriptor, from where its classes are (the classes directory or the jar). */
    private static ModuleDescriptor coreModule() {
        try {
            Path classes = Path.of(ReliableUdpNode.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return ModuleFinder.of(classes).findAll().iterator().next().descriptor();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JavaClasses mainClasses() {
        return new ClassFileImporter().withImportOption(new ImportOption.DoNotIncludeTests()).importPackages("io.reliableudp");
    }
}
