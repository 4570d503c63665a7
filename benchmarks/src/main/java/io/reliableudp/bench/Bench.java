package io.reliableudp.bench;

import io.reliableudp.bench.flood.FloodBench;
import io.reliableudp.bench.handshake.HandshakeBench;
import io.reliableudp.bench.idle.IdleBench;
import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.DocsReport;
import io.reliableudp.bench.loss.LossBench;
import io.reliableudp.bench.loss.OutageBench;
import io.reliableudp.bench.pingpong.PingPongBench;
import io.reliableudp.bench.scale.ScaleBench;
import io.reliableudp.bench.soak.SoakBench;
import io.reliableudp.bench.throughput.ThroughputBench;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * The entry point of the benchmarks jar: {@code java -jar benchmarks/target/benchmarks.jar SUBCOMMAND [options]}.
 * Each subcommand finishes by itself, prints readable tables and, as its last line, one JSON object
 * ({@link io.reliableudp.bench.kit.Report}); {@code jmh} runs the JMH suites of the jar as {@code org.openjdk.jmh.Main}
 * does. {@code SUBCOMMAND --help} lists its options. The command line is picocli's: a mistyped option or a
 * bad value is refused with the subcommand's usage and exit status 2.
 */
@Command(name = "java -jar benchmarks/target/benchmarks.jar", description = "the benchmarks of reliable-udp (SUBCOMMAND --help for its options)",
        subcommands = {LossBench.class, ThroughputBench.class, PingPongBench.class, SoakBench.class, DocsReport.Command.class,
                OutageBench.class, IdleBench.class, FloodBench.class, ScaleBench.class, HandshakeBench.class, Bench.Jmh.class,
                CommandLine.HelpCommand.class})
public final class Bench implements Runnable {

    @Spec
    private CommandSpec spec;

    @Option(names = "--help", usageHelp = true, description = "this list of subcommands")
    private boolean help;

    /** Runs the subcommand named by the first argument. */
    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        CommandLine cl = BenchCommand.commandLine(new Bench());
        // a benchmark's own check of its options (e.g. loss rates outside 0..100): the message, not a stack trace
        cl.setExecutionExceptionHandler((e, command, parsed) -> {
            if (e instanceof IllegalArgumentException) {
                command.getErr().println(e.getMessage());
                return 2;
            }
            throw e;
        });
        int status = cl.execute(args);
        if (status != 0) {
            System.exit(status);
        }
    }

    /** No subcommand: the list of them. */
    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** {@code jmh}: every argument goes to JMH as it is. */
    @Command(name = "jmh", description = "the JMH suites of the jar (PacketExchangeBenchmark, MessageThroughputBenchmark), JMH's own options")
    public static final class Jmh implements Callable<Integer> {

        @Unmatched
        private List<String> args = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            org.openjdk.jmh.Main.main(args.toArray(String[]::new));
            return 0;
        }
    }
}
