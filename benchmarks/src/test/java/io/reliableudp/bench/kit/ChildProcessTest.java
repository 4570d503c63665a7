package io.reliableudp.bench.kit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Child processes stay bounded: a line that never comes ends the wait at its deadline, a child that hangs is
 * killed with its descendants and says so, and stdout and stdin work as the peers use them.
 */
class ChildProcessTest {

    @Test
    @Timeout(30)
    void aHangingChildIsKilledWithItsDescendants(@TempDir Path dir) throws Exception {
        ChildProcess child = ChildProcess.start("hanging", List.of("sh", "-c", "echo READY; sleep 300 & wait"), dir.resolve("hang.log"));
        assertThat(child.awaitLine("READY", System.nanoTime() + 10_000_000_000L)).isEqualTo("READY");
        long start = System.nanoTime();
        assertThat(child.awaitLine("DONE", System.nanoTime() + 300_000_000L)).isNull();
        assertThat(System.nanoTime() - start).isLessThan(5_000_000_000L);
        assertThat(child.waitFor(System.nanoTime() + 100_000_000L)).isFalse();
        List<ProcessHandle> descendants = ProcessHandle.of(child.pid()).orElseThrow().descendants().toList();
        assertThat(descendants).as("the shell's sleep").isNotEmpty();
        child.close();
        assertThat(child.wasKilled()).isTrue();
        assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        for (ProcessHandle d : descendants) {
            d.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(d.isAlive()).as("descendant " + d.pid()).isFalse();
        }
        assertThat(Files.readString(dir.resolve("hang.log"))).contains("READY");
    }

    @Test
    @Timeout(30)
    void stdinLinesReachTheChildAndItsAnswerIsRead(@TempDir Path dir) throws Exception {
        try (ChildProcess child = ChildProcess.start("echo", List.of("sh", "-c", "read line; echo \"GOT $line\"; echo oops >&2"),
                dir.resolve("echo.log"))) {
            child.send("GO");
            assertThat(child.awaitLine("GOT", System.nanoTime() + 10_000_000_000L)).isEqualTo("GOT GO");
            assertThat(child.waitFor(System.nanoTime() + 10_000_000_000L)).isTrue();
            assertThat(child.exitCode()).isZero();
            assertThat(child.awaitLine("GOT", System.nanoTime() + 1_000_000_000L)).as("nothing after the end").isNull();
            assertThat(child.wasKilled()).isFalse();
        }
        assertThat(Files.readString(dir.resolve("echo.log"))).contains("GOT GO").contains("[err] oops");
    }
}
