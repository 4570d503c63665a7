package io.reliableudp.bench.throughput;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Plot;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.bench.systems.ChildPeers;
import io.reliableudp.bench.systems.PeerProcess;
import io.reliableudp.bench.systems.RawUdp;
import io.reliableudp.bench.systems.ReliableUdp;
import io.reliableudp.bench.systems.SpringIntegrationUdp;
import io.reliableudp.bench.systems.Tcp;
import io.reliableudp.bench.systems.ThroughputRun;
import io.reliableudp.bench.systems.ThroughputSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The {@code throughput} subcommand: messages delivered per second over loopback, for each message size
 * and number of connections, reliable-ordered and unreliable, this library beside every baseline in the
 * same run: raw {@code DatagramChannel}, TCP, Aeron 1.47.4 (embedded media driver, SHARED and DEDICATED,
 * a child JVM on JDK 17), KCP (kcp-netty, a child JVM with Netty 4.1) and Spring Integration's UDP
 * adapters. Every cell is measured {@code --runs} times, the systems interleaved within each run; the
 * median and every run are reported, and for each reliable system whether everything sent was delivered.
 * Figures per run and cell ({@code SIZEB/xCONNECTIONS/}): {@code msgs_per_s}, {@code sent},
 * {@code delivered}, {@code complete} (1 or 0), {@code load1}; a failed measurement has {@code error}.
 */
@Command(name = ThroughputBench.NAME, description = "loopback messages/s by size and connections, reliable and unreliable, "
        + "beside raw UDP, TCP, Aeron, KCP and Spring Integration UDP")
public final class ThroughputBench extends BenchCommand {

    static final String NAME = "throughput";
    /** Every system, reliable ones first. */
    static final String SYSTEM_NAMES = "reliable-udp/send,reliable-udp/offer,tcp,aeron/shared,aeron/dedicated,kcp,"
            + "spring-integration-udp/ack,"
            + "reliable-udp/send/unreliable,reliable-udp/offer/unreliable,raw-udp,aeron/shared/unreliable,"
            + "aeron/dedicated/unreliable,spring-integration-udp/unreliable";
    static final List<String> SYSTEMS = List.of(SYSTEM_NAMES.split(","));

    @Option(names = "--seconds", defaultValue = "3", converter = Seconds.class, description = SECONDS)
    private double seconds;
    @Option(names = "--runs", defaultValue = "3", converter = Runs.class, description = RUNS)
    private int runs;
    @Option(names = "--warmup", defaultValue = "1", description = "seconds of warm-up (JIT) per system before measuring, 0 for none")
    private double warmup;
    @Option(names = "--sizes", split = ",", defaultValue = "32,256,1024", description = "message sizes in bytes")
    private List<Integer> sizes;
    @Option(names = "--connections", split = ",", defaultValue = "1,16", description = "numbers of connections")
    private List<Integer> connections;
    @Option(names = "--psk", description = "this library encrypted (ChaCha20-Poly1305, pre-shared key)")
    private boolean psk;
    @Option(names = "--systems", split = ",", paramLabel = "SYSTEM", defaultValue = SYSTEM_NAMES, description = "systems to measure: " + SYSTEM_NAMES)
    private List<String> requestedSystems;
    @Option(names = "--port", split = ",", paramLabel = "PORT", defaultValue = "auto",
            description = "this library's socket port(s), each measured as its own system in the same run: plain "
                    + "(DatagramChannel), batched (recvmmsg/sendmmsg, GSO, GRO), auto (the default choice); e.g. plain,batched")
    private List<String> ports;
    @Mixin
    private ChildPeers.PeerOptions peerOptions = new ChildPeers.PeerOptions();
    private ChildPeers.Setup childPeers;
    private Path out;
    private final Map<String, String> description = new LinkedHashMap<>();

