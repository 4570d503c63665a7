package io.reliableudp.bench.flood;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.ChildProcess;
import io.reliableudp.bench.kit.JavaCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Plot;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code flood} subcommand: a real client and server (two child JVMs)
 * exchange {@code --msg-rate} reliable messages/s over loopback, quiet for {@code --quiet-seconds},
 * then while {@code --flooders} child JVMs send garbage to the server's port at a paced
 * {@code --rate} datagrams/s in total for {@code --seconds}. Per server setting ({@code --dedicated}:
 * the server's {@code dedicatedSockets}) it reports the real pair's one-way delivery latency
 * (p50/p99/max) and QUEUE_FULL refusals quiet and flooded, the garbage sent, rejected by the server,
 * and the kernel's UDP receive-buffer drops over the flood ({@code /proc/net/snmp} {@code Udp:
 * RcvbufErrors} and {@code InErrors}: machine-wide, so other traffic on the machine counts too), and
 * whether the target holds: flooded p99 at most max(2 x quiet p99, quiet p99 + 5 ms) and no QUEUE_FULL.
 */
@Command(name = FloodBench.NAME, description = "a client/server pair at 2,000 msg/s while child JVMs flood the server with 200k garbage "
        + "datagrams/s: latency and QUEUE_FULL quiet vs flooded, with and without dedicated sockets")
public final class FloodBench extends BenchCommand {

    /** The subcommand's name. */
    public static final String NAME = "flood";
    private static final long SECOND = 1_000_000_000L;
    private static final Pattern FIGURE = Pattern.compile("(\\w+)=([-\\w.{}=,]+)");

    @Option(names = "--rate", defaultValue = "200000", description = "garbage datagrams per second, all flooders together (paced)")
    private double rate;
    @Option(names = "--seconds", defaultValue = "5", description = "how long the flood lasts")
    private double seconds;
    @Option(names = "--quiet-seconds", defaultValue = "5", description = "how long the pair runs before the flood (the quiet figures)")
    private double quietSeconds;
    @Option(names = "--warmup-seconds", defaultValue = "3", description = "traffic before the quiet phase, not measured (JIT)")
    private double warmupSeconds;
    @Option(names = "--msg-rate", defaultValue = "2000", description = "reliable messages per second from the client to the server")
    private double msgRate;
    @Option(names = "--size", defaultValue = "64", description = "bytes of one garbage datagram")
    private int size;
    @Option(names = "--flooders", defaultValue = "2", description = "flooder child JVMs (the rate is split among them)")
    private int flooders;
    @Option(names = "--sockets", defaultValue = "8", description = "source sockets per flooder (different source ports)")
    private int sockets;
    @Option(names = "--io-threads", defaultValue = "1", description = "the server's ioThreads")
    private int ioThreads;
    @Option(names = "--rcvbuf", defaultValue = "4194304",
            description = "the server's socketReceiveBufferSize in bytes (the kernel caps it at net.core.rmem_max)")
    private int receiveBuffer;
    @Option(names = "--dedicated", split = ",", defaultValue = "0,1", description = "server dedicatedSockets settings to run, one measurement each")
    private List<String> dedicated;
    @Option(names = "--runs", defaultValue = "1", converter = Runs.class, description = "accepted for symmetry; the flood runs once")
    private int runs;

