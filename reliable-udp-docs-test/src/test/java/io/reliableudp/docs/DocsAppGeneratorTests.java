package io.reliableudp.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The extractor takes the doc's marked snippets as written, and refuses a doc that cannot make the project. */
class DocsAppGeneratorTests {

    @Test
    void takesEachMarkedBlockAsWrittenAndNothingElse() {
        String md = """
                Some text.

                <!-- docs-app: pom.xml -->
                ```xml
                <project><version>1.0</version></project>
                ```

                ```java
                // not marked: not part of the project
                ```
                <!-- docs-app: src/test/java/a/ATest.java -->

                ```java
                class ATest { }
                ```
                """;
        Map<String, String> files = DocsAppGenerator.extract(md);
        assertThat(files).containsOnlyKeys("pom.xml", "src/test/java/a/ATest.java");
        assertThat(files.get("src/test/java/a/ATest.java")).isEqualTo("class ATest { }\n");
        DocsAppGenerator.check(files, "1.0");
        assertThatIllegalArgumentException().isThrownBy(() -> DocsAppGenerator.check(files, "2.0")).withMessageContaining("version 2.0");
    }

    @Test
    void refusesMarkersWithoutBlocksRepeatedOrEscapingPaths() {
        assertThatIllegalArgumentException().isThrownBy(() -> DocsAppGenerator.extract("<!-- docs-app: a.txt -->\ntext\n"))
                .withMessageContaining("line 1").withMessageContaining("not followed by a code block");
        assertThatIllegalArgumentException().isThrownBy(() -> DocsAppGenerator.extract(
                "<!-- docs-app: a.txt -->\n```\nx\n```\n<!-- docs-app: a.txt -->\n```\ny\n```\n")).withMessageContaining("marked twice");
        assertThatIllegalArgumentException().isThrownBy(() -> DocsAppGenerator.extract("<!-- docs-app: ../evil -->\n```\nx\n```\n"))
                .withMessageContaining("relative path");
        assertThatIllegalArgumentException().isThrownBy(() -> DocsAppGenerator.check(Map.of("pom.xml", "<version>1</version>"), "1"))
                .withMessageContaining("no test");
    }

    @Test
    void findsSourceBlocksThatNoMarkerNames() {
        String md = """
                <!-- docs-app: A.java -->

                ```java
                class A { }
                ```

                ```sh
                mvn verify
                ```

                ```java
                class NotCompiled { }
                ```
                <!-- docs-app: b.yml -->
                Text between the marker and the block ends the marker.
                ```yaml
                a: 1
                ```
                """;
        assertThat(DocsAppGenerator.unmarkedSourceBlocks(md)).containsExactly("line 11 (java)", "line 16 (yaml)");
        assertThat(DocsAppGenerator.unmarkedSourceBlocks("<!-- docs-app: a.xml -->\n```xml\n<a/>\n```\n")).isEmpty();
    }

    @Test
    void anExcerptIsLinesOfTheProjectInTheirOrder() {
        Map<String, String> files = Map.of("A.java", "class A {\n    int x;\n    int y;\n}\n");
        assertThat(DocsAppGenerator.excerptProblems("<!-- excerpt-of: doc.md -->\n```java\nclass A {\n  int y;\n\n}\n```\n", files)).isEmpty();
        assertThat(DocsAppGenerator.excerptProblems("<!-- excerpt-of: doc.md -->\n```java\nint y;\nint x;\nint z;\n```\n", files))
                .containsExactly("line 4: 'int x;' is not in the project after the excerpt's previous line", "line 5: 'int z;' is not in the project");
        assertThat(DocsAppGenerator.excerptProblems("no excerpt\n", files)).containsExactly("the page has no <!-- excerpt-of: ... --> marker");
    }

    @Test
    void theReadmeExampleIsAnExcerptOfTheGettingStartedProject() throws Exception {
        Path doc = Path.of(System.getProperty("docs.file", "../docs/getting-started.md"));
        Path readme = Path.of(System.getProperty("readme.file", "../README.md"));
        Map<String, String> files = DocsAppGenerator.extract(Files.readString(doc, StandardCharsets.UTF_8));
        assertThat(DocsAppGenerator.excerptProblems(Files.readString(readme, StandardCharsets.UTF_8), files))
                .as("README.md lines that docs/getting-started.md's project does not have").isEmpty();
    }

    @Test
    void theRealDocMakesAProjectOfThisVersion() throws Exception {
        Path doc = Path.of(System.getProperty("docs.file", "../docs/getting-started.md"));
        String markdown = Files.readString(doc, StandardCharsets.UTF_8);
        Map<String, String> files = DocsAppGenerator.extract(markdown);
        DocsAppGenerator.check(files, System.getProperty("project.version", "0.1.0-SNAPSHOT"));
        assertThat(files).containsKeys("pom.xml", "src/main/resources/application.yml");
        assertThat(files.get("pom.xml")).contains("<artifactId>reliable-udp-spring-boot-starter</artifactId>")
                .contains("<artifactId>reliable-udp-test</artifactId>");
        assertThat(files.get("src/test/java/com/example/rover/RoverStationTests.java")).contains("@InMemoryReliableUdp");
        assertThat(DocsAppGenerator.unmarkedSourceBlocks(markdown)).as("Java/XML/YAML blocks of the page that are not compiled").isEmpty();
    }

    /**
     * The page tells a reader to install the modules its project depends on; this build stages the
     * same ones for its test of the page (invoker:install installs this module's reactor dependencies,
     * with what they need, into a local repository of its own). So the three lists must be one.
     */
    @Test
    void thePageInstallsWhatItsProjectUsesAndThisBuildStagesTheSame() throws Exception {
        Path doc = Path.of(System.getProperty("docs.file", "../docs/getting-started.md"));
        Path root = Path.of(System.getProperty("repository.root", ".."));
        String markdown = Files.readString(doc, StandardCharsets.UTF_8);

        Matcher install = Pattern.compile("(?m)^\\./mvnw -B install -DskipTests -pl (\\S+) -am$").matcher(markdown);
        assertThat(install.find()).as("the page's install command").isTrue();
        Set<String> installed = new TreeSet<>(Arrays.asList(install.group(1).split(",")));
        Set<String> used = reliableUdpArtifacts(DocsAppGenerator.extract(markdown).get("pom.xml"));
        Set<String> staged = reliableUdpArtifacts(Files.readString(root.resolve("reliable-udp-docs-test/pom.xml"), StandardCharsets.UTF_8));

        assertThat(used).isNotEmpty();
        assertThat(installed).as("modules the page installs").isEqualTo(used);
        assertThat(staged).as("modules this build stages for the page's project").isEqualTo(used);
        for (String module : installed) {
            assertThat(root.resolve(module).resolve("pom.xml")).as("a module of this repository").exists();
        }
    }

    private static Set<String> reliableUdpArtifacts(String pom) {
        String dependencies = pom.substring(pom.indexOf("<dependencies>"));
        Matcher m = Pattern.compile("<groupId>io\\.reliableudp</groupId>\\s*<artifactId>([^<]+)</artifactId>").matcher(dependencies);
        Set<String> artifacts = new TreeSet<>();
        while (m.find()) {
            artifacts.add(m.group(1));
        }
        return artifacts;
    }
}