    /**
     * Runs the benchmark and prints its tables and, last, its JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new ThroughputBench(), args);
    }

    @Override
    public String call() throws Exception {
        List<String> requested = systems(requestedSystems, SYSTEMS);
        childPeers = peerOptions.setup();
        out = out();
        for (int s : sizes) {
            if (s < 8 || s > 1100) {
                throw new IllegalArgumentException(NAME + ": --sizes must be 8..1100 bytes (one datagram), was " + s);
            }
        }
        for (int c : connections) {
            if (c < 1 || c > 256) {
                throw new IllegalArgumentException(NAME + ": --connections must be 1..256, was " + c);
            }
        }
        Files.createDirectories(out.resolve("logs"));
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("sizes_bytes", sizes);
        params.put("connections", connections);
        params.put("seconds", seconds);
        params.put("runs", runs);
        params.put("warmup_seconds", warmup);
        params.put("psk", psk);
        params.put("ports", ports);
        Report report = new Report(NAME, params);
        describeSystems();
        List<PeerProcess> children = new ArrayList<>();
        List<ThroughputSystem> systems = new ArrayList<>();
        try {
            PeerProcess[] aeron = new PeerProcess[2];
            PeerProcess[] kcp = new PeerProcess[1];
            for (String name : requested) {
                Optional<String> why = childPeers.unavailable(name);
                if (why.isPresent()) {
                    System.out.println("skipping " + name + ": " + why.get());
                    report.skip(name, why.get());
                    continue;
                }
                if (name.startsWith("reliable-udp/") && !(ports.size() == 1 && ports.get(0).equals("auto"))) {
                    for (String port : ports) {
                        ReliableUdp r = ReliableUdp.throughput(name.contains("/offer"), !name.endsWith("/unreliable"), psk, port);
                        description.put(r.name(), description.get(name) + "; NodeConfig.batchedIo "
                                + ReliableUdp.batchedIo(port));
                        systems.add(r);
                    }
                    continue;
                }
                systems.add(switch (name) {
                    case "reliable-udp/send" -> ReliableUdp.throughput(false, true, psk);
                    case "reliable-udp/offer" -> ReliableUdp.throughput(true, true, psk);
                    case "reliable-udp/send/unreliable" -> ReliableUdp.throughput(false, false, psk);
                    case "reliable-udp/offer/unreliable" -> ReliableUdp.throughput(true, false, psk);
                    case "raw-udp" -> new RawUdp();
                    case "tcp" -> new Tcp();
                    case "spring-integration-udp/ack" -> new SpringIntegrationUdp(true);
                    case "spring-integration-udp/unreliable" -> new SpringIntegrationUdp(false);
                    case "kcp" -> child(kcp, 0, children, () -> childPeers.kcp(out.resolve("logs"))).throughput(name, true);
                    default -> {
                        int i = name.startsWith("aeron/shared") ? 0 : 1;
                        String threading = i == 0 ? "SHARED" : "DEDICATED";
                        yield child(aeron, i, children, () -> childPeers.aeron(threading, out.resolve("logs")))
                                .throughput(name, !name.endsWith("/unreliable"));
                    }
                });
            }
            params.put("systems", systems.stream().map(ThroughputSystem::name).toList());
            Map<String, String> described = new LinkedHashMap<>();
            systems.forEach(s -> described.put(s.name(), description.get(s.name())));
            params.put("descriptions", described);
            System.out.printf(Locale.ROOT, "throughput benchmark: sizes %s B, connections %s, %.1f s per measurement, %d run(s), warm-up %.1f s, out %s%n",
                    sizes, connections, seconds, runs, warmup, out);
            systems.forEach(s -> System.out.println("  " + s.name() + ": " + description.get(s.name())));
            System.out.println(LoadAverage.describe(LoadAverage.oneMinute()));
            if (warmup > 0) {
                for (ThroughputSystem s : systems) {
                    try {
                        s.measure(sizes.get(0), connections.get(0), warmup);
                    } catch (Exception e) {
                        System.out.println("warm-up of " + s.name() + " failed: " + e.getMessage());
                    }
                }
            }
            for (int size : sizes) {
                for (int conns : connections) {
                    for (int run = 1; run <= runs; run++) {
                        for (ThroughputSystem s : systems) {
                            measure(report, s, size, conns, run);
                        }
                    }
                }
            }
        } finally {
            for (ThroughputSystem s : systems) {
                s.close();
            }
            for (PeerProcess p : children) {
                p.close();
            }
            ChildPeers.deleteAeronDirs();
        }
        printTables(report, systems);
        plot(report, systems);
        return finish(report);
    }

    private interface ProcessFactory {
        PeerProcess create();
    }

    private static PeerProcess child(PeerProcess[] slots, int i, List<PeerProcess> children, ProcessFactory factory) {
        if (slots[i] == null) {
            slots[i] = factory.create();
            children.add(slots[i]);
        }
        return slots[i];
    }


    private void describeSystems() {
        String node = "this library, one server ReliableUdpNode and one client node per connection (channel 0 reliable-ordered, "
                + "1 unreliable), node defaults"
                + (psk ? " + PSK encryption" : "") + "; one thread sends up to 64 messages per connection in turn, then flush; ";
        description.put("reliable-udp/send", node + "Peer.send (a future per message), reliable-ordered, at most 3840 sent-but-undelivered per connection");
        description.put("reliable-udp/offer", node + "Peer.offer (no future), reliable-ordered, at most 3840 sent-but-undelivered per connection");
        description.put("reliable-udp/send/unreliable", node + "Peer.send on the unreliable channel until a send is refused");
        description.put("reliable-udp/offer/unreliable", node + "Peer.offer on the unreliable channel until a send is refused");
        description.put("raw-udp", "DatagramChannel, one message per datagram, one sender thread (64 per client socket in turn), "
                + "one receiver thread, 4 MiB socket buffers; no reliability (the baseline of both tables)");
        description.put("tcp", "plain blocking sockets, TCP_NODELAY, 4-byte length prefix, 64 KiB buffered streams flushed every 64 "
                + "messages, one sender thread, one reader thread per connection");
        description.put("aeron/shared", "Aeron 1.47.4, embedded media driver, ThreadingMode.SHARED, JDK 17 child JVM; one exclusive "
                + "publication per connection to one UDP subscription, 1 MiB terms, 4 MiB socket buffers, back-off idle strategies");
        description.put("aeron/dedicated", description.get("aeron/shared").replace("SHARED", "DEDICATED"));
        description.put("aeron/shared/unreliable", description.get("aeron/shared") + "; channel reliable=false (gaps not repaired)");
        description.put("aeron/dedicated/unreliable", description.get("aeron/dedicated") + "; channel reliable=false (gaps not repaired)");
        description.put("kcp", "KCP, kcp-netty 1.5.2 on Netty 4.1.68 in a child JVM, fast mode (nodelay 1, interval 10, resend 2, nc 1), "
                + "windows 32/128; one sender thread, 64 writes per link in turn, at most 1024 undelivered per connection");
        description.put("spring-integration-udp/ack", "Spring Integration 7 UnicastSendingMessageHandler with acknowledge=true "
                + "(blocks for each ack, 5 s timeout, no resend) -> UnicastReceivingChannelAdapter (pool of 5); one sender thread per connection");
        description.put("spring-integration-udp/unreliable", "Spring Integration 7 UnicastSendingMessageHandler without acknowledge "
                + "-> UnicastReceivingChannelAdapter (pool of 5); one sender thread per connection");
    }

    // ----------------------------------------------------------------------------- one measurement

    private static String cell(int size, int connections) {
        return size + "B/x" + connections + "/";
    }

    private void measure(Report report, ThroughputSystem s, int size, int conns, int run) {
        Map<String, Object> f = report.run(s.name(), run);
        String k = cell(size, conns);
        double load = LoadAverage.oneMinute();
        f.put(k + "load1", load);
        try {
            ThroughputRun r = s.measure(size, conns, seconds);
            f.put(k + "msgs_per_s", r.messagesPerSecond());
            f.put(k + "sent", r.sent());
            f.put(k + "delivered", r.delivered());
            f.put(k + "complete", r.complete() ? 1 : 0);
            System.out.printf(Locale.ROOT, "[run %d/%d] %4d B x%-3d %-34s %12s msgs/s  sent %d delivered %d%s  (load %.2f)%n",
                    run, runs, size, conns, s.name(), Table.number(r.messagesPerSecond()), r.sent(), r.delivered(),
                    s.reliable() ? (r.complete() ? "  all delivered" : "  NOT ALL DELIVERED") : "", load);
        } catch (Exception e) {
            f.put(k + "error", String.valueOf(e.getMessage()));
            System.out.printf(Locale.ROOT, "[run %d/%d] %4d B x%-3d %-34s ERROR %s%n", run, runs, size, conns, s.name(), e.getMessage());
        }
    }

    // ----------------------------------------------------------------------------- output

    private void printTables(Report report, List<ThroughputSystem> systems) {
        for (boolean reliable : new boolean[] {true, false}) {
            List<String> headers = new ArrayList<>(List.of("system"));
            for (int size : sizes) {
                for (int c : connections) {
                    headers.add(size + " B x" + c);
                }
            }
            Table t = new Table(headers.toArray(String[]::new));
            for (ThroughputSystem s : systems) {
                if (s.reliable() != reliable && !s.name().equals("raw-udp")) {
                    continue;
                }
                List<Object> row = new ArrayList<>(List.of(s.name()));
                for (int size : sizes) {
                    for (int c : connections) {
                        row.add(cellText(report, s, cell(size, c)));
                    }
                }
                t.row(row.toArray());
            }
            t.print(System.out, String.format(Locale.ROOT, "%s: messages delivered per second, median of %d run(s) of %.1f s"
                    + " (! = not everything sent was delivered in some run; raw-udp is the baseline of both tables)",
                    reliable ? "reliable (ordered)" : "unreliable", runs, seconds));
        }
        Table runsTable = new Table("system", "cell", "msgs/s per run", "delivered/sent per run", "load per run");
        for (ThroughputSystem s : systems) {
            for (int size : sizes) {
                for (int c : connections) {
                    String k = cell(size, c);
                    StringBuilder rates = new StringBuilder();
                    StringBuilder complete = new StringBuilder();
                    StringBuilder loads = new StringBuilder();
                    for (int r = 1; r <= runs; r++) {
                        Map<String, Object> f = report.run(s.name(), r);
                        String sep = r == 1 ? "" : ", ";
                        rates.append(sep).append(f.containsKey(k + "error") ? "error" : num(f.get(k + "msgs_per_s")));
                        complete.append(sep).append(f.get(k + "delivered")).append('/').append(f.get(k + "sent"));
                        loads.append(sep).append(num(f.get(k + "load1")));
                    }
                    runsTable.row(s.name(), size + " B x" + c, rates.toString(), complete.toString(), loads.toString());
                }
            }
        }
        runsTable.print(System.out, "every run");
        printTargets(report, systems);
        for (ThroughputSystem s : systems) {
            for (int r = 1; r <= runs; r++) {
                Map<String, Object> f = report.run(s.name(), r);
                f.forEach((k, v) -> {
                    if (k.endsWith("/error")) {
                        System.out.println("run " + f.get("run") + " " + s.name() + " " + k + ": " + v);
                    }
                });
            }
        }
    }

    private String cellText(Report report, ThroughputSystem s, String k) {
        double median = report.median(s.name(), k + "msgs_per_s");
        if (Double.isNaN(median)) {
            return "error";
        }
        boolean incomplete = false;
        for (int r = 1; r <= runs; r++) {
            Object c = report.run(s.name(), r).get(k + "complete");
            incomplete |= c instanceof Number n && n.intValue() == 0;
        }
        return Table.number(median) + (s.reliable() && incomplete ? " !" : "");
    }

    /** This library's reliable-ordered figures as ratios to raw datagrams/s and to Aeron's best mode (the throughput targets, docs/benchmarks.md). */
    private void printTargets(Report report, List<ThroughputSystem> systems) {
        List<String> names = systems.stream().map(ThroughputSystem::name).toList();
        Table t = new Table("system", "cell", "msgs/s", "x raw-udp datagrams/s", "x Aeron best mode (reliable)");
        List<String> libs = names.stream().filter(n -> n.startsWith("reliable-udp/") && !n.contains("/unreliable")).toList();
        for (String lib : libs) {
            for (int size : sizes) {
                for (int c : connections) {
                    String k = cell(size, c) + "msgs_per_s";
                    double v = report.median(lib, k);
                    double raw = report.median("raw-udp", k);
                    double aeron = Math.max(nanToZero(report.median("aeron/shared", k)), nanToZero(report.median("aeron/dedicated", k)));
                    t.row(lib, size + " B x" + c, v, raw > 0 ? String.format(Locale.ROOT, "%.2fx", v / raw) : "-",
                            aeron > 0 ? String.format(Locale.ROOT, "%.2fx", v / aeron) : "-");
                }
            }
        }
        t.print(System.out, "ratios of the medians (targets: 32 B >= 8x raw and >= 2x Aeron's best; 256 B >= 2x raw and > Aeron's best;"
                + " 1024 B >= 0.9x raw)");
    }