    /**
     * Runs every setting, prints the tables and, last, the JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new FloodBench(), args);
    }

    @Override
    public String call() throws Exception {
        if (rate <= 0 || seconds <= 0 || msgRate <= 0 || flooders < 1 || sockets < 1 || size < 1) {
            throw new IllegalArgumentException("flood: --rate, --seconds, --msg-rate, --flooders, --sockets and --size must be positive");
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("garbage_rate", rate);
        params.put("flood_seconds", seconds);
        params.put("quiet_seconds", quietSeconds);
        params.put("warmup_seconds", warmupSeconds);
        params.put("msg_rate", msgRate);
        params.put("garbage_bytes", size);
        params.put("flooders", flooders);
        params.put("sockets_per_flooder", sockets);
        params.put("server_io_threads", ioThreads);
        params.put("server_rcvbuf", receiveBuffer);
        params.put("network", "loopback; server, client and flooders in separate JVMs");
        Report report = new Report(NAME, params);
        Table table = new Table("server", "quiet p50/p99/max ms", "flooded p50/p99/max ms", "QUEUE_FULL q/f",
                "garbage sent", "rejected", "kernel rcvbuf drops", "delivered", "target");
        Map<String, List<double[]>> p99Series = new LinkedHashMap<>();
        for (String d : dedicated) {
            String system = "dedicated-" + d;
            Map<String, Object> f = report.run(system, 1);
            double load = LoadAverage.oneMinute();
            System.out.printf(Locale.ROOT, "flood: server dedicatedSockets=%s, %,.0f garbage datagrams/s for %.0f s, pair at %,.0f msg/s; %s%n",
                    d, rate, seconds, msgRate, LoadAverage.describe(load));
            f.put("load1", load);
            measure(Integer.parseInt(d), f);
            String target = f.containsKey("error") ? "error" : ((Number) f.getOrDefault("target_met", 0)).intValue() == 1 ? "met" : "missed";
            table.row(system, triple(f, "quiet"), triple(f, "flood"),
                    f.getOrDefault("queue_full_quiet", "-") + "/" + f.getOrDefault("queue_full_flood", "-"),
                    f.getOrDefault("garbage_sent", "-"), f.getOrDefault("garbage_rejected_flood", "-"),
                    f.getOrDefault("kernel_rcvbuf_errors", "-"), f.getOrDefault("delivered", "-") + "/" + f.getOrDefault("sent", "-"), target);
            List<double[]> series = new ArrayList<>();
            series.add(new double[] {0, num(f, "quiet_p99_ms")});
            series.add(new double[] {1, num(f, "flood_p99_ms")});
            p99Series.put(system, series);
        }
        table.print(System.out, String.format(Locale.ROOT, "flood: %,.0f garbage datagrams/s for %.0f s while a pair exchanges %,.0f msg/s",
                rate, seconds, msgRate));
        try {
            Plot.write(out().resolve(NAME + ".png"), "Flood: delivery p99 quiet (0) and flooded (1)", "phase",
                    List.of(new Plot.Panel("p99 (ms)", true, p99Series)), 800, 500);
        } catch (IOException | RuntimeException | Error e) { // headless AWT without fonts fails with an Error
            System.out.println("could not draw the plot: " + e);
        }
        return finish(report);
    }

    private static String triple(Map<String, Object> f, String phase) {
        if (!f.containsKey(phase + "_p99_ms")) {
            return "-";
        }
        return Table.number(num(f, phase + "_p50_ms")) + " / " + Table.number(num(f, phase + "_p99_ms")) + " / "
                + Table.number(num(f, phase + "_max_ms"));
    }

    private static double num(Map<String, Object> f, String key) {
        Object v = f.get(key);
        return v instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private List<String> peer(List<String> args) {
        return JavaCommand.command(JavaCommand.currentJava(), JavaCommand.harnessClassPath(), List.of("-Xss512k"),
                FloodPeer.class.getName(), args);
    }

    private void measure(int dedicatedSockets, Map<String, Object> f) throws Exception {
        String tag = "dedicated" + dedicatedSockets;
        Path logs = out().resolve("logs");
        Files.createDirectories(logs);
        String life = String.format(Locale.ROOT, "%.0f", warmupSeconds + quietSeconds + seconds + 180);
        List<ChildProcess> floods = new ArrayList<>();
        try (ChildProcess server = ChildProcess.start("flood server", peer(List.of("server", String.valueOf(dedicatedSockets),
                String.valueOf(ioThreads), String.valueOf(receiveBuffer), life)), logs.resolve(tag + "-server.log"))) {
            String ready = server.awaitLine("READY", System.nanoTime() + 120 * SECOND);
            if (ready == null) {
                error(f, "server not ready within 120 s (see " + server.log() + ")");
                return;
            }
            String port = ready.replaceAll(".*port=(\\d+).*", "$1");
            try (ChildProcess client = ChildProcess.start("flood client", peer(List.of("client", port, String.valueOf(msgRate), life)),
                    logs.resolve(tag + "-client.log"))) {
                for (int i = 0; i < flooders; i++) {
                    floods.add(ChildProcess.start("flooder " + i, peer(List.of("flood", port, String.valueOf(rate / flooders),
                            String.valueOf(seconds), String.valueOf(size), String.valueOf(sockets), String.valueOf(17 + i))),
                            logs.resolve(tag + "-flooder" + i + ".log")));
                }
                if (client.awaitLine("READY", System.nanoTime() + 120 * SECOND) == null) {
                    error(f, "client not ready within 120 s (see " + client.log() + ")");
                    return;
                }
                for (ChildProcess fl : floods) {
                    if (fl.awaitLine("READY", System.nanoTime() + 120 * SECOND) == null) {
                        error(f, fl.name() + " not ready within 120 s (see " + fl.log() + ")");
                        return;
                    }
                }
                client.send("GO");
                if (client.awaitLine("CONNECTED", System.nanoTime() + 60 * SECOND) == null) {
                    error(f, "client did not connect within 60 s (see " + client.log() + ")");
                    return;
                }
                Thread.sleep((long) (warmupSeconds * 1000));
                client.send("PHASE 1");
                Thread.sleep((long) (quietSeconds * 1000));
                Map<String, Long> before = udpCounters();
                client.send("PHASE 2");
                server.send("PHASE 2");
                for (ChildProcess fl : floods) {
                    fl.send("GO");
                }
                long garbageSent = 0;
                double floodSeconds = 0;
                for (ChildProcess fl : floods) {
                    String sent = fl.awaitLine("SENT", System.nanoTime() + (long) ((seconds + 60) * SECOND));
                    if (sent == null) {
                        error(f, fl.name() + " did not finish (see " + fl.log() + ")");
                        return;
                    }
                    Map<String, String> s = figures(sent);
                    garbageSent += Long.parseLong(s.getOrDefault("n", "0"));
                    floodSeconds = Math.max(floodSeconds, Double.parseDouble(s.getOrDefault("seconds", "0")));
                }
                Map<String, Long> after = udpCounters();
                client.send("PHASE 3");
                server.send("PHASE 3");
                Thread.sleep(1000);
                client.send("STOP");
                String sentLine = client.awaitLine("SENT", System.nanoTime() + 120 * SECOND);
                server.send("STOP");
                String done = server.awaitLine("DONE", System.nanoTime() + 30 * SECOND);
                if (sentLine == null || done == null) {
                    error(f, "client or server did not report (see " + client.log() + ", " + server.log() + ")");
                    return;
                }
                Map<String, String> c = figures(sentLine);
                Map<String, String> s = figures(done);
                long sent = 0;
                long delivered = 0;
                for (int p = 0; p < FloodPeer.PHASES; p++) {
                    sent += Long.parseLong(c.getOrDefault("sent" + p, "0"));
                    delivered += Long.parseLong(s.getOrDefault("received" + p, "0"));
                }
                f.put("sent", sent);
                f.put("delivered", delivered);
                String[] phases = {"warmup", "quiet", "flood", "after"};
                for (int p = 1; p < 3; p++) {
                    for (String k : new String[] {"p50", "p99", "max", "avg"}) {
                        String v = s.get(k + p);
                        if (v != null) {
                            f.put(phases[p] + "_" + k + "_ms", Double.parseDouble(v));
                        }
                    }
                    f.put("messages_" + phases[p], Long.parseLong(c.getOrDefault("sent" + p, "0")));
                    f.put("queue_full_" + phases[p], Long.parseLong(c.getOrDefault("refused" + p, "0")));
                }
                long refusedAll = 0;
                for (int p = 0; p < FloodPeer.PHASES; p++) {
                    refusedAll += Long.parseLong(c.getOrDefault("refused" + p, "0"));
                }
                f.put("queue_full_total", refusedAll);
                f.put("client_drain_seconds", Double.parseDouble(c.getOrDefault("drain_seconds", "0")));
                f.put("garbage_sent", garbageSent);
                f.put("garbage_rate_reached", floodSeconds > 0 ? garbageSent / floodSeconds : 0);
                f.put("garbage_rejected_flood", Long.parseLong(s.getOrDefault("garbage_rejected_flood", "0")));
                f.put("garbage_rejected", Long.parseLong(s.getOrDefault("garbage_rejected", "0")));
                f.put("server_dropped", s.getOrDefault("dropped", ""));
                if (!before.isEmpty() && !after.isEmpty()) {
                    f.put("kernel_rcvbuf_errors", after.get("RcvbufErrors") - before.get("RcvbufErrors"));
                    f.put("kernel_in_errors", after.get("InErrors") - before.get("InErrors"));
                }
                f.put("client_state", c.getOrDefault("state", ""));
                double quiet = num(f, "quiet_p99_ms");
                double flooded = num(f, "flood_p99_ms");
                boolean met = !Double.isNaN(quiet) && !Double.isNaN(flooded) && flooded <= Math.max(2 * quiet, quiet + 5)
                        && (long) f.get("queue_full_flood") == 0;
                f.put("target_met", met ? 1 : 0);
            }
        } finally {
            for (ChildProcess fl : floods) {
                fl.close();
            }
        }
    }

    private static void error(Map<String, Object> f, String message) {
        f.put("error", message);
        System.out.println("  error: " + message);
    }

    private static Map<String, String> figures(String line) {
        Map<String, String> m = new HashMap<>();
        Matcher x = FIGURE.matcher(line);
        while (x.find()) {
            m.putIfAbsent(x.group(1), x.group(2));
        }
        return m;
    }

    /** The {@code Udp:} counters of {@code /proc/net/snmp} (machine-wide); empty where there is no such file. */
    static Map<String, Long> udpCounters() {
        Map<String, Long> m = new HashMap<>();
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).startsWith("Udp: ") && lines.get(i + 1).startsWith("Udp: ")) {
                    String[] names = lines.get(i).substring(5).trim().split("\\s+");
                    String[] values = lines.get(i + 1).substring(5).trim().split("\\s+");
                    for (int k = 0; k < names.length && k < values.length; k++) {
                        m.put(names[k], Long.parseLong(values[k]));
                    }
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return m;
    }
}
