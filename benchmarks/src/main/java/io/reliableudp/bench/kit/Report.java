package io.reliableudp.bench.kit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of one benchmark command, the same for every subcommand:
 * <pre>{"benchmark": NAME, "params": {...}, "environment": {...},
 *  "results": {SYSTEM: {FIGURE: MEDIAN, ..., "runs": [{"run": 1, FIGURE: VALUE, ...}, ...]}},
 *  "skipped": {SYSTEM: REASON}}</pre>
 * A figure's value in a system is the median over the runs that produced it (an even count: the mean of the
 * two middle values); every run's own figures are under {@code runs}. Figures are numbers; a run that failed
 * carries a text figure (e.g. {@code "loss5/error"}) instead of the numbers it could not produce.
 */
public final class Report {

    private final String benchmark;
    private final Map<String, Object> params;
    private final String started = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    /** Taken once, when the report (and so the benchmark) starts: the load average is the one at the start. */
    private final Map<String, Object> environment = environment(started);
    private final Map<String, List<Map<String, Object>>> runs = new LinkedHashMap<>();
    private final Map<String, String> skipped = new LinkedHashMap<>();

    /** A report of the benchmark {@code benchmark} run with these parameters. */
    public Report(String benchmark, Map<String, Object> params) {
        this.benchmark = benchmark;
        this.params = params;
    }

    /** The benchmark's name. */
    public String benchmark() {
        return benchmark;
    }

    /**
     * The figures of one run of one system, to fill in (created empty on first use).
     *
     * @param run the run, from 1
     */
    public Map<String, Object> run(String system, int run) {
        List<Map<String, Object>> list = runs.computeIfAbsent(system, s -> new ArrayList<>());
        while (list.size() < run) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("run", list.size() + 1);
            list.add(m);
        }
        return list.get(run - 1);
    }

    /** Records that a system was not measured, and why. */
    public void skip(String system, String reason) {
        skipped.put(system, reason);
    }

    /** The systems measured, in the order they were first reported. */
    public List<String> systems() {
        return List.copyOf(runs.keySet());
    }

    /** The median of a numeric figure of a system over the runs that have it (NaN: not had), or NaN when none has. */
    public double median(String system, String figure) {
        double[] values = runs.getOrDefault(system, List.of()).stream().map(r -> r.get(figure))
                .filter(v -> v instanceof Number).mapToDouble(v -> ((Number) v).doubleValue()).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (values.length == 0) {
            return Double.NaN;
        }
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }

    /** The whole result as maps and lists (see the class comment). */
    public Map<String, Object> toMap() {
        Map<String, Object> results = new LinkedHashMap<>();
        runs.forEach((system, list) -> {
            Map<String, Object> figures = new LinkedHashMap<>();
            for (Map<String, Object> run : list) {
                run.forEach((figure, value) -> {
                    if (!figure.equals("run") && value instanceof Number && !figures.containsKey(figure)) {
                        figures.put(figure, median(system, figure));
                    }
                });
            }
            figures.put("runs", list);
            results.put(system, figures);
        });
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("benchmark", benchmark);
        out.put("params", params);
        out.put("environment", environment);
        out.put("results", results);
        out.put("skipped", skipped);
        return out;
    }

    /** The result as one line of JSON: the last line a subcommand prints. */
    public String jsonLine() {
        return Json.write(toMap());
    }

    /** Writes {@code NAME.json} (the same JSON as {@link #jsonLine()}) into {@code dir}. */
    public Path writeJson(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(benchmark + ".json");
        Files.writeString(file, jsonLine() + "\n", StandardCharsets.UTF_8);
        return file;
    }

    private static Map<String, Object> environment(String started) {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("started", started);
        env.put("cores", Runtime.getRuntime().availableProcessors());
        env.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        env.put("load1_at_start", LoadAverage.oneMinute());
        env.put("command_line", Arrays.asList(ProcessHandle.current().info().arguments().orElse(new String[0])));
        return env;
    }
}
