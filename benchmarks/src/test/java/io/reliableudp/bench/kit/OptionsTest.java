package io.reliableudp.bench.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.bench.Bench;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The subcommands' command line ({@link BenchCommand}, picocli): the run starts only after the options were
 * accepted, {@code --help} runs nothing, an unknown system, option or bad value is refused, and every
 * subcommand of the jar declares its options consistently and answers {@code --help}.
 */
class OptionsTest {

    private static final List<String> KNOWN = List.of("a", "b", "c");

    @Command(name = "demo")
    static final class Demo extends BenchCommand {
        final List<String> ran = new ArrayList<>();

        @Option(names = "--systems", split = ",", defaultValue = "a,b,c")
        List<String> systems;
        @Option(names = "--seconds", defaultValue = "1", converter = Seconds.class)
        double seconds;
        @Option(names = "--runs", defaultValue = "3", converter = Runs.class)
        int runs;

        @Override
        public String call() {
            ran.addAll(systems(systems, KNOWN));
            return "ran " + systems + " for " + seconds + " x" + runs;
        }
    }

    @Test
    void runsTheRequestedSystemsAfterTheOptions() throws Exception {
        Demo demo = new Demo();
        assertThat(BenchCommand.run(demo, "--systems", "c,a", "--seconds=2")).isEqualTo("ran [c, a] for 2.0 x3");
        assertThat(demo.ran).containsExactly("c", "a");
        assertThat(BenchCommand.run(new Demo())).isEqualTo("ran [a, b, c] for 1.0 x3");
    }

    @Test
    void helpRunsNothing() throws Exception {
        Demo demo = new Demo();
        assertThat(BenchCommand.run(demo, "--help")).isNull();
        assertThat(demo.ran).isEmpty();
    }

    @Test
    void anUnknownSystemOrOptionOrABadValueIsRefusedBeforeTheRun() {
        Demo demo = new Demo();
        assertThatThrownBy(() -> BenchCommand.run(demo, "--systems", "a,x")).isInstanceOf(ParameterException.class)
                .hasMessage("demo: unknown system x (known: a, b, c)");
        assertThatThrownBy(() -> BenchCommand.run(demo, "--sistems", "a")).isInstanceOf(ParameterException.class)
                .hasMessageStartingWith("Unknown options: '--sistems'");
        assertThatThrownBy(() -> BenchCommand.run(demo, "--runs", "two")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("cannot convert 'two' to int");
        assertThatThrownBy(() -> BenchCommand.run(demo, "--runs", "0")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("must be >= 1");
        assertThatThrownBy(() -> BenchCommand.run(demo, "--seconds", "0")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("must be > 0");
        assertThatThrownBy(() -> BenchCommand.run(demo, "5")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("Unmatched argument");
        assertThat(demo.ran).isEmpty();
    }

    @Test
    void everySubcommandOfTheJarAnswersHelpWithItsOptions() {
        CommandLine jar = BenchCommand.commandLine(new Bench());
        assertThat(jar.getSubcommands().keySet()).containsAll(List.of("loss", "throughput", "pingpong", "soak", "report", "outage",
                "idle", "flood", "scale", "handshakes", "jmh"));
        StringWriter out = new StringWriter();
        jar.setOut(new PrintWriter(out));
        for (String name : List.of("loss", "throughput", "pingpong", "soak", "report", "outage", "idle", "flood", "scale", "handshakes")) {
            assertThat(jar.execute(name, "--help")).as(name).isZero();
        }
        assertThat(out.toString()).contains("--kcp-jar=JAR", "--aeron-target=DIR", "--network=<", "--systems=SYSTEM", "--out=DIR",
                "--check", "--modes=<", "Default: 0,1,5,10,20");
        StringWriter err = new StringWriter();
        jar.setErr(new PrintWriter(err));
        assertThat(jar.execute("loss", "--sconds", "3")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown options: '--sconds'");
    }
}
