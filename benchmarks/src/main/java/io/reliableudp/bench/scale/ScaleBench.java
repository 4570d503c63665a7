package io.reliableudp.bench.scale;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.ChildProcess;
import io.reliableudp.bench.kit.JavaCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Loopback;
import io.reliableudp.bench.kit.Plot;
import io.reliableudp.bench.kit.ProcessCpu;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.bench.systems.ReliableUdp;
import io.reliableudp.transport.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code scale} subcommand: one server node in a JVM of its own, and 1,000 or 5,000 clients
 * (as given) in a few client JVMs ({@link ScaleClientMain}, each a {@link ClientHarness} multiplexing
 * its clients on a few threads), all connecting at once with the default configuration, then each
 * sending {@code --rate} reliable-ordered messages per second. Reports per client count: the time
 * until all were connected, the server's CPU seconds per delivered message and its CPU in cores (from
 * {@code /proc/<pid>/stat}), the server's heap per connection after a full GC (idle, before the
 * traffic, and after it), the delivered rate against the offered one, the connections that timed out
 * (must be 0; each counted once, though both of its ends time out), the datagrams the kernel dropped
 * at the server's sockets during the traffic ({@code /proc/net/udp}: its receive buffer overflowed),
 * the messages not acknowledged, and the load average. The clients run on the same machine as the server:
 * on two cores the figures say how much of a core the server needs, not how fast it could go.
 */
@Command(name = ScaleBench.NAME, description = "one server, 1,000 and 5,000 clients at 20 msg/s each from a few client JVMs: "
        + "server CPU per message, heap per connection, timeouts")
public final class ScaleBench extends BenchCommand {

    /** The subcommand's name. */
    public static final String NAME = "scale";

    private static final long SECOND = 1_000_000_000L;
    private static final Pattern FIELD = Pattern.compile("(\\w+)=(-?\\d+)");

    @Option(names = "--clients", split = ",", defaultValue = "1000,5000", description = "client counts to measure, one server each")
    private List<Integer> clientCounts;
    @Option(names = "--rate", defaultValue = "20", description = "messages per second per client (reliable-ordered, channel 0)")
    private double rate;
    @Option(names = "--size", defaultValue = "32", description = "message size in bytes")
    private int size;
    @Option(names = "--seconds", defaultValue = "20", converter = Seconds.class, description = SECONDS)
    private double seconds;
    @Option(names = "--warmup", defaultValue = "3", description = "seconds of traffic before the measurement")
    private double warmup;
    @Option(names = "--client-jvms", defaultValue = "2", description = "client JVMs the clients are spread over")
    private int clientJvms;
    @Option(names = "--client-threads", defaultValue = "2", description = "threads per client JVM")
    private int clientThreads;
    @Option(names = "--io-threads", defaultValue = "1", description = "I/O threads of the server (N sockets on one port with SO_REUSEPORT)")
    private int ioThreads;
    @Option(names = "--port", split = ",", paramLabel = "PORT", defaultValue = "auto",
            description = "the server's socket port(s), each measured in turn within every run: plain (DatagramChannel), "
                    + "batched (recvmmsg/sendmmsg, GSO, GRO), auto (the default choice); e.g. plain,batched")
    private List<String> ports;
    @Option(names = "--runs", defaultValue = "1", converter = Runs.class, description = RUNS)
    private int runs;
    @Option(names = "--server-heap", defaultValue = "1g", description = "the server JVM's -Xmx")
    private String serverHeap;
    @Option(names = "--client-nice", defaultValue = "10",
            description = "niceness the client JVMs run at (0: the server's), so that the load they generate does not "
                    + "take the CPU the server asks for: what is measured is the server")
    private int clientNice;
    @Option(names = "--connect-rate", defaultValue = "0",
            description = "clients starting their handshakes per second, over all client JVMs (0: all at once)")
    private double connectRate;

    /**
     * The server's configuration, in one place: the defaults (so "5,000 clients with the defaults" is
     * what is measured), bound to loopback, with {@code ioThreads} I/O threads, on the port a
     * {@code --port} name stands for; above the default {@link NodeConfig#maxConnections()} (8,192) the
     * one setting raised is that limit, to the client count.
     */
    static NodeConfig serverConfig(int ioThreads, String port, int clients) {
        NodeConfig defaults = Loopback.node().ioThreads(ioThreads).batchedIo(ReliableUdp.batchedIo(port)).build();
        return clients <= defaults.maxConnections() ? defaults : defaults.toBuilder().maxConnections(clients).build();
    }

