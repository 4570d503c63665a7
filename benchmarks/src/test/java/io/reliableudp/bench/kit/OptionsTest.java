package io.reliableudp.bench.kit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The subcommands' shared entry ({@link Options#run}) and {@code --systems}: the run starts only after the
 * declarations were accepted, {@code --help} runs nothing, and an unknown system or option is refused.
 */
class OptionsTest {

    private static final List<String> KNOWN = List.of("a", "b", "c");

    private static String run(List<String> ran, String... args) throws Exception {
        return Options.run("demo", args, o -> {
            List<String> systems = o.systems(KNOWN);
            double seconds = o.seconds(1);
            return () -> {
                ran.addAll(systems);
                return "ran " + systems + " for " + seconds;
            };
        });
    }

    @Test
    void runsTheRequestedSystemsAfterTheDeclarations() throws Exception {
        List<String> ran = new ArrayList<>();
        assertThat(run(ran, "--systems", "c,a", "--seconds", "2")).isEqualTo("ran [c, a] for 2.0");
        assertThat(ran).containsExactly("c", "a");
        ran.clear();
        assertThat(run(ran)).isEqualTo("ran [a, b, c] for 1.0");
    }

    @Test
    void helpRunsNothing() throws Exception {
        List<String> ran = new ArrayList<>();
        assertThat(run(ran, "--help")).isNull();
        assertThat(ran).isEmpty();
    }

    @Test
    void anUnknownSystemOrOptionIsRefusedBeforeTheRun() {
        List<String> ran = new ArrayList<>();
        assertThatThrownBy(() -> run(ran, "--systems", "a,x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("demo: unknown system x (known: a, b, c)");
        assertThatThrownBy(() -> run(ran, "--sistems", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("demo: unknown option --sistems");
        assertThat(ran).isEmpty();
    }
}
