package io.reliableudp.bench.kit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The {@code report} subcommand: writes the benchmark tables of {@code docs/benchmarks.md} and the headline
 * table of {@code README.md} from the JSON result files under {@code docs/benchmarks/}, between
 * generated-region markers, so that the documents cannot drift from the measurements.
 *
 * <p>A region is {@code <!-- generated: SPEC -->} ... {@code <!-- end generated -->}, both markers on
 * lines of their own; everything between them is replaced. {@code SPEC} is either the base name of one
 * result file ({@code loss}: its machine, JDK, load averages, command, median tables and a link to the
 * plot stored beside it; every run stays in the JSON) or {@code headline NAME...} (the README's comparison: this library
 * against every baseline of each named file). A subcommand writes {@code DIR/NAME.json} and
 * {@code DIR/NAME.png} with the names the documents use ({@code loss}, {@code throughput}, ...), so a new
 * run replaces the files in {@code docs/benchmarks/} and {@code report} rewrites the tables.
 * {@code --check} rewrites nothing and exits 1 when a region differs from what its JSON gives (the
 * benchmarks module's {@code GeneratedDocsTest} does the same in the build).
 */
public final class DocsReport {

    /** The opening marker; group 1 is the spec. */
    static final Pattern OPEN = Pattern.compile("^<!-- generated: (.+?) -->$");
    static final String CLOSE = "<!-- end generated -->";
    /** The documents whose regions are generated, relative to the repository root. */
    static final List<String> DOCUMENTS = List.of("docs/benchmarks.md", "README.md");
    static final String RESULTS_DIR = "docs/benchmarks";

    private DocsReport() {
    }

    /** {@code report [--root DIR] [--check]}; exit status 1 when {@code --check} finds a stale region. */
    public static void main(String[] args) {
        int status = BenchCommand.commandLine(new Command()).execute(args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** The {@code report} subcommand. */
    @CommandLine.Command(name = "report", description = "rewrite the generated tables of docs/benchmarks.md and README.md from "
            + "docs/benchmarks/*.json (--check: only compare)")
    public static final class Command implements Callable<Integer> {

        @Option(names = "--help", usageHelp = true, description = "this list of options")
        private boolean help;

        @Option(names = "--root", paramLabel = "DIR", defaultValue = ".", description = "the repository's root")
        private Path root;

        @Option(names = "--check", description = "rewrite nothing; exit status 1 when a region differs from what its JSON gives")
        private boolean check;

        @Override
        public Integer call() throws IOException {
            List<String> stale = new ArrayList<>();
            for (String doc : DOCUMENTS) {
                Path file = root.resolve(doc);
                if (!Files.exists(file)) {
                    continue;
                }
                String text = Files.readString(file, StandardCharsets.UTF_8);
                String regenerated = regenerate(text, root, doc);
                if (!regenerated.equals(text)) {
                    stale.add(doc);
                    if (!check) {
                        Files.writeString(file, regenerated, StandardCharsets.UTF_8);
                    }
                }
                System.out.println(doc + ": " + regions(text).size() + " generated region(s)"
                        + (regenerated.equals(text) ? ", up to date" : check ? ", STALE" : ", rewritten"));
            }
            if (check && !stale.isEmpty()) {
                System.err.println("stale generated regions in " + stale + ": run java -jar benchmarks/target/benchmarks.jar report");
                return 1;
            }
            return 0;
        }
    }

    /** The specs of the regions of a document, in order. */
    static List<String> regions(String text) {
        List<String> specs = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            Matcher m = OPEN.matcher(line);
            if (m.matches()) {
                specs.add(m.group(1).trim());
            }
        }
        return specs;
    }

    /**
     * The document with every region's body replaced by what its spec gives now.
     *
     * @param doc the document's path relative to {@code root} (links are written relative to it)
     */
    static String regenerate(String text, Path root, String doc) throws IOException {
        String[] lines = text.split("\n", -1);
        StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher m = OPEN.matcher(line);
            if (!m.matches()) {
                out.append(line);
                if (i < lines.length - 1) {
                    out.append('\n');
                }
                continue;
            }
            int end = i + 1;
            while (end < lines.length && !lines[end].equals(CLOSE)) {
                if (OPEN.matcher(lines[end]).matches()) {
                    throw new IllegalArgumentException(doc + ":" + (end + 1) + ": a region opens inside the region of line " + (i + 1));
                }
                end++;
            }
            if (end == lines.length) {
                throw new IllegalArgumentException(doc + ":" + (i + 1) + ": region '" + m.group(1) + "' has no " + CLOSE);
            }
            out.append(line).append('\n');
            out.append(body(m.group(1).trim(), root, doc));
            out.append(CLOSE);
            if (end < lines.length - 1) {
                out.append('\n');
            }
            i = end;
        }
        return out.toString();
    }

    /** What a region's spec gives (ends with a line break). */
    static String body(String spec, Path root, String doc) throws IOException {
        String[] words = spec.split("\\s+");
        String prefix = linkPrefix(doc);
        if (words[0].equals("headline")) {
            if (words.length < 2) {
                throw new IllegalArgumentException(doc + ": 'headline' names no result file");
            }
            List<Result> results = new ArrayList<>();
            for (int i = 1; i < words.length; i++) {
                results.add(Result.load(root, words[i]));
            }
            return Headline.write(results, prefix);
        }
        if (words.length != 1) {
            throw new IllegalArgumentException(doc + ": unknown region spec '" + spec + "' (NAME or headline NAME...)");
        }
        return Tables.write(Result.load(root, words[0]), prefix);
    }

    /** The directory of the document, relative to the root ("" for README.md, "docs" for docs/x.md): links start there. */
    private static String linkPrefix(String doc) {
        Path parent = Path.of(doc).getParent();
        return parent == null ? "" : parent.toString().replace('\\', '/');
    }

    /** {@code target} (relative to the root) as a link from the directory {@code from} (relative to the root). */
    static String relative(String from, String target) {
        return from.isEmpty() ? target : Path.of(from).relativize(Path.of(target)).toString().replace('\\', '/');
    }

    // ------------------------------------------------------------------------------------------ model

    /** One result file: the JSON a subcommand wrote, with what the tables need. */
    record Result(String name, String link, boolean plot, Map<String, Object> json) {

        static Result load(Path root, String name) throws IOException {
            if (!name.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("bad result name '" + name + "'");
            }
            Path file = root.resolve(RESULTS_DIR).resolve(name + ".json");
            if (!Files.exists(file)) {
                throw new IllegalArgumentException("no result file " + RESULTS_DIR + "/" + name + ".json");
            }
            Map<String, Object> json = Json.object(Files.readString(file, StandardCharsets.UTF_8).trim());
            boolean plot = Files.exists(root.resolve(RESULTS_DIR).resolve(name + ".png"));
            return new Result(name, RESULTS_DIR + "/" + name, plot, json);
        }

        String benchmark() {
            return String.valueOf(json.get("benchmark"));
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> map(String key) {
            Object v = json.get(key);
            return v instanceof Map ? (Map<String, Object>) v : Map.of();
        }

        @SuppressWarnings("unchecked")
        Map<String, Object> system(String system) {
            Object v = map("results").get(system);
            return v instanceof Map ? (Map<String, Object>) v : Map.of();
        }

        List<String> systems() {
            return List.copyOf(map("results").keySet());
        }

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> runs(String system) {
            Object v = system(system).get("runs");
            return v instanceof List ? (List<Map<String, Object>>) v : List.of();
        }

        /** A median figure of a system (NaN when absent or not a number). */
        double figure(String system, String figure) {
            return number(system(system).get(figure));
        }

        List<?> param(String key) {
            Object v = map("params").get(key);
            return v instanceof List<?> l ? l : List.of();
        }

        /** The smallest and largest 1-minute load recorded before a measurement, over every run of every system. */
        double[] loadRange() {
            double min = Double.POSITIVE_INFINITY;
            double max = Double.NEGATIVE_INFINITY;
            for (String s : systems()) {
                for (Map<String, Object> run : runs(s)) {
                    for (Map.Entry<String, Object> e : run.entrySet()) {
                        String k = e.getKey();
                        if (isLoad(k)) {
                            double v = number(e.getValue());
                            if (!Double.isNaN(v)) {
                                min = Math.min(min, v);
                                max = Math.max(max, v);
                            }
                        }
                    }
                }
            }
            return min > max ? new double[0] : new double[] {min, max};
        }

        /** Where the JSON came from, its machine, JDK, load, command and skipped systems: one paragraph, ended by a line break. */
        String header(String prefix) {
            Map<String, Object> env = map("environment");
            StringBuilder b = new StringBuilder();
            String rel = relative(prefix, link);
            b.append("Source: [").append(rel).append(".json](").append(rel).append(".json)");
            b.append(" (`").append(benchmark()).append("`), started ").append(env.getOrDefault("started", "?"));
            b.append("; machine: ").append(env.getOrDefault("cores", "?")).append(" cores, ").append(env.getOrDefault("os", "?"));
            b.append("; JDK: ").append(env.getOrDefault("java", "?"));
            b.append("; 1-minute load average ").append(loadAverage(number(env.get("load1_at_start")))).append(" at the start");
            double[] range = loadRange();
            if (range.length == 2) {
                b.append(", ").append(loadAverage(range[0])).append("-").append(loadAverage(range[1])).append(" before the measurements");
            }
            b.append(range.length == 2 && range[1] < 0.5 ? " (quiet)" : " (**not a quiet machine**: below 0.5 before every measurement counts as quiet)");
            Object cl = env.get("command_line");
            if (cl instanceof List<?> args && !args.isEmpty()) {
                StringBuilder c = new StringBuilder("java");
                for (Object a : args) {
                    c.append(' ').append(a);
                }
                b.append(". Command: `").append(c).append('`');
            }
            b.append('.');
            Map<String, Object> skipped = map("skipped");
            if (!skipped.isEmpty()) {
                b.append(" Skipped: ");
                List<String> parts = new ArrayList<>();
                skipped.forEach((s, why) -> parts.add("`" + s + "` (" + why + ")"));
                b.append(String.join("; ", parts)).append('.');
            }
            // the table's own introduction follows on the next line, in the same paragraph
            return b.append('\n').toString();
        }

        String plotLine(String prefix) {
            return plot ? "![" + name + "](" + relative(prefix, link) + ".png)\n"
                    : "(No plot stored beside the JSON.)\n";
        }
    }

    // ------------------------------------------------------------------------------------------ tables

    /** The tables of one result file, by benchmark. */
    static final class Tables {

        private Tables() {
        }

        static String write(Result r, String prefix) {
            StringBuilder b = new StringBuilder();
            b.append("<!-- written by `java -jar benchmarks/target/benchmarks.jar report` from ").append(r.link())
                    .append(".json: edit the JSON (re-run the benchmark), not this region -->\n");
            b.append(r.header(prefix));
            switch (r.benchmark()) {
                case "throughput" -> throughput(r, b);
                case "loss" -> loss(r, b);
                case "pingpong" -> pingpong(r, b);
                default -> generic(r, b);
            }
            if (!b.toString().endsWith("\n\n")) {
                b.append('\n');
            }
            b.append(r.plotLine(prefix));
            return b.toString();
        }

        private static List<String> cells(Result r) {
            List<String> cells = new ArrayList<>();
            for (Object size : r.param("sizes_bytes")) {
                for (Object conn : r.param("connections")) {
                    cells.add(integer(size) + "B/x" + integer(conn));
                }
            }
            return cells;
        }

        private static String cellTitle(String cell) {
            String[] p = cell.split("/");
            return p[0].replace("B", " B") + " " + p[1];
        }

        private static void throughput(Result r, StringBuilder b) {
            List<String> cells = cells(r);
            List<String> reliable = new ArrayList<>();
            List<String> unreliable = new ArrayList<>();
            for (String s : r.systems()) {
                if (s.endsWith("/unreliable")) {
                    unreliable.add(s);
                } else {
                    reliable.add(s);
                }
            }
            if (!unreliable.isEmpty() && r.systems().contains("raw-udp")) {
                unreliable.add("raw-udp");
            }
            b.append("Messages delivered per second, median of the runs (raw UDP: datagrams/s; `!`: a reliable system did not deliver everything in some run):\n\n");
            medianTable(r, b, "reliable", reliable, cells);
            if (!unreliable.isEmpty()) {
                medianTable(r, b, "unreliable", unreliable, cells);
            }
            // the targets' ratios: this library against raw datagrams/s and Aeron's best mode, cell by cell
            List<String> ours = reliable.stream().filter(s -> s.startsWith("reliable-udp/")).toList();
            if (!ours.isEmpty() && r.systems().contains("raw-udp")) {
                b.append("Ratios of the medians: this library over raw UDP datagrams/s / over the better of Aeron SHARED and DEDICATED:\n\n");
                List<String> head = new ArrayList<>(List.of("system"));
                cells.forEach(cell -> head.add(cellTitle(cell)));
                MarkdownTable t = new MarkdownTable(head.toArray(String[]::new));
                for (String s : ours) {
                    List<String> row = new ArrayList<>(List.of("`" + s + "`"));
                    for (String cell : cells) {
                        double v = r.figure(s, cell + "/msgs_per_s");
                        double raw = r.figure("raw-udp", cell + "/msgs_per_s");
                        double aeron = Math.max(nanToZero(r.figure("aeron/shared", cell + "/msgs_per_s")),
                                nanToZero(r.figure("aeron/dedicated", cell + "/msgs_per_s")));
                        row.add(ratio(v, raw) + " / " + (aeron > 0 ? ratio(v, aeron) : "-"));
                    }
                    t.row(row.toArray(String[]::new));
                }
                b.append(t).append('\n');
            }
        }

        private static void medianTable(Result r, StringBuilder b, String title, List<String> systems, List<String> cells) {
            List<String> head = new ArrayList<>(List.of(title));
            for (String cell : cells) {
                head.add(cellTitle(cell));
            }
            MarkdownTable t = new MarkdownTable(head.toArray(String[]::new));
            for (String s : systems) {
                List<String> row = new ArrayList<>(List.of("`" + s + "`"));
                for (String cell : cells) {
                    boolean incomplete = !s.equals("raw-udp") && !s.endsWith("/unreliable")
                            && r.runs(s).stream().anyMatch(run -> number(run.get(cell + "/complete")) == 0);
                    row.add(format(r.figure(s, cell + "/msgs_per_s")) + (incomplete ? " !" : ""));
                }
                t.row(row.toArray(String[]::new));
            }
            b.append(t).append('\n');
        }

        private static void loss(Result r, StringBuilder b) {
            List<?> rates = r.param("loss_percent");
            if (r.map("params").get("delay_ms") instanceof List<?> delays
                    && delays.stream().anyMatch(d -> ((Number) d).doubleValue() > 0)) {
                delayedLoss(r, b, rates, delays);
                return;
            }
            b.append("Delivery latency per event, median of the runs (ms), delivered of expected, bytes on the wire per delivered event:\n\n");
            MarkdownTable t = new MarkdownTable("loss", "system", "delivered", "avg", "p50", "p90", "p99", "p99.9", "max", "bytes/event");
            for (Object rate : rates) {
                String c = "loss" + integer(rate) + "/";
                for (String s : r.systems()) {
                    if (r.system(s).get(c + "expected") == null) {
                        continue;
                    }
                    t.row(integer(rate) + "%", "`" + s + "`",
                            format(r.figure(s, c + "delivered")) + "/" + format(r.figure(s, c + "expected")),
                            format(r.figure(s, c + "avg_ms")), format(r.figure(s, c + "p50_ms")), format(r.figure(s, c + "p90_ms")),
                            format(r.figure(s, c + "p99_ms")), format(r.figure(s, c + "p99_9_ms")), format(r.figure(s, c + "max_ms")),
                            format(r.figure(s, c + "bytes_per_event")));
                }
            }
            b.append(t).append('\n');
        }

        /**
         * A run through the delay line ({@code --delay-ms}; figures keyed {@code delayDms/lossL/}, the direct
         * path {@code lossL/}): one row per delay and loss rate, one column per system.
         */
        private static void delayedLoss(Result r, StringBuilder b, List<?> rates, List<?> delays) {
            b.append("Per system: p50 / p99 / max delivery latency (ms, median of the runs), bytes on the wire per delivered event; "
                    + "`!` when not every event was delivered:\n\n");
            List<String> head = new ArrayList<>(List.of("one way", "loss"));
            r.systems().forEach(s -> head.add("`" + s + "`"));
            MarkdownTable t = new MarkdownTable(head.toArray(String[]::new));
            for (Object delay : delays) {
                double d = ((Number) delay).doubleValue();
                String ms = d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
                for (Object rate : rates) {
                    String c = (d > 0 ? "delay" + ms + "ms/" : "") + "loss" + integer(rate) + "/";
                    List<String> row = new ArrayList<>(List.of(d > 0 ? ms + " ms" : "direct", integer(rate) + "%"));
                    boolean any = false;
                    for (String s : r.systems()) {
                        if (r.system(s).get(c + "expected") == null) {
                            row.add("-");
                            continue;
                        }
                        any = true;
                        boolean all = r.figure(s, c + "delivered") >= r.figure(s, c + "expected");
                        row.add(format(r.figure(s, c + "p50_ms")) + " / " + format(r.figure(s, c + "p99_ms")) + " / "
                                + format(r.figure(s, c + "max_ms")) + ", " + format(r.figure(s, c + "bytes_per_event")) + " B"
                                + (all ? "" : " !"));
                    }
                    if (any) {
                        t.row(row.toArray(String[]::new));
                    }
                }
            }
            b.append(t).append('\n');
        }

        private static void pingpong(Result r, StringBuilder b) {
            b.append("Round trip, median of the runs (us), round trips per run, process CPU in cores:\n\n");
            MarkdownTable t = new MarkdownTable("system", "avg", "p50", "p90", "p99", "p99.9", "max", "round trips", "cpu cores");
            for (String s : r.systems()) {
                t.row("`" + s + "`", format(r.figure(s, "avg_us")), format(r.figure(s, "p50_us")), format(r.figure(s, "p90_us")),
                        format(r.figure(s, "p99_us")), format(r.figure(s, "p99_9_us")), format(r.figure(s, "max_us")),
                        format(r.figure(s, "round_trips")), format(r.figure(s, "cpu_cores")));
            }
            b.append(t).append('\n');
        }

        /**
         * The figures the page shows of a benchmark that records many: those its target, its promises and
         * its known limits are judged by. The JSON keeps every figure; the table says how many it leaves out.
         */
        static final Map<String, List<String>> SHOWN = Map.of(
                "flood", List.of("sent", "delivered", "quiet_p99_ms", "flood_p50_ms", "flood_p99_ms", "flood_max_ms",
                        "queue_full_total", "garbage_rate_reached", "garbage_rejected", "kernel_rcvbuf_errors", "client_state",
                        "target_met"),
                "scale", List.of("connected", "connect_seconds", "offered_per_s", "delivered_per_s", "server_cpu_cores",
                        "server_cpu_us_per_message", "heap_per_connection_idle_kib", "heap_per_connection_after_kib", "failed",
                        "timeouts", "connections_ended", "server_socket_drops"),
                "soak", List.of("sent", "received", "lost", "duplicated", "out_of_order", "corrupted", "msg_per_s",
                        "heap_after_gc_10pct_mib", "heap_after_gc_100pct_mib", "heap_flat", "resent", "passed"));

        /**
         * Any other benchmark (idle, outage, flood, scale, soak): one row per figure ({@link #SHOWN} where the
         * benchmark has a selection), one column per system with its median and, when it ran more than once,
         * every run's value in brackets.
         */
        private static void generic(Result r, StringBuilder b) {
            List<String> systems = r.systems();
            Set<String> figures = new LinkedHashSet<>();
            for (String s : systems) {
                for (Map<String, Object> run : r.runs(s)) {
                    run.keySet().stream().filter(k -> !k.equals("run") && !isLoad(k)).forEach(figures::add);
                }
            }
            int recorded = figures.size();
            List<String> shown = SHOWN.get(r.benchmark());
            if (shown != null) {
                figures.retainAll(shown);
            }
            String selection = figures.size() < recorded
                    ? " (" + figures.size() + " of the " + recorded + " figures; the JSON has them all)" : "";
            b.append(maxRuns(r) > 1 ? "Median of the runs per system, every run in brackets" : "One run per system")
                    .append(selection).append(":\n\n");
            List<String> head = new ArrayList<>(List.of("figure"));
            systems.forEach(s -> head.add("`" + s + "`"));
            MarkdownTable t = new MarkdownTable(head.toArray(String[]::new));
            for (String f : figures) {
                List<String> row = new ArrayList<>(List.of("`" + f + "`"));
                for (String s : systems) {
                    row.add(cell(r, s, f));
                }
                t.row(row.toArray(String[]::new));
            }
            b.append(t);
        }

        /** A system's figure: the median (or the one run's text), then every run's value when there are several. */
        private static String cell(Result r, String system, String figure) {
            List<String> values = new ArrayList<>();
            for (Map<String, Object> run : r.runs(system)) {
                Object v = run.get(figure);
                values.add(v instanceof Number ? format(number(v)) : v == null ? "-" : String.valueOf(v));
            }
            if (values.isEmpty() || values.stream().allMatch("-"::equals)) {
                return "";
            }
            double median = r.figure(system, figure);
            if (values.size() == 1) {
                return values.get(0);
            }
            return (Double.isNaN(median) ? "-" : format(median)) + " (" + String.join(" / ", values) + ")";
        }

        private static int maxRuns(Result r) {
            int n = 0;
            for (String s : r.systems()) {
                n = Math.max(n, r.runs(s).size());
            }
            return n;
        }
    }

    /** The README's comparison: this library against each baseline of the named result files. */
    static final class Headline {

        private Headline() {
        }

        static String write(List<Result> results, String prefix) {
            StringBuilder b = new StringBuilder();
            b.append("<!-- written by `java -jar benchmarks/target/benchmarks.jar report` from the result files named above -->\n\n");
            for (Result r : results) {
                switch (r.benchmark()) {
                    case "loss" -> loss(r, b, prefix);
                    case "throughput" -> throughput(r, b, prefix);
                    case "pingpong" -> pingpong(r, b, prefix);
                    default -> throw new IllegalArgumentException("no headline for benchmark '" + r.benchmark() + "' (" + r.name() + ")");
                }
            }
            return b.toString();
        }

        private static String source(Result r, String prefix) {
            double[] range = r.loadRange();
            Map<String, Object> env = r.map("environment");
            return "[" + r.name() + "](" + relative(prefix, r.link()) + ".json), " + env.getOrDefault("started", "?")
                    + (range.length == 2 ? ", 1-minute load " + loadAverage(range[0]) + "-" + loadAverage(range[1]) : "");
        }

        private static void loss(Result r, StringBuilder b, String prefix) {
            List<String> systems = r.systems();
            List<String> head = new ArrayList<>(List.of("loss"));
            for (String s : systems) {
                head.add(s + " p99 / max");
            }
            MarkdownTable t = new MarkdownTable(head.toArray(String[]::new));
            for (Object rate : r.param("loss_percent")) {
                String c = "loss" + integer(rate) + "/";
                List<String> row = new ArrayList<>(List.of(integer(rate) + "%"));
                for (String s : systems) {
                    String cell = format(r.figure(s, c + "p99_ms")) + " / " + format(r.figure(s, c + "max_ms")) + " ms";
                    row.add(s.startsWith("reliable-udp") ? "**" + cell + "**" : cell);
                }
                t.row(row.toArray(String[]::new));
            }
            b.append("Delivery latency of a ").append(integer(r.map("params").get("rate_hz"))).append(" Hz stream of ")
                    .append(integer(r.map("params").get("event_bytes"))).append("-byte events through random loss (")
                    .append(source(r, prefix)).append("):\n\n").append(t).append('\n');
        }

        private static void throughput(Result r, StringBuilder b, String prefix) {
            // a run with --port plain,batched names this library's systems NAME@plain and NAME@batched: the
            // plain port is the default one, so its figures go where a single-port run's would, the batched
            // port's in columns of their own
            String send = ours(r, "reliable-udp/send");
            String offer = ours(r, "reliable-udp/offer");
            boolean batched = r.systems().contains("reliable-udp/send@batched") || r.systems().contains("reliable-udp/offer@batched");
            List<String> head = new ArrayList<>(List.of("size", "connections", "reliable-udp `send`", "`offer`"));
            if (batched) {
                head.addAll(List.of("`send`, batched port", "`offer`, batched port"));
            }
            head.addAll(List.of("raw UDP datagrams/s", "Aeron best", "`send` / raw", "`send` / Aeron best"));
            MarkdownTable t = new MarkdownTable(head.toArray(String[]::new));
            for (Object size : r.param("sizes_bytes")) {
                for (Object conn : r.param("connections")) {
                    String cell = integer(size) + "B/x" + integer(conn) + "/msgs_per_s";
                    double sent = r.figure(send, cell);
                    double raw = r.figure("raw-udp", cell);
                    double aeron = Math.max(nanToZero(r.figure("aeron/shared", cell)), nanToZero(r.figure("aeron/dedicated", cell)));
                    List<String> row = new ArrayList<>(List.of(integer(size) + " B", integer(conn), format(sent), format(r.figure(offer, cell))));
                    if (batched) {
                        row.add(format(r.figure("reliable-udp/send@batched", cell)));
                        row.add(format(r.figure("reliable-udp/offer@batched", cell)));
                    }
                    row.addAll(List.of(format(raw), aeron > 0 ? format(aeron) : "-", ratio(sent, raw), aeron > 0 ? ratio(sent, aeron) : "-"));
                    t.row(row.toArray(String[]::new));
                }
            }
            b.append("Reliable-ordered messages per second over loopback, medians (").append(source(r, prefix)).append("):\n\n")
                    .append(t).append('\n');
        }

        /** This library's system {@code base} in {@code r}: itself, or its plain-port variant in a run of both ports. */
        private static String ours(Result r, String base) {
            return r.systems().contains(base) || !r.systems().contains(base + "@plain") ? base : base + "@plain";
        }

        private static void pingpong(Result r, StringBuilder b, String prefix) {
            MarkdownTable t = new MarkdownTable("system", "p50 us", "p99 us", "p99.9 us");
            for (String s : r.systems()) {
                t.row("`" + s + "`", format(r.figure(s, "p50_us")), format(r.figure(s, "p99_us")), format(r.figure(s, "p99_9_us")));
            }
            b.append("Ping-pong round trip, medians (").append(source(r, prefix)).append("):\n\n").append(t).append('\n');
        }
    }

    // ------------------------------------------------------------------------------------------ values

    /** A 1-minute load average recorded before a measurement: summed up in the source line, not a figure row. */
    static boolean isLoad(String figure) {
        return figure.equals("load1") || figure.endsWith("/load1") || figure.equals("load_average");
    }

    static double number(Object v) {
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static double nanToZero(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    private static String integer(Object v) {
        return v instanceof Number n ? Long.toString(n.longValue()) : String.valueOf(v);
    }

    private static String ratio(double v, double base) {
        return Double.isNaN(v) || Double.isNaN(base) || base <= 0 ? "-" : String.format(Locale.ROOT, "%.2fx", v / base);
    }

    /** A load average: two decimals. */
    static String loadAverage(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    /** A figure as the documents write them: grouped integers from 100, else three significant digits (0.xyz below 1). */
    static String format(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (v == Math.rint(v)) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** A Markdown table. */
    static final class MarkdownTable {
        private final String[] head;
        private final List<String[]> rows = new ArrayList<>();

        MarkdownTable(String... head) {
            this.head = head;
        }

        void row(String... cells) {
            rows.add(cells);
        }

        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            b.append("| ").append(String.join(" | ", head)).append(" |\n|");
            b.append("---|".repeat(head.length)).append('\n');
            for (String[] r : rows) {
                b.append("| ").append(String.join(" | ", r)).append(" |\n");
            }
            return b.toString();
        }
    }

    /** For tests: the regions of the documents under {@code root} whose text is not what their JSON gives. */
    public static Map<String, List<String>> staleRegions(Path root) throws IOException {
        Map<String, List<String>> stale = new LinkedHashMap<>();
        for (String doc : DOCUMENTS) {
            Path file = root.resolve(doc);
            if (!Files.exists(file)) {
                continue;
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            List<String> specs = regions(text);
            String[] now = regenerate(text, root, doc).split("\n", -1);
            String[] was = text.split("\n", -1);
            // compare region by region, so that the failure names the stale ones
            List<String> bad = new ArrayList<>();
            List<String> nowBodies = bodies(now);
            List<String> wasBodies = bodies(was);
            for (int i = 0; i < specs.size(); i++) {
                if (!nowBodies.get(i).equals(wasBodies.get(i))) {
                    bad.add(specs.get(i));
                }
            }
            if (!bad.isEmpty()) {
                stale.put(doc, bad);
            }
        }
        return stale;
    }

    private static List<String> bodies(String[] lines) {
        List<String> bodies = new ArrayList<>();
        StringBuilder cur = null;
        for (String line : lines) {
            if (cur == null) {
                if (OPEN.matcher(line).matches()) {
                    cur = new StringBuilder();
                }
            } else if (line.equals(CLOSE)) {
                bodies.add(cur.toString());
                cur = null;
            } else {
                cur.append(line).append('\n');
            }
        }
        return bodies;
    }
}
