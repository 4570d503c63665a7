package io.reliableudp.bench.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.JacksonException;

/**
 * The benchmark documents cannot drift from their measurements: every generated region of
 * {@code docs/benchmarks.md} and {@code README.md} is what
 * {@link DocsReport} writes from its JSON now
 * (run {@code java -jar benchmarks/target/benchmarks.jar report} after a new result or a change of the
 * generator), and a region edited by hand, or a JSON changed under it, is caught.
 */
class GeneratedDocsTest {

    /** The repository root: the benchmarks module's parent (surefire runs in the module directory). */
    private static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.exists(here.resolve("docs/benchmarks.md")) ? here : here.getParent();
    }

    @Test
    void everyGeneratedRegionIsUpToDateWithItsJson() throws Exception {
        Path root = root();
        String benchmarks = Files.readString(root.resolve("docs/benchmarks.md"), StandardCharsets.UTF_8);
        String readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
        assertThat(DocsReport.regions(benchmarks)).as("generated regions of docs/benchmarks.md").isNotEmpty();
        assertThat(DocsReport.regions(readme)).as("generated regions of README.md").anyMatch(s -> s.startsWith("headline "));
        assertThat(DocsReport.staleRegions(root))
                .as("stale generated regions: run java -jar benchmarks/target/benchmarks.jar report from the repository root")
                .isEmpty();
    }

    @Test
    void everyResultFileHasItsRegion() throws Exception {
        Path root = root();
        List<String> regions = new ArrayList<>();
        for (String doc : DocsReport.DOCUMENTS) {
            regions.addAll(DocsReport.regions(Files.readString(root.resolve(doc), StandardCharsets.UTF_8)));
        }
        try (var files = Files.list(root.resolve(DocsReport.RESULTS_DIR))) {
            List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
                    .map(n -> n.substring(0, n.length() - 5)).sorted().toList();
            assertThat(regions).as("a generated region per JSON under docs/benchmarks, on one of the report's pages").containsAll(names);
        }
    }

    @Test
    void aHandEditOrAChangedJsonMakesTheRegionStale(@TempDir Path dir) throws Exception {
        Path results = Files.createDirectories(dir.resolve(DocsReport.RESULTS_DIR));
        String json = "{\"benchmark\":\"pingpong\",\"params\":{\"size_bytes\":32},\"environment\":{\"started\":\"2026-12-01T10:00Z\","
                + "\"cores\":2,\"java\":\"JDK\",\"os\":\"Linux\",\"load1_at_start\":0.2,\"command_line\":[\"-jar\",\"b.jar\",\"pingpong\"]},"
                + "\"results\":{\"raw-udp\":{\"load1\":0.2,\"p50_us\":5.5,\"p99_us\":12,\"runs\":[{\"run\":1,\"load1\":0.2,\"p50_us\":5.5,\"p99_us\":12},"
                + "{\"run\":2,\"load1\":0.3,\"p50_us\":6.25,\"p99_us\":14}]}},\"skipped\":{}}";
        Files.writeString(results.resolve("pp.json"), json);
        Path doc = Files.createDirectories(dir.resolve("docs")).resolve("benchmarks.md");
        Files.writeString(doc, "# B\n\n<!-- generated: pp -->\nold text\n<!-- end generated -->\n\nkept\n");
        Files.writeString(dir.resolve("README.md"), "# R\n");

        assertThat(DocsReport.staleRegions(dir)).containsEntry("docs/benchmarks.md", List.of("pp"));
        DocsReport.main(new String[] {"--root", dir.toString()});
        String written = Files.readString(doc);
        assertThat(DocsReport.staleRegions(dir)).isEmpty();
        // the medians, the source and its command on one line; the text outside the region is kept
        assertThat(written).contains("| `raw-udp` | - | 5.50 | - | 12 | - | - | - | - |")
                .contains("[benchmarks/pp.json](benchmarks/pp.json)").contains("Command: `java -jar b.jar pingpong`.")
                .startsWith("# B\n\n<!-- generated: pp -->\n").endsWith("<!-- end generated -->\n\nkept\n");

        Files.writeString(doc, written.replace("| 5.50 | - | 12 |", "| 4.00 | - | 12 |"));
        assertThat(DocsReport.staleRegions(dir)).as("a hand edit").containsEntry("docs/benchmarks.md", List.of("pp"));
        DocsReport.main(new String[] {"--root", dir.toString()});
        Files.writeString(results.resolve("pp.json"), json.replaceFirst("\"p50_us\":5.5", "\"p50_us\":4.5"));
        assertThat(DocsReport.staleRegions(dir)).as("a changed JSON").containsEntry("docs/benchmarks.md", List.of("pp"));
    }

    @Test
    void otherBenchmarksGiveOneRowPerFigureWithTheMedianAndEveryRun(@TempDir Path dir) throws Exception {
        Path results = Files.createDirectories(dir.resolve(DocsReport.RESULTS_DIR));
        Files.writeString(results.resolve("idle.json"), "{\"benchmark\":\"idle\",\"params\":{},\"environment\":{\"started\":\"2026-12-01T10:00Z\","
                + "\"cores\":2},\"results\":{\"a\":{\"cpu\":0.5,\"runs\":[{\"run\":1,\"cpu\":0.4,\"state\":\"UP\"},"
                + "{\"run\":2,\"cpu\":0.6,\"state\":\"UP\"}]},\"b\":{\"cpu\":2,\"runs\":[{\"run\":1,\"cpu\":2}]}},\"skipped\":{}}");
        String body = DocsReport.body("idle", dir, "docs/benchmarks.md");
        assertThat(body).contains("| figure | `a` | `b` |").contains("| `cpu` | 0.500 (0.400 / 0.600) | 2 |")
                .contains("| `state` | - (UP / UP) |  |").contains("[benchmarks/idle.json](benchmarks/idle.json)");
    }

    @Test
    void aBenchmarkWithASelectionShowsItsSelectedFiguresAndSaysHowManyItLeavesOut(@TempDir Path dir) throws Exception {
        Path results = Files.createDirectories(dir.resolve(DocsReport.RESULTS_DIR));
        Files.writeString(results.resolve("flood.json"), "{\"benchmark\":\"flood\",\"params\":{},\"environment\":{\"started\":\"2026-12-01T10:00Z\","
                + "\"cores\":2},\"results\":{\"dedicated-1\":{\"flood_p99_ms\":3.7,\"garbage_sent\":999929,\"target_met\":1,"
                + "\"runs\":[{\"run\":1,\"flood_p99_ms\":3.7,\"garbage_sent\":999929,\"target_met\":1}]}},\"skipped\":{}}");
        String body = DocsReport.body("flood", dir, "docs/benchmarks.md");
        assertThat(body).contains("One run per system (2 of the 3 figures; the JSON has them all):")
                .contains("| `flood_p99_ms` | 3.70 |").contains("| `target_met` | 1 |").doesNotContain("garbage_sent");
        assertThat(DocsReport.Tables.SHOWN).as("benchmarks whose tables show a selection").containsOnlyKeys("flood", "scale", "soak");
    }

    @Test
    void throughputShowsTheMediansAndTheRatiosPerCell(@TempDir Path dir) throws Exception {
        Path results = Files.createDirectories(dir.resolve(DocsReport.RESULTS_DIR));
        Files.writeString(results.resolve("throughput.json"), "{\"benchmark\":\"throughput\",\"params\":{\"sizes_bytes\":[32],\"connections\":[1]},"
                + "\"environment\":{\"started\":\"2026-12-01T10:00Z\",\"cores\":2},\"results\":{"
                + "\"reliable-udp/send\":{\"32B/x1/msgs_per_s\":110,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":100,\"32B/x1/complete\":1,\"32B/x1/load1\":0.1},"
                + "{\"run\":2,\"32B/x1/msgs_per_s\":120,\"32B/x1/complete\":0,\"32B/x1/load1\":0.2}]},"
                + "\"raw-udp\":{\"32B/x1/msgs_per_s\":55,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":55,\"32B/x1/load1\":0.3}]},"
                + "\"aeron/shared\":{\"32B/x1/msgs_per_s\":220,\"runs\":[{\"run\":1,\"32B/x1/error\":\"timeout\"}]}},\"skipped\":{}}");
        String body = DocsReport.body("throughput", dir, "docs/benchmarks.md");
        assertThat(body).contains("| system | 32 B x1 |").contains("| `reliable-udp/send` | 2.00x / 0.50x |")
                .contains("| `reliable-udp/send` | 110 ! |").contains("| `aeron/shared` | 220 |");
    }

    @Test
    void theHeadlineOfARunOfBothPortsShowsThePlainPortAsTheDefaultAndTheBatchedPortBesideIt(@TempDir Path dir) throws Exception {
        Path results = Files.createDirectories(dir.resolve(DocsReport.RESULTS_DIR));
        Files.writeString(results.resolve("throughput.json"), "{\"benchmark\":\"throughput\",\"params\":{\"sizes_bytes\":[32],\"connections\":[1]},"
                + "\"environment\":{\"started\":\"2026-12-01T10:00Z\",\"cores\":2},\"results\":{"
                + "\"reliable-udp/send@plain\":{\"32B/x1/msgs_per_s\":100,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":100}]},"
                + "\"reliable-udp/offer@plain\":{\"32B/x1/msgs_per_s\":130,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":130}]},"
                + "\"reliable-udp/send@batched\":{\"32B/x1/msgs_per_s\":150,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":150}]},"
                + "\"reliable-udp/offer@batched\":{\"32B/x1/msgs_per_s\":170,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":170}]},"
                + "\"raw-udp\":{\"32B/x1/msgs_per_s\":50,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":50}]},"
                + "\"aeron/shared\":{\"32B/x1/msgs_per_s\":200,\"runs\":[{\"run\":1,\"32B/x1/msgs_per_s\":200}]}},\"skipped\":{}}");
        String body = DocsReport.body("headline throughput", dir, "README.md");
        assertThat(body).contains("| size | connections | reliable-udp `send` | `offer` | `send`, batched port | `offer`, batched port |")
                .contains("| 32 B | 1 | 100 | 130 | 150 | 170 | 50 | 200 | 2.00x | 0.50x |");
    }

    @Test
    void aRegionWithoutItsEndOrJsonIsAnError(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve(DocsReport.RESULTS_DIR));
        assertThatThrownBy(() -> DocsReport.regenerate("<!-- generated: nothing -->\n<!-- end generated -->\n", dir, "README.md"))
                .hasMessageContaining("no result file docs/benchmarks/nothing.json");
        assertThatThrownBy(() -> DocsReport.regenerate("a\n<!-- generated: x -->\nb\n", dir, "README.md"))
                .hasMessageContaining("has no <!-- end generated -->");
    }

    @Test
    void theJsonReadsBackWhatItWrites() {
        Map<String, Object> back = Json.object(Json.write(Map.of("a", List.of(1, 2.5, "x\"y\n"), "b", Map.of("c", true))));
        assertThat(back.get("a")).isEqualTo(List.of(1, 2.5, "x\"y\n"));
        assertThat(back.get("b")).isEqualTo(Map.of("c", true));
        assertThatThrownBy(() -> Json.object("{\"a\":1,}")).isInstanceOf(JacksonException.class);
    }

    /** The result files behind the documents keep their shape: read and written again, every byte is the same. */
    @Test
    void theStoredResultFilesWriteBackByteForByte() throws Exception {
        Path results = root().resolve(DocsReport.RESULTS_DIR);
        List<Path> files;
        try (Stream<Path> list = Files.list(results)) {
            files = list.filter(f -> f.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        for (Path file : files) {
            String text = Files.readString(file).trim();
            assertThat(Json.write(Json.object(text))).as(file.getFileName().toString()).isEqualTo(text);
        }
    }
}
