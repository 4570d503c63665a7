package io.reliableudp.bench;

import io.reliableudp.bench.flood.FloodBench;
import io.reliableudp.bench.handshake.HandshakeBench;
import io.reliableudp.bench.idle.IdleBench;
import io.reliableudp.bench.loss.LossBench;
import io.reliableudp.bench.loss.OutageBench;
import io.reliableudp.bench.pingpong.PingPongBench;
import io.reliableudp.bench.scale.ScaleBench;
import io.reliableudp.bench.soak.SoakBench;
import io.reliableudp.bench.throughput.ThroughputBench;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The entry point of the benchmarks jar: {@code java -jar benchmarks/target/benchmarks.jar SUBCOMMAND [options]}.
 * Each subcommand finishes by itself, prints readable tables and, as its last line, one JSON object
 * ({@link io.reliableudp.bench.kit.Report}); {@code jmh} runs the JMH suites of the jar as {@code org.openjdk.jmh.Main}
 * does. {@code SUBCOMMAND --help} lists its options.
 */
public final class Bench {

    /** One subcommand. */
    @FunctionalInterface
    private interface Command {
        void run(String[] args) throws Exception;
    }

    private record Entry(String help, Command command) {
    }

    private static final Map<String, Entry> COMMANDS = new LinkedHashMap<>();

    static {
        COMMANDS.put("loss", new Entry("delivery latency and bytes per event through N% packet loss, beside TCP, KCP and ENet",
                args -> LossBench.main(args)));
        COMMANDS.put("throughput", new Entry("loopback messages/s by size and connections, reliable and unreliable, beside raw UDP, "
                + "TCP, Aeron, KCP and Spring Integration UDP", ThroughputBench::main));
        COMMANDS.put("pingpong", new Entry("loopback round trip (p50..max) with the defaults and the low-latency setting, beside raw UDP, "
                + "TCP, Aeron and KCP", PingPongBench::main));
        COMMANDS.put("soak", new Entry("N reliable-ordered messages over loopback through loss, duplication, reordering and jitter: 0 lost, heap flat",
                SoakBench::main));
        COMMANDS.put("report", new Entry("rewrite the generated tables of docs/benchmarks.md and README.md from docs/benchmarks/*.json "
                + "(--check: only compare)", io.reliableudp.bench.kit.DocsReport::main));
        COMMANDS.put("outage", new Entry("a 2 s blackhole at 2,000 msg/s: the last QUEUE_FULL and the full rate after the path returns",
                OutageBench::main));
        COMMANDS.put("idle", new Entry("CPU of a node's JVM with N idle connections over 10 s, from /proc (target < 1% of a core at 100)",
                IdleBench::main));
        COMMANDS.put("flood", new Entry("a client/server pair at 2,000 msg/s while child JVMs flood the server with 200k garbage datagrams/s: "
                + "latency and QUEUE_FULL quiet vs flooded, with and without dedicated sockets", FloodBench::main));
        COMMANDS.put("scale", new Entry("one server, 1,000 and 5,000 clients at 20 msg/s each from a few client JVMs: server CPU per message, "
                + "heap per connection, timeouts", ScaleBench::main));
        COMMANDS.put("handshakes", new Entry("handshakes per second a node completes over loopback, by mode (psk, identity, both, plain) in one run",
                HandshakeBench::main));
        COMMANDS.put("jmh", new Entry("the JMH suites of the jar (PacketExchangeBenchmark, MessageThroughputBenchmark), JMH's own options",
                org.openjdk.jmh.Main::main));
    }

    private Bench() {
    }

    /** Runs the subcommand named by the first argument. */
    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        if (args.length == 0 || args[0].equals("help") || args[0].equals("--help")) {
            usage();
            return;
        }
        Entry entry = COMMANDS.get(args[0]);
        if (entry == null) {
            System.err.println("unknown subcommand '" + args[0] + "' (a JMH suite runs as: jmh " + args[0] + ")");
            usage();
            System.exit(2);
            return;
        }
        try {
            entry.command().run(Arrays.copyOfRange(args, 1, args.length));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
        }
    }

    private static void usage() {
        System.out.println("usage: java -jar benchmarks/target/benchmarks.jar SUBCOMMAND [options]   (SUBCOMMAND --help for its options)");
        COMMANDS.forEach((name, e) -> System.out.printf("  %-10s %s%n", name, e.help()));
    }
}
