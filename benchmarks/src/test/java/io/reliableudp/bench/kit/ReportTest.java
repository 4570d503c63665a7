package io.reliableudp.bench.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The result format every subcommand shares: the JSON line parses as JSON with the documented shape, medians are
 * medians of the runs that have the figure, figures keep six significant digits.
 */
class ReportTest {

    @Test
    void jsonLineHasTheDocumentedShapeWithMediansAndEveryRun() throws Exception {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("loss_percent", List.of(0, 5));
        params.put("label", "quote \" backslash \\ newline \n tab \t");
        Report report = new Report("demo", params);
        double[] p99 = {30.5, 10.25, 20};
        for (int r = 1; r <= 3; r++) {
            report.run("sys", r).put("loss5/p99_ms", p99[r - 1]);
        }
        report.run("sys", 2).put("loss5/error", "peer hung");
        report.run("other", 1).put("x", 1);
        report.run("other", 2).put("x", 4);
        report.run("other", 3).put("x", Double.NaN);
        report.skip("gone", "not installed");

        JsonNode json = new ObjectMapper().readTree(report.jsonLine());
        assertThat(json.path("benchmark").asString()).isEqualTo("demo");
        assertThat(json.path("params").path("label").asString()).isEqualTo(params.get("label"));
        assertThat(json.path("params").path("loss_percent").get(1).asInt()).isEqualTo(5);
        assertThat(json.path("results").path("sys").path("loss5/p99_ms").asDouble()).isEqualTo(20);
        assertThat(json.path("results").path("sys").path("runs").size()).isEqualTo(3);
        assertThat(json.path("results").path("sys").path("runs").get(1).path("loss5/error").asString()).isEqualTo("peer hung");
        assertThat(json.path("results").path("sys").path("runs").get(0).path("run").asInt()).isEqualTo(1);
        // two numbers and a NaN: the mean of the two middle values; NaN is written as null
        assertThat(json.path("results").path("other").path("x").asDouble()).isEqualTo(2.5);
        assertThat(json.path("results").path("other").path("runs").get(2).path("x").isNull()).isTrue();
        assertThat(json.path("skipped").path("gone").asString()).isEqualTo("not installed");
        assertThat(json.path("environment").path("cores").asInt()).isPositive();
    }

    @Test
    void numbersKeepSixSignificantDigits() {
        assertThat(Json.write(List.of(1800, 0.000123456789, 123.456789, 3.0, -2.5e-9))).isEqualTo("[1800,0.000123457,123.457,3,-0.0000000025]");
    }
}