    /**
     * Runs the benchmark, prints the tables and, last, the JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new ScaleBench(), args);
    }

    @Override
    public String call() throws Exception {
        if (rate < 0 || size < 0 || clientJvms < 1 || clientThreads < 1 || warmup < 0) {
            throw new IllegalArgumentException("scale: --rate, --size, --warmup must be >= 0, --client-jvms and --client-threads >= 1");
        }
        for (int c : clientCounts) {
            if (c < 1) {
                throw new IllegalArgumentException("scale: --clients must be whole numbers >= 1, was " + c);
            }
        }
        if (ioThreads < 1) {
            throw new IllegalArgumentException("scale: --io-threads must be >= 1, was " + ioThreads);
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("clients", clientCounts);
        params.put("rate_hz", rate);
        params.put("message_bytes", size);
        params.put("seconds", seconds);
        params.put("warmup_seconds", warmup);
        params.put("client_jvms", clientJvms);
        params.put("client_threads", clientThreads);
        params.put("client_nice", clientNice);
        params.put("io_threads", ioThreads);
        params.put("server_heap", serverHeap);
        params.put("connect_rate", connectRate == 0 ? "all at once" : connectRate);
        params.put("ports", ports);
        params.put("config", "NodeConfig defaults (maxConnections " + NodeConfig.builder().build().maxConnections()
                + ", raised to the client count above it), loopback");
        Report report = new Report(NAME, params);
        Table table = new Table("clients", "port", "run", "connected", "connect s", "delivered/s", "offered/s", "server cores",
                "server us/msg", "heap/conn idle KiB", "heap/conn after KiB", "timeouts", "server sock drops", "unacked", "load1");
        Map<String, List<double[]>> cpu = new LinkedHashMap<>();
        Map<String, List<double[]>> heap = new LinkedHashMap<>();
        for (int clients : clientCounts) {
          for (int run = 1; run <= runs; run++) {
            for (String port : ports) {
                // one port: the system keeps its name; several: one system per port, interleaved in each run
                String system = "clients-" + clients + (ports.size() == 1 ? "" : "@" + port);
                Map<String, Object> f = report.run(system, run);
                f.put("port", port);
                measure(clients, run, port, f);
                table.row(clients, port, run, f.getOrDefault("connected", "-"), num(f, "connect_seconds"), num(f, "delivered_per_s"),
                        num(f, "offered_per_s"), num(f, "server_cpu_cores"), num(f, "server_cpu_us_per_message"),
                        num(f, "heap_per_connection_idle_kib"), num(f, "heap_per_connection_after_kib"),
                        f.getOrDefault("timeouts", "-"), f.getOrDefault("server_socket_drops", "-"),
                        f.getOrDefault("unacknowledged", "-"), num(f, "load1"));
                if (f.containsKey("error")) {
                    System.out.println("  error: " + f.get("error"));
                }
            }
          }
          for (String port : ports) {
            String system = "clients-" + clients + (ports.size() == 1 ? "" : "@" + port);
            String suffix = ports.size() == 1 ? "" : " " + port;
            cpu.computeIfAbsent("server CPU (us per message)" + suffix, k -> new ArrayList<>())
                    .add(new double[] {clients, report.median(system, "server_cpu_us_per_message")});
            heap.computeIfAbsent("idle" + suffix, k -> new ArrayList<>())
                    .add(new double[] {clients, report.median(system, "heap_per_connection_idle_kib")});
            heap.computeIfAbsent("after traffic" + suffix, k -> new ArrayList<>())
                    .add(new double[] {clients, report.median(system, "heap_per_connection_after_kib")});
          }
        }
        table.print(System.out, String.format(Locale.ROOT, "scale: one server, clients at %.0f msg/s each (%d B, reliable-ordered),"
                + " %d client JVMs x %d threads, %d I/O thread(s); clients on the same cores as the server, at nice %d", rate, size,
                clientJvms, clientThreads, ioThreads, clientNice));
        try {
            Plot.write(out().resolve(NAME + ".png"), String.format(Locale.ROOT, "Scale: clients at %.0f msg/s each", rate), "clients",
                    List.of(new Plot.Panel("server CPU per message (us)", false, cpu),
                            new Plot.Panel("heap per connection after GC (KiB)", false, heap)), 900, 700);
        } catch (IOException | RuntimeException e) {
            System.out.println("plot not written: " + e);
        }
        return finish(report);
    }

    private static Object num(Map<String, Object> f, String key) {
        Object v = f.get(key);
        return v instanceof Number n ? (Object) n.doubleValue() : "-";
    }

    private List<String> java(String mainClass, List<String> jvmArgs, List<String> args) {
        return JavaCommand.command(JavaCommand.currentJava(), JavaCommand.harnessClassPath(), jvmArgs, mainClass, args);
    }

    private void measure(int clients, int run, String portKind, Map<String, Object> f) throws Exception {
        String tag = "clients" + clients + "-" + portKind + "-run" + run;
        Path logs = out().resolve("logs");
        try (ChildProcess server = ChildProcess.start("scale server", java(ScaleServerMain.class.getName(),
                List.of("-Xmx" + serverHeap, "-Xms" + serverHeap, "--enable-native-access=ALL-UNNAMED"),
                List.of(String.valueOf(ioThreads), portKind, String.valueOf(clients))),
                logs.resolve(tag + "-server.log"))) {
            String ready = server.awaitLine("READY", System.nanoTime() + 60 * SECOND);
            if (ready == null) {
                error(f, "server not ready within 60 s (see " + server.log() + ")");
                return;
            }
            int port = (int) field(ready, "port");
            f.put("server_port", ready.contains("kind=") ? ready.substring(ready.indexOf("kind=") + 5).trim() : "?");
            long baseline = heap(server);
            List<ChildProcess> clientProcs = new ArrayList<>();
            try {
                int jvms = Math.min(clientJvms, clients);
                for (int j = 0; j < jvms; j++) {
                    int n = clients / jvms + (j < clients % jvms ? 1 : 0);
                    List<String> command = new ArrayList<>();
                    if (clientNice != 0) {
                        command.addAll(List.of("nice", "-n", String.valueOf(clientNice)));
                    }
                    command.addAll(java(ScaleClientMain.class.getName(), List.of("-Xmx1g"), List.of(String.valueOf(port),
                            String.valueOf(n), String.valueOf(clientThreads), String.valueOf(run * 1000L + j))));
                    clientProcs.add(ChildProcess.start("scale clients " + j, command, logs.resolve(tag + "-clients" + j + ".log")));
                }
                for (ChildProcess p : clientProcs) {
                    if (p.awaitLine("READY", System.nanoTime() + 120 * SECOND) == null) {
                        error(f, p.name() + " not ready within 120 s (see " + p.log() + ")");
                        return;
                    }
                }
                long connectStart = System.nanoTime();
                for (ChildProcess p : clientProcs) {
                    p.send(String.format(Locale.ROOT, "CONNECT %s", connectRate / clientProcs.size()));
                }
                // all connecting at once: wait until the server has them all (or the clients' connect timeout has passed)
                long connected = 0;
                long deadline = System.nanoTime() + (30 + (connectRate > 0 ? (long) (clients / connectRate) : 0)) * SECOND;
                while (System.nanoTime() < deadline) {
                    connected = field(status(server), "connections");
                    if (connected >= clients) {
                        break;
                    }
                    Thread.sleep(100);
                }
                f.put("connected", connected);
                f.put("connect_seconds", (System.nanoTime() - connectStart) / 1e9);
                if (connected < clients) {
                    f.put("timeouts", sum(clientProcs, "timeouts"));
                    error(f, "only " + connected + " of " + clients + " clients connected in time (see " + server.log() + ")");
                    return;
                }
                Thread.sleep(1000);
                String idle = heapLine(server);
                f.put("heap_per_connection_idle_kib", perConnectionKib(idle, baseline));
                long socketDrops0 = socketDrops(port);
                for (ChildProcess p : clientProcs) {
                    p.send(String.format(Locale.ROOT, "SEND %s %d", rate, size));
                }
                Thread.sleep((long) (warmup * 1000));
                double load = LoadAverage.oneMinute();
                System.out.printf(Locale.ROOT, "[run %d/%d] %,d clients at %.0f msg/s, %s port: %s%n", run, runs, clients, rate,
                        f.get("server_port"), LoadAverage.describe(load));
                long cpu0 = ProcessCpu.ticks(server.pid());
                long delivered0 = field(status(server), "delivered");
                long t0 = System.nanoTime();
                Thread.sleep((long) (seconds * 1000));
                long cpu1 = ProcessCpu.ticks(server.pid());
                long delivered1 = field(status(server), "delivered");
                long t1 = System.nanoTime();
                for (ChildProcess p : clientProcs) {
                    p.send("SEND 0 0");
                }
                // let what is in flight be acknowledged, then count what was not
                long unacked = Long.MAX_VALUE;
                long drainUntil = System.nanoTime() + 10 * SECOND;
                while (System.nanoTime() < drainUntil) {
                    Thread.sleep(250);
                    unacked = sum(clientProcs, "sent") - sum(clientProcs, "delivered") - sum(clientProcs, "failed");
                    if (unacked == 0) {
                        break;
                    }
                }
                double wall = (t1 - t0) / 1e9;
                double cpuSeconds = (cpu1 - cpu0) / (double) ProcessCpu.ticksPerSecond();
                long delivered = delivered1 - delivered0;
                f.put("delivered_per_s", delivered / wall);
                f.put("offered_per_s", clients * rate);
                f.put("server_cpu_cores", cpuSeconds / wall);
                f.put("server_cpu_us_per_message", delivered > 0 ? cpuSeconds / delivered * 1e6 : Double.NaN);
                f.put("server_cpu_seconds_per_message", delivered > 0 ? cpuSeconds / delivered : Double.NaN);
                f.put("sent", sum(clientProcs, "sent"));
                f.put("acknowledged", sum(clientProcs, "delivered"));
                f.put("failed", sum(clientProcs, "failed"));
                f.put("refused", sum(clientProcs, "refused"));
                f.put("unacknowledged", unacked);
                String st = status(server);
                // a connection that times out does so at both ends (the end that gave up first answers
                // nothing more, so the other one hears nothing either): count each connection once, as
                // the larger of the two sides' counts (the later side may not have timed out yet)
                long clientTimeouts = sum(clientProcs, "timeouts");
                long serverTimeouts = field(st, "timedout");
                f.put("timeouts", Math.max(clientTimeouts, serverTimeouts));
                f.put("timeouts_client_side", clientTimeouts);
                f.put("timeouts_server_side", serverTimeouts);
                f.put("connections_ended", Math.max(sum(clientProcs, "ended"), field(st, "ended")));
                f.put("server_socket_drops", socketDrops(port) - socketDrops0);
                f.put("client_io_errors", sum(clientProcs, "ioerrors"));
                String after = heapLine(server);
                f.put("heap_per_connection_after_kib", perConnectionKib(after, baseline));
                f.put("connections_at_end", field(after, "connections"));
                f.put("heap_baseline_mib", baseline / 1048576.0);
                f.put("load1", load);
                f.put("load1_end", LoadAverage.oneMinute());
            } finally {
                for (ChildProcess p : clientProcs) {
                    p.closeStdin();
                }
                for (ChildProcess p : clientProcs) {
                    p.waitFor(System.nanoTime() + 10 * SECOND);
                    p.close();
                }
            }
            server.closeStdin();
            server.waitFor(System.nanoTime() + 10 * SECOND);
        }
    }

    /** Heap above the baseline per connection the server held when it was read (NaN when it held none). */
    private static double perConnectionKib(String heapLine, long baseline) {
        long connections = field(heapLine, "connections");
        return connections > 0 ? (field(heapLine, "used") - baseline) / 1024.0 / connections : Double.NaN;
    }

