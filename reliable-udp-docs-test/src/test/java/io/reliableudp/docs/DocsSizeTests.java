package io.reliableudp.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docs are a manual: what the library does, how to use and operate it, what it promises and why, and how
 * fast it is. Such a manual stays short; a page that grows by the record of every measurement and every step
 * that led to the current design turns back into a notebook. So the pages under {@code docs/} (the
 * {@code *.md} files of that folder; the result files under {@code docs/benchmarks/} are data, not pages)
 * together stay under {@link #MAX_TOTAL_LINES}. A change that needs more room makes room: it states the
 * current truth in place of what it replaces, and leaves the history to git and the changelog.
 */
class DocsSizeTests {

    /** The most lines {@code docs/*.md} may have together. */
    static final int MAX_TOTAL_LINES = 7_450;

    private static Path root() {
        return Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
    }

    @Test
    void theDocsStayUnderTheirBound() {
        Path docs = root().resolve("docs");
        Map<String, Integer> pages = linesPerPage(docs);
        assertThat(pages).as("pages under %s", docs).containsKeys("spec.md", "benchmarks.md");
        int total = pages.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(total)
                .as("lines of docs/*.md together (per page: %s); a manual states the current truth and its reason,"
                        + " the history stays in git and CHANGELOG.md", pages)
                .isLessThanOrEqualTo(MAX_TOTAL_LINES);
    }

    @Test
    void everyPageOfTheFolderCountsWithAllItsLinesAndNothingElseDoes(@TempDir Path docs) throws IOException {
        Files.writeString(docs.resolve("a.md"), "# A\n\ntext\n", StandardCharsets.UTF_8);
        Files.writeString(docs.resolve("b.md"), "# B\nno final line break", StandardCharsets.UTF_8);
        Files.writeString(docs.resolve("notes.txt"), "1\n2\n3\n", StandardCharsets.UTF_8);
        Files.createDirectories(docs.resolve("benchmarks"));
        Files.writeString(docs.resolve("benchmarks/result.md"), "1\n2\n", StandardCharsets.UTF_8);
        assertThat(linesPerPage(docs)).containsExactly(Map.entry("a.md", 3), Map.entry("b.md", 2));
    }

    /** Lines per {@code *.md} file directly in {@code docs}, by name, in name order (as {@code wc -l} counts, plus an unterminated last line). */
    static Map<String, Integer> linesPerPage(Path docs) {
        Map<String, Integer> pages = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(docs)) {
            List<Path> md = files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().endsWith(".md")).sorted().toList();
            for (Path page : md) {
                pages.put(page.getFileName().toString(), (int) Files.readString(page, StandardCharsets.UTF_8).lines().count());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }
}
