package io.reliableudp.bench.pingpong;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Plot;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.bench.systems.ChildPeers;
import io.reliableudp.bench.systems.Cpu;
import io.reliableudp.bench.systems.PeerProcess;
import io.reliableudp.bench.systems.PingPongSystem;
import io.reliableudp.bench.systems.RawUdp;
import io.reliableudp.bench.systems.SpringRoundTrip;
import io.reliableudp.bench.systems.ReliableUdp;
import io.reliableudp.bench.systems.Tcp;
import io.reliableudp.transport.ReceiveThreadMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.HdrHistogram.Histogram;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
/**
 * The {@code pingpong} subcommand: the round trip of one message echoed over loopback, one at a time,
 * for {@code --seconds} per run: this library with its defaults and with the documented low-latency
 * setting (platform I/O thread, 50 us receive busy-poll), raw UDP, TCP with {@code TCP_NODELAY}, Aeron
 * (SHARED and DEDICATED media driver, a JDK 17 child JVM) and KCP (a child JVM). Figures per run from an
 * HdrHistogram of every round trip: {@code avg_us, p50_us, p90_us, p99_us, p99_9_us, max_us},
 * {@code round_trips}, {@code cpu_cores} (process CPU during the run: this JVM's, or the child's),
 * {@code load1}; a failed or stalled run has {@code error}. {@code --variants} adds settings of this
 * library (I/O thread mode and busy-poll window).
 */
@Command(name = PingPongBench.NAME, description = "loopback round trip (p50..max) with the defaults and the low-latency setting, "
        + "beside raw UDP, TCP, Aeron and KCP")
public final class PingPongBench extends BenchCommand {

    static final String NAME = "pingpong";
    static final String SYSTEM_NAMES = "reliable-udp/defaults,reliable-udp/low-latency," + SpringRoundTrip.NAME
            + ",raw-udp,tcp,aeron/shared,aeron/dedicated,kcp";
    static final List<String> SYSTEMS = List.of(SYSTEM_NAMES.split(","));
    private static final String[] FIGURES = {"avg_us", "p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"};

    @Option(names = "--seconds", defaultValue = "5", converter = Seconds.class, description = SECONDS)
    private double seconds;
    @Option(names = "--runs", defaultValue = "3", converter = Runs.class, description = RUNS)
    private int runs;
    @Option(names = "--warmup", defaultValue = "2", description = "seconds of ping-pong per system before measuring (JIT, warm-up), 0 for none")
    private double warmup;
    @Option(names = "--size", defaultValue = "32", description = "message size in bytes")
    private int size;
    @Option(names = "--psk", description = "this library encrypted (ChaCha20-Poly1305, pre-shared key)")
    private boolean psk;
    @Option(names = "--variants", split = ",", paramLabel = "MODE:WINDOW_US", description = "more settings of this library to measure, "
            + "MODE:WINDOW_US each, e.g. virtual:50,platform:0 (the I/O thread mode and the receive busy-poll window)")
    private List<String> variantOptions = List.of();
    @Option(names = "--systems", split = ",", paramLabel = "SYSTEM", defaultValue = SYSTEM_NAMES, description = "systems to measure: " + SYSTEM_NAMES)
    private List<String> requestedSystems;
    @Mixin
    private ChildPeers.PeerOptions peerOptions = new ChildPeers.PeerOptions();
    private ChildPeers.Setup childPeers;
    private Path out;
    private final List<ReliableUdp> variants = new ArrayList<>();
    private final Map<String, String> description = new LinkedHashMap<>();

