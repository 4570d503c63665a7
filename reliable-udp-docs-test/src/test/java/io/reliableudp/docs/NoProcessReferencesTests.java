package io.reliableudp.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The project speaks of the product, never of how it was made: the docs, the code and its comments,
 * the test names, the build files state what the product does and why, not in which work session,
 * ticket or review finding a line came about, and they link to pages that exist (the benchmark page is
 * {@code docs/benchmarks.md}, the history of versions is {@code CHANGELOG.md}). The test walks the
 * repository's text files and fails listing every {@code file:line} that still refers to the making:
 * a numbered work session or meeting, an issue number, a review finding, the former benchmark history page
 * or the former status page, wherever it is linked from ({@link #FORBIDDEN}).
 *
 * <p>Files walked, from the repository root: {@code README.md}, {@code CHANGELOG.md}, every
 * {@code pom.xml}, {@code docs/**}{@code /*.md}, every file under {@code .ci/}, shell scripts, and under any
 * {@code src/} the {@code .java}, {@code .xml}, {@code .properties}, {@code .yml} and {@code .yaml}
 * files. Skipped: build output ({@code target/}), hidden directories other than {@code .ci/}
 * ({@code .git/}, {@code .mvn/}), and the benchmark results under {@code docs/benchmarks/} (JSON data
 * that records what a run was given).
 *
 * <p>The one exemption ({@link #isExternal}): another project's issue is a fine reference
 * (yojimbo's ticket number 74, say), so a match is allowed when the name of an external project ({@link #EXTERNAL_PROJECTS})
 * stands in the 40 characters before it on the same line, or when the line holds a URL (a link names
 * its project). Anything else is ours and must be rewritten as the current truth and its reason.
 */
class NoProcessReferencesTests {

    /** What refers to the making. "benchmarks-histor[y]" so that this file does not match itself. */
    static final Pattern FORBIDDEN = Pattern.compile(
            "(?i)\\bsessions? [0-9]+|\\bsitting|\\bissues? #?[0-9]+|\\bfindings? F[0-9]|benchmarks-histor[y]|\\bstatus\\.md");

    /** Projects whose issue numbers may be cited by name; spelled as they spell themselves. */
    static final Pattern EXTERNAL_PROJECTS = Pattern.compile(
            "\\b(LiteNetLib|kcp-go|KCP|quic-go|quiche|yojimbo|netcode|reliable\\.io|ENet|GameNetworkingSockets|Aeron|Netty"
                    + "|Spring Boot|spring-boot|Spring Framework|Micrometer|OpenJDK|JDK-[0-9]+)\\b");

    private static final int EXTERNAL_NAME_WINDOW = 40;

    private static Path root() {
        return Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
    }

    @Test
    void noFileRefersToTheMakingOfTheProduct() throws IOException {
        Path root = root();
        assertThat(root.resolve("pom.xml")).as("the repository root, %s", root).isRegularFile();
        assertThat(root.resolve("docs")).isDirectory();
        List<Path> files = textFiles(root);
        assertThat(files).as("the walk finds the docs and the sources")
                .contains(root.resolve("README.md"), root.resolve("docs/spec.md"))
                .anySatisfy(p -> assertThat(p.toString()).endsWith(".java"));
        List<String> flagged = new ArrayList<>();
        for (Path file : files) {
            flagged.addAll(flaggedLines(root.relativize(file).toString(),
                    new String(Files.readAllBytes(file), StandardCharsets.UTF_8)));
        }
        assertThat(flagged)
                .as("lines that speak of how the project was made (work sessions, meetings, issue numbers, findings, "
                        + "the former benchmark history or status page); state the current truth and its reason instead, "
                        + "or name the external project whose issue is cited (see %s)", NoProcessReferencesTests.class.getSimpleName())
                .isEmpty();
    }

    @Test
    void theRuleFlagsOurOwnReferencesAndAllowsExternalOnes() {
        // the samples are put together so that this file does not match itself
        List<String> ours = List.of(
                "as measured in session " + "16, the tail fell",
                "the third sit" + "ting of record",
                "finding F" + "3: a stalled client",
                "see docs/benchmarks-" + "history.md",
                "see docs/status" + ".md",
                "before Issue #" + "12 it was 400",
                "netcode keeps its keepalive at 10 Hz, where ours came with issue " + "14",
                "the [status page](status" + ".md)");
        List<String> fine = List.of(
                "(yojimbo issue " + "74): acks for unreliable messages",
                "as LiteNetLib issue #" + "273 explains",
                "see https://github.com/xtaci/kcp-go/issues/" + "166 for the reason",
                "a session key, the issue time of a cookie, sessions of 5 minutes");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < ours.size(); i++) {
            expected.add("x.md:" + (i + 1) + ": " + ours.get(i));
        }
        String text = String.join("\n", ours) + "\n" + String.join("\n", fine);
        assertThat(flaggedLines("x.md", text)).containsExactlyElementsOf(expected);
    }

    static List<String> flaggedLines(String name, String text) {
        List<String> flagged = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = FORBIDDEN.matcher(lines[i]);
            while (m.find()) {
                if (!isExternal(lines[i], m.start())) {
                    flagged.add(name + ":" + (i + 1) + ": " + lines[i].strip());
                    break;
                }
            }
        }
        return flagged;
    }

    /** A match cites another project: its name stands just before the match, or the line holds a URL. */
    static boolean isExternal(String line, int matchStart) {
        if (line.contains("://") || line.contains("github.com/")) {
            return true;
        }
        return EXTERNAL_PROJECTS.matcher(line.substring(Math.max(0, matchStart - EXTERNAL_NAME_WINDOW), matchStart)).find();
    }

    static List<Path> textFiles(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> walked(root.relativize(p)))
                    .sorted()
                    .toList();
        }
    }

    static boolean walked(Path relative) {
        String path = relative.toString().replace('\\', '/');
        String fileName = relative.getFileName().toString();
        for (Path segment : relative) {
            String s = segment.toString();
            if (s.equals("target") || (s.startsWith(".") && !s.equals(".ci"))) {
                return false;
            }
        }
        if (path.startsWith(".ci/")) {
            return true;
        }
        if (path.startsWith("docs/benchmarks/")) {
            return false;
        }
        if (path.equals("README.md") || path.equals("CHANGELOG.md") || fileName.equals("pom.xml") || fileName.endsWith(".sh")) {
            return true;
        }
        if (path.startsWith("docs/") && fileName.endsWith(".md")) {
            return true;
        }
        return (path.startsWith("src/") || path.contains("/src/"))
                && fileName.matches(".*\\.(java|xml|properties|ya?ml)");
    }
}
