package io.reliableudp.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import io.reliableudp.bench.kit.ProcessCpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The CI-sized scale run: a server JVM and a client JVM, 200 clients connecting at once with the
 * defaults and sending 20 reliable messages a second each for 3 s. Every client connects, none times
 * out, every message sent is acknowledged, the figures are there and plausible. No figure of speed is
 * asserted (the machine may be busy); the heap per connection only against a loose bound (200
 * connections make a small difference of two heap readings: the 64 KiB budget is checked exactly by
 * the core's {@code IdleConnectionMemoryTest}).
 */
class ScaleSmokeTest {

    @Test
    @Timeout(300)
    void twoHundredClientsConnectAtOnceSendAndAreAllAcknowledgedWithoutATimeout() throws Exception {
        Path out = Path.of("target", "smoke-scale");
        String line = ScaleBench.run("--clients", "200", "--seconds", "3", "--warmup", "1", "--client-jvms", "1",
                "--server-heap", "256m", "--out", out.toString());
        JsonNode r = new ObjectMapper().readTree(line).path("results").path("clients-200");
        assertThat(r.path("error").isMissingNode()).as(r.path("error").toString()).isTrue();
        assertThat(r.path("connected").asLong()).isEqualTo(200);
        assertThat(r.path("timeouts").asLong()).isZero();
        assertThat(r.path("connections_ended").asLong()).isZero();
        assertThat(r.path("sent").asLong()).as("messages sent").isPositive();
        assertThat(r.path("acknowledged").asLong()).as("every message sent acknowledged").isEqualTo(r.path("sent").asLong());
        assertThat(r.path("unacknowledged").asLong()).isZero();
        assertThat(r.path("failed").asLong()).isZero();
        assertThat(r.path("delivered_per_s").asDouble()).isPositive();
        assertThat(r.path("server_cpu_seconds_per_message").asDouble()).isPositive();
        assertThat(r.path("heap_per_connection_idle_kib").asDouble()).isBetween(1.0, 256.0);
        assertThat(r.path("heap_per_connection_after_kib").asDouble()).isBetween(1.0, 256.0);
        assertThat(out.resolve("scale.json")).content().isEqualToIgnoringNewLines(line);
        // the load generator yields to the server: the client JVM ran niced, the server not
        assertThat(out.resolve("logs/clients200-auto-run1-clients0.log")).content().startsWith("$ nice -n 10 ");
        assertThat(out.resolve("logs/clients200-auto-run1-server.log")).content().doesNotStartWith("$ nice");
    }

    @Test
    void theCpuTimeOfAProcessIsReadFromProc() throws Exception {
        long pid = ProcessHandle.current().pid();
        long before = ProcessCpu.ticks(pid);
        long spin = System.nanoTime() + 300_000_000L;
        double x = 0;
        while (System.nanoTime() < spin) {
            x += Math.sqrt(x + 1);
        }
        assertThat(x).isPositive();
        assertThat(ProcessCpu.ticks(pid)).as("this JVM's CPU ticks move while it computes").isGreaterThan(before);
        assertThat(ProcessCpu.ticksPerSecond()).isPositive();
        assertThat(ScaleBench.field("STATUS connections=12 delivered=-1", "connections")).isEqualTo(12);
    }
}