    /**
     * Runs the benchmark and prints its tables and, last, its JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new PingPongBench(), args);
    }

    @Override
    public String call() throws Exception {
        List<String> requested = systems(requestedSystems, SYSTEMS);
        childPeers = peerOptions.setup();
        out = out();
        for (String v : variantOptions) {
            String[] p = v.split(":");
            try {
                variants.add(ReliableUdp.pingPong(ReceiveThreadMode.valueOf(p[0].trim().toUpperCase(Locale.ROOT)),
                        Duration.ofNanos(Math.round(Double.parseDouble(p[1].trim()) * 1000)), psk));
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(NAME + ": --variants wants MODE:WINDOW_US items (virtual|platform), was '" + v + "'");
            }
        }
        if (size < 8 || size > 1100) {
            throw new IllegalArgumentException(NAME + ": --size must be 8..1100 bytes (one datagram), was " + size);
        }
        Files.createDirectories(out.resolve("logs"));
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("size_bytes", size);
        params.put("seconds", seconds);
        params.put("runs", runs);
        params.put("warmup_seconds", warmup);
        params.put("psk", psk);
        Report report = new Report(NAME, params);
        describeSystems();
        List<PeerProcess> started = new ArrayList<>();
        List<PingPongSystem> systems = new ArrayList<>();
        try {
            for (String name : requested) {
                Optional<String> why = childPeers.unavailable(name);
                if (why.isPresent()) {
                    System.out.println("skipping " + name + ": " + why.get());
                    report.skip(name, why.get());
                    continue;
                }
                PeerProcess child = switch (name) {
                    case "aeron/shared" -> childPeers.aeron("SHARED", out.resolve("logs"));
                    case "aeron/dedicated" -> childPeers.aeron("DEDICATED", out.resolve("logs"));
                    case "kcp" -> childPeers.kcp(out.resolve("logs"));
                    default -> null;
                };
                if (child != null) {
                    started.add(child);
                }
                systems.add(switch (name) {
                    case "reliable-udp/defaults" -> ReliableUdp.pingPongDefaults(psk);
                    case "reliable-udp/low-latency" -> ReliableUdp.pingPongLowLatency(psk);
                    case "raw-udp" -> new RawUdp();
                    case SpringRoundTrip.NAME -> new SpringRoundTrip();
                    case "tcp" -> new Tcp();
                    default -> child.pingPong(name);
                });
            }
            for (ReliableUdp v : variants) {
                systems.add(v);
                description.put(v.name(), "this library with " + v.settings() + ", otherwise as reliable-udp/defaults");
            }
            params.put("systems", systems.stream().map(PingPongSystem::name).toList());
            Map<String, String> described = new LinkedHashMap<>();
            systems.forEach(s -> described.put(s.name(), description.get(s.name())));
            params.put("descriptions", described);
            System.out.printf(Locale.ROOT, "ping-pong benchmark: %d-byte messages, %.1f s per run, %d run(s), warm-up %.1f s, out %s%n",
                    size, seconds, runs, warmup, out);
            systems.forEach(s -> System.out.println("  " + s.name() + ": " + description.get(s.name())));
            System.out.println(LoadAverage.describe(LoadAverage.oneMinute()));
            if (warmup > 0) {
                for (PingPongSystem s : systems) {
                    try {
                        s.measure(size, warmup);
                    } catch (Exception e) {
                        System.out.println("warm-up of " + s.name() + " failed: " + e.getMessage());
                    }
                }
            }
            for (int run = 1; run <= runs; run++) {
                for (PingPongSystem s : systems) {
                    measure(report, s, run);
                }
            }
        } finally {
            for (PeerProcess p : started) {
                p.close();
            }
            ChildPeers.deleteAeronDirs();
        }
        printTables(report, systems);
        plot(report, systems, out.resolve(NAME + ".png"));
        return finish(report);
    }

    private void describeSystems() {
        NodeSettings d = new NodeSettings(ReliableUdp.pingPongDefaults(psk).settings(), ReliableUdp.pingPongLowLatency(psk).settings());
        description.put("reliable-udp/defaults", "this library with the node defaults (" + d.defaults() + "), reliable-ordered channel, "
                + "Peer.send + flush from the listener, echoed the same way");
        description.put("reliable-udp/low-latency", "this library with the low-latency setting (" + d.lowLatency() + "), "
                + "otherwise as reliable-udp/defaults");
        description.put(SpringRoundTrip.NAME, "two Boot applications on the starter with every default in this JVM: "
                + "ReliableUdpOperations.send from an application thread -> @UdpMessageListener @SendTo(\"pong\") -> "
                + "@UdpMessageListener that wakes the application thread (reliable-ordered ping and pong channels)");
        description.put("raw-udp", "connected DatagramChannel client, blocking echo thread");
        description.put("tcp", "plain sockets, TCP_NODELAY both ends, 4-byte length prefix, echo thread");
        description.put("aeron/shared", "Aeron 1.47.4 embedded media driver, ThreadingMode.SHARED, JDK 17 child JVM; ping and pong "
                + "publications on two UDP endpoints, pinger and echo threads poll with Thread.yield between polls");
        description.put("aeron/dedicated", description.get("aeron/shared").replace("SHARED", "DEDICATED"));
        description.put("kcp", "KCP, kcp-netty 1.5.2 on Netty 4.1.68 in a child JVM, fast mode (nodelay 1, interval 10, resend 2, nc 1); "
                + "echo server, next ping written from the reply callback");
    }

    private record NodeSettings(String defaults, String lowLatency) {
    }

    // ----------------------------------------------------------------------------- one measurement

    private void measure(Report report, PingPongSystem s, int run) {
        Map<String, Object> f = report.run(s.name(), run);
        double load = LoadAverage.oneMinute();
        f.put("load1", load);
        try {
            long cpu0 = Cpu.processNanos();
            long wall0 = System.nanoTime();
            Histogram h = s.measure(size, seconds);
            double cores = Double.isNaN(s.lastCpuCores())
                    ? (Cpu.processNanos() - cpu0) / (double) (System.nanoTime() - wall0) : s.lastCpuCores();
            f.put("avg_us", h.getMean() / 1e3);
            f.put("p50_us", h.getValueAtPercentile(50) / 1e3);
            f.put("p90_us", h.getValueAtPercentile(90) / 1e3);
            f.put("p99_us", h.getValueAtPercentile(99) / 1e3);
            f.put("p99_9_us", h.getValueAtPercentile(99.9) / 1e3);
            f.put("max_us", h.getMaxValue() / 1e3);
            f.put("round_trips", h.getTotalCount());
            f.put("cpu_cores", cores);
            System.out.printf(Locale.ROOT, "[run %d/%d] %-26s p50 %8s  p90 %8s  p99 %8s  p99.9 %8s  max %9s us  (n=%d, cpu %.2f cores, load %.2f)%n",
                    run, runs, s.name(), num(f.get("p50_us")), num(f.get("p90_us")), num(f.get("p99_us")), num(f.get("p99_9_us")),
                    num(f.get("max_us")), h.getTotalCount(), cores, load);
        } catch (Exception e) {
            f.put("error", String.valueOf(e.getMessage()));
            System.out.printf(Locale.ROOT, "[run %d/%d] %-26s ERROR %s%n", run, runs, s.name(), e.getMessage());
        }
    }

    // ----------------------------------------------------------------------------- output

    private void printTables(Report report, List<PingPongSystem> systems) {
        Table t = new Table("system", "avg us", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us", "round trips", "cpu cores",
                "runs: p50 / p99 us", "load");
        for (PingPongSystem s : systems) {
            StringBuilder perRun = new StringBuilder();
            StringBuilder loads = new StringBuilder();
            for (int r = 1; r <= runs; r++) {
                Map<String, Object> f = report.run(s.name(), r);
                String sep = r == 1 ? "" : ", ";
                perRun.append(sep).append(f.containsKey("error") ? "error" : num(f.get("p50_us")) + " / " + num(f.get("p99_us")));
                loads.append(sep).append(num(f.get("load1")));
            }
            List<Object> row = new ArrayList<>(List.of(s.name()));
            for (String figure : FIGURES) {
                row.add(report.median(s.name(), figure));
            }
            row.add(report.median(s.name(), "round_trips"));
            row.add(report.median(s.name(), "cpu_cores"));
            row.add(perRun.toString());
            row.add(loads.toString());
            t.row(row.toArray());
        }
        t.print(System.out, String.format(Locale.ROOT, "round trip of a %d-byte message, median of %d run(s) of %.1f s"
                + " (load = 1-minute load average before each run)", size, runs, seconds));
        if (systems.stream().anyMatch(s -> s.name().equals("raw-udp"))) {
            Table v = new Table("system", "run", "p50 - raw p50 (us)", "p99 / raw p99");
            for (PingPongSystem s : systems) {
                if (!s.name().startsWith("reliable-udp/")) {
                    continue;
                }
                for (int r = 1; r <= runs; r++) {
                    Map<String, Object> f = report.run(s.name(), r);
                    Map<String, Object> raw = report.run("raw-udp", r);
                    if (f.get("p50_us") instanceof Number p50 && raw.get("p50_us") instanceof Number r50
                            && f.get("p99_us") instanceof Number p99 && raw.get("p99_us") instanceof Number r99) {
                        v.row(s.name(), String.valueOf(r), String.format(Locale.ROOT, "%+.1f", p50.doubleValue() - r50.doubleValue()),
                                String.format(Locale.ROOT, "%.2fx", p99.doubleValue() / r99.doubleValue()));
                    }
                }
            }
            v.print(System.out, "this library against raw UDP of the same run (targets, with the defaults: p50 within raw + 10 us,"
                    + " p99 within 2x raw; Spring: p50 within 2x raw + 50 us)");
            for (int r = 1; r <= runs && systems.stream().anyMatch(s -> s.name().equals(SpringRoundTrip.NAME)); r++) {
                Map<String, Object> f = report.run(SpringRoundTrip.NAME, r);
                Map<String, Object> raw = report.run("raw-udp", r);
                if (f.get("p50_us") instanceof Number p50 && raw.get("p50_us") instanceof Number r50) {
                    double target = 2 * r50.doubleValue() + 50;
                    System.out.printf(Locale.ROOT, "run %d: Spring round trip p50 %.1f us, target 2 x raw p50 + 50 us = %.1f us: %s%n",
                            r, p50.doubleValue(), target, p50.doubleValue() <= target ? "met"
                                    : String.format(Locale.ROOT, "missed by %.1f us", p50.doubleValue() - target));
                }
            }
        }
        for (PingPongSystem s : systems) {
            for (int r = 1; r <= runs; r++) {
                Object error = report.run(s.name(), r).get("error");
                if (error != null) {
                    System.out.println("run " + r + " " + s.name() + ": " + error);
                }
            }
        }
    }

    private static String num(Object v) {
        return v instanceof Number n ? Table.number(n.doubleValue()) : "-";
    }

    private void plot(Report report, List<PingPongSystem> systems, Path png) throws IOException {
        double[] nines = {Math.log10(2), 1, 2, 3, 4};
        Map<String, List<double[]>> series = new LinkedHashMap<>();
        for (PingPongSystem s : systems) {
            List<double[]> points = new ArrayList<>();
            for (int i = 0; i < nines.length; i++) {
                String figure = new String[] {"p50_us", "p90_us", "p99_us", "p99_9_us", "max_us"}[i];
                double v = report.median(s.name(), figure);
                if (v > 0) {
                    points.add(new double[] {nines[i], v});
                }
            }
            series.put(s.name(), points);
        }
        Plot.write(png, String.format(Locale.ROOT, "Ping-pong round trip of %d B over loopback, median of %d run(s) of %.1f s",
                size, runs, seconds), "percentile as nines: 0.3 = p50, 1 = p90, 2 = p99, 3 = p99.9, 4 = max",
                List.of(new Plot.Panel("round trip (us)", true, series)), 900, 600);
    }
}
