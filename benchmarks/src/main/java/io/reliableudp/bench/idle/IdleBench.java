package io.reliableudp.bench.idle;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.ChildProcess;
import io.reliableudp.bench.kit.JavaCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Loopback;
import io.reliableudp.bench.kit.ProcessCpu;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.ReceiveThreadMode;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code idle} subcommand: what an idle node costs. A child JVM runs one node ({@link IdleServer},
 * default settings); this JVM connects N client nodes to it (N from {@code --connections}, each its own
 * node, default settings) and leaves them idle; after {@code --settle} seconds it reads the child's CPU
 * time from {@code /proc/PID/stat} (utime + stime, clock ticks) and {@code /proc/PID/task/* /schedstat}
 * (nanoseconds on the CPU, summed over threads), waits {@code --seconds}, reads again, and reports the
 * child's CPU as a fraction of one core beside the datagrams it received and sent per second. The
 * {@code 0} row is the same JVM and node with no connection: the floor of the JVM itself. Counts
 * (datagrams per second) hold on a busy machine; the CPU fraction only on a quiet one.
 */
@Command(name = IdleBench.NAME, description = "CPU of a node's JVM with N idle connections over 10 s, from /proc (target < 1%% of a core at 100)")
public final class IdleBench extends BenchCommand {

    /** The subcommand's name. */
    public static final String NAME = "idle";

    private static final Pattern STATS = Pattern.compile("STATS in=(\\d+) out=(\\d+) peers=(\\d+)");
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    /** The node's I/O thread's name as {@code /proc/PID/task/TID/comm} shows it (15 characters of reliable-udp-io-PORT). */
    private static final String IO_THREAD = "reliable-udp-io";

    @Option(names = "--connections", split = ",", defaultValue = "0,100",
            description = "idle connections to the measured node, one measurement each (0: the JVM's floor)")
    private List<Integer> connections;
    @Option(names = "--seconds", defaultValue = "10", converter = Seconds.class, description = SECONDS)
    private double seconds;
    @Option(names = "--settle", defaultValue = "3", description = "seconds after the last connect before the measurement (JIT, handshakes)")
    private double settle;
    @Option(names = "--runs", defaultValue = "1", converter = Runs.class, description = RUNS)
    private int runs;
    @Option(names = "--keepalive", defaultValue = "0", description = "keepAliveInterval in ms on both sides (0: the node's default)")
    private long keepAliveMs;
    @Option(names = "--thread", defaultValue = "platform", description = "I/O thread of every node: platform or virtual")
    private String thread;
    private ReceiveThreadMode mode;

    /**
     * Runs the measurements, prints a table and, last, the JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new IdleBench(), args);
    }

    @Override
    public String call() throws Exception {
        mode = ReceiveThreadMode.valueOf(thread.toUpperCase(Locale.ROOT));
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("connections", connections);
        params.put("seconds", seconds);
        params.put("settle_seconds", settle);
        params.put("keepalive_ms", keepAliveMs == 0 ? NodeConfig.builder().build().keepAliveInterval().toMillis() : keepAliveMs);
        params.put("timeout_ms", NodeConfig.builder().build().timeout().toMillis());
        params.put("io_thread", mode.name().toLowerCase(Locale.ROOT));
        params.put("cpu_source", "/proc/PID/stat utime+stime and /proc/PID/task/*/schedstat of the measured node's JVM");
        Report report = new Report(NAME, params);
        System.out.printf(Locale.ROOT, "idle: one node in a child JVM, N idle connections from client nodes in this JVM, %.0f s each, keepalive %s ms; %s%n",
                seconds, params.get("keepalive_ms"), LoadAverage.describe(LoadAverage.oneMinute()));
        Table table = new Table("connections", "run", "cores (schedstat)", "cores (stat)", "I/O thread", "datagrams in/s", "datagrams out/s",
                "per connection /s", "load");
        for (int run = 1; run <= runs; run++) {
            for (int n : connections) {
                String system = "reliable-udp-" + n;
                Map<String, Object> f = report.run(system, run);
                double load = LoadAverage.oneMinute();
                try {
                    measure(n, run, f);
                    f.put("load_average", load);
                    table.row(n, run, String.format(Locale.ROOT, "%.4f", (double) f.get("cores_schedstat")),
                            String.format(Locale.ROOT, "%.4f", (double) f.get("cores_stat")),
                            String.format(Locale.ROOT, "%.4f", (double) f.get("cores_io_thread")),
                            Table.number((double) f.get("datagrams_in_per_s")), Table.number((double) f.get("datagrams_out_per_s")),
                            n == 0 ? "-" : Table.number(((double) f.get("datagrams_in_per_s") + (double) f.get("datagrams_out_per_s")) / n),
                            Table.number(load));
                } catch (Exception e) {
                    f.put("error", String.valueOf(e.getMessage()));
                    table.row(n, run, "error: " + e.getMessage(), "", "", "", "", "", Table.number(load));
                }
            }
        }
        table.print(System.out, "idle node: CPU of its JVM as a fraction of one core (target < 0.01 at 100 connections)");
        return finish(report);
    }

    private void measure(int n, int run, Map<String, Object> f) throws Exception {
        List<String> command = JavaCommand.command(JavaCommand.currentJava(), JavaCommand.harnessClassPath(),
                List.of("-Xmx256m", "-XX:+UseSerialGC"), IdleServer.class.getName(), List.of(String.valueOf(keepAliveMs), mode.name()));
        List<ReliableUdpNode> clients = new ArrayList<>();
        try (ChildProcess child = ChildProcess.start("idle-node", command, out().resolve("idle-node-" + n + "-" + run + ".log"))) {
            String portLine = child.awaitLine("PORT ", System.nanoTime() + 60 * SECOND);
            if (portLine == null) {
                throw new IllegalStateException("the node did not start (see " + child.log() + ")");
            }
            InetSocketAddress target = Loopback.address(Integer.parseInt(portLine.substring(5).trim()));
            NodeConfig.Builder cfg = Loopback.client().receiveThreadMode(mode);
            if (keepAliveMs > 0) {
                cfg.keepAliveInterval(Duration.ofMillis(keepAliveMs));
            }
            for (int i = 0; i < n; i++) {
                ReliableUdpNode c = ReliableUdpNode.start(cfg.build(), (p, ch, id, d) -> { });
                clients.add(c);
                c.connect(target).get(30, TimeUnit.SECONDS);
            }
            Thread.sleep((long) (settle * 1000));
            long pid = child.pid();
            long[] s0 = stats(child);
            long ticks0 = ProcessCpu.ticks(pid);
            long ns0 = ProcessCpu.schedstatNanos(pid, null);
            long io0 = ProcessCpu.schedstatNanos(pid, IO_THREAD);
            long t0 = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long ticks1 = ProcessCpu.ticks(pid);
            long ns1 = ProcessCpu.schedstatNanos(pid, null);
            long io1 = ProcessCpu.schedstatNanos(pid, IO_THREAD);
            long t1 = System.nanoTime();
            long[] s1 = stats(child);
            double elapsed = (t1 - t0) / 1e9;
            f.put("cores_stat", (ticks1 - ticks0) / (double) ProcessCpu.ticksPerSecond() / elapsed);
            f.put("cores_schedstat", (ns1 - ns0) / 1e9 / elapsed);
            f.put("cores_io_thread", (io1 - io0) / 1e9 / elapsed);
            f.put("datagrams_in_per_s", (s1[0] - s0[0]) / elapsed);
            f.put("datagrams_out_per_s", (s1[1] - s0[1]) / elapsed);
            f.put("peers", (double) s1[2]);
            if (s1[2] != n) {
                throw new IllegalStateException("the node has " + s1[2] + " peers, expected " + n + " (a connection timed out?)");
            }
            child.send("quit");
            child.closeStdin();
            child.waitFor(System.nanoTime() + 10 * SECOND);
        } finally {
            for (ReliableUdpNode c : clients) {
                c.close();
            }
        }
    }

    private static long[] stats(ChildProcess child) throws InterruptedException {
        child.send("stats");
        String line = child.awaitLine("STATS ", System.nanoTime() + 10 * SECOND);
        Matcher m = line == null ? null : STATS.matcher(line);
        if (m == null || !m.find()) {
            throw new IllegalStateException("no stats from the node (see " + child.log() + ")");
        }
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))};
    }
}