    private static double nanToZero(double v) {
        return Double.isNaN(v) ? 0 : v;
    }

    private static String num(Object v) {
        return v instanceof Number n ? Table.number(n.doubleValue()) : "-";
    }

    /**
     * Writes {@code throughput.png} (the reliable table's systems, raw UDP included, one panel per
     * connection count) and {@code throughput-unreliable.png} (the unreliable table's): msgs/s (log) over
     * the message size. Two files, so that each system keeps one colour in every panel of its file.
     *
     * @param median the median of a system's figure (NaN when absent)
     */
    public static List<Path> plot(Path dir, String title, List<Integer> sizes, List<Integer> connections,
            List<String> reliableSystems, List<String> unreliableSystems, BiFunction<String, String, Double> median) throws IOException {
        List<Path> files = new ArrayList<>();
        for (boolean reliable : new boolean[] {true, false}) {
            List<String> systems = reliable ? reliableSystems : unreliableSystems;
            if (systems.isEmpty()) {
                continue;
            }
            List<Plot.Panel> panels = new ArrayList<>();
            for (int c : connections) {
                Map<String, List<double[]>> series = new LinkedHashMap<>();
                for (String s : systems) {
                    List<double[]> points = new ArrayList<>();
                    for (int size : sizes) {
                        double v = median.apply(s, cell(size, c) + "msgs_per_s");
                        if (v > 0) {
                            points.add(new double[] {size, v});
                        }
                    }
                    series.put(s, points);
                }
                panels.add(new Plot.Panel(c + " connection" + (c == 1 ? "" : "s") + ": msgs/s", true, series));
            }
            Path png = dir.resolve(reliable ? NAME + ".png" : NAME + "-unreliable.png");
            Plot.write(png, (reliable ? "Reliable(-ordered)" : "Unreliable") + " throughput over loopback, " + title,
                    "message size (bytes)", panels, 1000, 120 + 330 * panels.size());
            files.add(png);
        }
        return files;
    }

    private List<Path> plot(Report report, List<ThroughputSystem> systems) throws IOException {
        List<String> rel = systems.stream().filter(s -> s.reliable() || s.name().equals("raw-udp")).map(ThroughputSystem::name).toList();
        List<String> unrel = systems.stream().filter(s -> !s.reliable()).map(ThroughputSystem::name).toList();
        return plot(out, String.format(Locale.ROOT, "median of %d run(s) of %.1f s", runs, seconds), sizes, connections, rel, unrel,
                report::median);
    }
}
