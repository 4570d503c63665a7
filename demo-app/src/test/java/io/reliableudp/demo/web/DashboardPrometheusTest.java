package io.reliableudp.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Grafana dashboard ({@code docs/grafana/reliable-udp.json}) against a real Prometheus (Debian's
 * {@code prometheus} package): starts the demo and a Prometheus of its own (temporary config and data
 * directory, a free port, scraping the demo's {@code /actuator/prometheus} every second), drives a short
 * scenario through the demo (clean links; rover-1 at 15 % loss and 60 ms; rover-3 killed and restarted),
 * runs every query of every panel through Prometheus's HTTP API and fails on a query that errors or
 * returns no series. The answers (range queries over the scenario) go to
 * {@code target/prometheus-answers.json} and {@link DashboardRenderer} draws the panels from them into
 * {@code target/reliable-udp.png} ({@code -Ddashboard.png=docs/grafana/reliable-udp.png} refreshes the
 * docs' picture). Skipped, saying why, when prometheus is not installed.
 */
@Timeout(150)
class DashboardPrometheusTest {

    static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
    static final Path DASHBOARD = Path.of("..", "docs", "grafana", "reliable-udp.json");
    /** Grafana's {@code $__rate_interval} would be 4 x the 1 s scrape interval; 10 s smooths the picture (docs/demo.md). */
    static final String RATE_INTERVAL = "10s";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void everyDashboardQueryAnswersWithSeries() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PROMETHEUS),
                "SKIPPED: the dashboard test needs Debian's prometheus (/usr/bin/prometheus): apt-get install prometheus"
                        + " (.ci/run installs it when it runs as root)");
        JsonNode dashboard = JSON.readTree(Files.readString(DASHBOARD));
        Path dir = Files.createTempDirectory("demo-prometheus-");
        Process prometheus = null;
        try (RunningDemo demo = new RunningDemo("--demo.status-interval=10s")) {
            int port = freeTcpPort();
            String scrapeTarget = demo.url.replace("http://", "").replace("/", "");
            Files.writeString(dir.resolve("prometheus.yml"), """
                    # written by DashboardPrometheusTest: scrape the demo every second
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    scrape_configs:
                      - job_name: reliable-udp-demo
                        metrics_path: /actuator/prometheus
                        static_configs:
                          - targets: ['%s']
                    """.formatted(scrapeTarget));
            Files.createDirectories(Path.of("target"));
            prometheus = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + dir.resolve("prometheus.yml"),
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--storage.tsdb.retention.time=1h")
                    .redirectErrorStream(true).redirectOutput(Path.of("target", "prometheus.log").toFile()).start();
            String api = "http://127.0.0.1:" + port;
            awaitReady(api, prometheus);

            // the scenario (seconds after the first scrape): 0-12 clean, 12-24 rover-1 15 % loss and 60 ms,
            // 24 rover-3 killed, 30 restarted, 38 end
            double t0 = System.currentTimeMillis() / 1000.0;
            List<double[]> phases = new ArrayList<>();
            Thread.sleep(12_000);
            post(demo, "actuator/reliableudp", "{\"node\":\"rover-1\",\"latencyMillis\":60,\"jitterMillis\":10,\"lossProbability\":0.15,\"seed\":7}");
            double lossFrom = System.currentTimeMillis() / 1000.0;
            Thread.sleep(12_000);
            post(demo, "actuator/reliableudp", "{\"node\":\"rover-1\",\"latencyMillis\":20,\"jitterMillis\":5,\"lossProbability\":0.02,\"seed\":7}");
            double lossTo = System.currentTimeMillis() / 1000.0;
            post(demo, "demo/rovers/rover-3/kill", "");
            double killFrom = System.currentTimeMillis() / 1000.0;
            Thread.sleep(6_000);
            post(demo, "demo/rovers/rover-3/restart", "");
            double killTo = System.currentTimeMillis() / 1000.0;
            Thread.sleep(8_000);
            double t1 = System.currentTimeMillis() / 1000.0;
            phases.add(new double[] { lossFrom, lossTo });
            phases.add(new double[] { killFrom, killTo });

            // every target of every panel: an instant query now (must have series), a range query for the picture
            ObjectNode answers = JSON.createObjectNode();
            answers.put("start", t0).put("end", t1).put("rateInterval", RATE_INTERVAL);
            ArrayNode phaseOut = answers.putArray("phases");
            phaseOut.addObject().put("from", phases.get(0)[0]).put("to", phases.get(0)[1]).put("label", "rover-1: 15 % loss, 60 ms");
            phaseOut.addObject().put("from", phases.get(1)[0]).put("to", phases.get(1)[1]).put("label", "rover-3 killed");
            ArrayNode panelsOut = answers.putArray("panels");
            List<String> problems = new ArrayList<>();
            int queries = 0;
            for (JsonNode panel : dashboard.get("panels")) {
                ObjectNode p = panelsOut.addObject();
                p.put("title", panel.get("title").asString()).put("type", panel.get("type").asString());
                p.set("gridPos", panel.get("gridPos"));
                JsonNode unit = panel.path("fieldConfig").path("defaults").path("unit");
                p.put("unit", unit.isMissingNode() ? "short" : unit.asString());
                ArrayNode targets = p.putArray("targets");
                for (JsonNode target : panel.get("targets")) {
                    String expr = substitute(target.get("expr").asString());
                    queries++;
                    JsonNode instant = get(api + "/api/v1/query?query=" + enc(expr) + "&time=" + seconds(t1));
                    if (!"success".equals(instant.path("status").asString())) {
                        problems.add(panel.get("title").asString() + ": " + expr + " failed: " + instant);
                    } else if (instant.path("data").path("result").isEmpty()) {
                        problems.add(panel.get("title").asString() + ": " + expr + " returned no series");
                    }
                    JsonNode range = get(api + "/api/v1/query_range?query=" + enc(expr) + "&start=" + seconds(t0) + "&end=" + seconds(t1) + "&step=1");
                    ObjectNode t = targets.addObject();
                    t.put("expr", expr).put("legendFormat", target.path("legendFormat").asString(""));
                    t.set("result", range.path("data").path("result"));
                }
            }
            Path out = Path.of("target", "prometheus-answers.json");
            Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answers));
            assertThat(problems).as("dashboard queries that errored or answered without series (" + queries + " queries)").isEmpty();
            assertThat(queries).isEqualTo(18);

            Path png = Path.of("target", "reliable-udp.png");
            DashboardRenderer.render(out, png);
            assertThat(Files.size(png)).isGreaterThan(50_000);
            String docsCopy = System.getProperty("dashboard.png");
            if (docsCopy != null && !docsCopy.isBlank()) {
                Files.copy(png, Path.of(docsCopy), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            if (prometheus != null) {
                prometheus.destroy();
                prometheus.waitFor();
            }
        }
    }

    /** The dashboard's variables as Grafana sets them with All selected. */
    static String substitute(String expr) {
        return expr.replace("$__rate_interval", RATE_INTERVAL).replace("$node", ".*").replace("$peer", ".*");
    }

    private void awaitReady(String api, Process prometheus) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            if (!prometheus.isAlive()) {
                throw new AssertionError("prometheus exited with " + prometheus.exitValue() + ": " + Files.readString(Path.of("target", "prometheus.log")));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + "/-/ready")).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(200);
        }
        throw new AssertionError("prometheus not ready after 30 s");
    }

    private JsonNode get(String url) throws Exception {
        return JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString()).body());
    }

    private void post(RunningDemo demo, String path, String body) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(demo.url + path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as("POST /" + path + ": " + r.body()).isEqualTo(200);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static String seconds(double t) {
        return String.format(Locale.ROOT, "%.3f", t);
    }
}