    private static void error(Map<String, Object> f, String text) {
        f.put("error", text);
    }

    private static String status(ChildProcess p) throws InterruptedException {
        p.send("STATUS");
        String line = p.awaitLine("STATUS", System.nanoTime() + 30 * SECOND);
        if (line == null) {
            throw new IllegalStateException(p.name() + " did not answer STATUS (see " + p.log() + ")");
        }
        return line;
    }

    private static long heap(ChildProcess server) throws InterruptedException {
        return field(heapLine(server), "used");
    }

    /** The server's {@code HEAP used=.. connections=..} line: the heap after GC and the connections it held then. */
    private static String heapLine(ChildProcess server) throws InterruptedException {
        server.send("HEAP");
        String line = server.awaitLine("HEAP", System.nanoTime() + 60 * SECOND);
        if (line == null) {
            throw new IllegalStateException("the server did not answer HEAP (see " + server.log() + ")");
        }
        return line;
    }

    private static long sum(List<ChildProcess> procs, String name) throws InterruptedException {
        long s = 0;
        for (ChildProcess p : procs) {
            s += field(status(p), name);
        }
        return s;
    }

    static long field(String line, String name) {
        Matcher m = FIELD.matcher(line);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return Long.parseLong(m.group(2));
            }
        }
        throw new IllegalStateException("no " + name + "= in '" + line + "'");
    }

    /**
     * Datagrams the kernel dropped on the UDP sockets bound to {@code port} (the server's, one per I/O
     * thread), since they were opened: the {@code drops} column of {@code /proc/net/udp} and
     * {@code /proc/net/udp6} (a full receive buffer, mostly). 0 where the files cannot be read.
     */
    static long socketDrops(int port) {
        String local = String.format(Locale.ROOT, ":%04X", port);
        long drops = 0;
        for (String file : List.of("/proc/net/udp", "/proc/net/udp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(file))) {
                    String[] col = line.trim().split("\\s+");
                    if (col.length > 12 && col[1].endsWith(local)) {
                        drops += Long.parseLong(col[12]);
                    }
                }
            } catch (IOException | NumberFormatException e) {
                // not Linux, or an unexpected layout: no figure rather than a wrong one
            }
        }
        return drops;
    }
}
