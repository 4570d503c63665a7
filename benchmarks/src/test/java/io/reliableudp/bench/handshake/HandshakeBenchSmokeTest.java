package io.reliableudp.bench.handshake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The CI-sized run of the {@code handshakes} subcommand: every mode completes handshakes and no connect
 * fails. No figure of speed is asserted: the machine may be busy.
 */
class HandshakeBenchSmokeTest {

    @Test
    @Timeout(120)
    void everyModeCompletesHandshakesAndNoneFails() throws Exception {
        Path out = Path.of("target", "smoke-handshakes");
        String line = HandshakeBench.run("--modes", "plain,psk,identity,both", "--clients", "2", "--seconds", "1",
                "--warmup", "1", "--out", out.toString());
        JsonNode results = new ObjectMapper().readTree(line).path("results");
        for (String mode : new String[] {"plain", "psk", "identity", "both"}) {
            JsonNode r = results.path(mode);
            assertThat(r.path("handshakes_per_s").asDouble()).as(mode).isPositive();
            assertThat(r.path("failed_connects").asLong()).as(mode).isZero();
        }
        assertThat(out.resolve("handshakes.json")).content().isEqualToIgnoringNewLines(line);
    }
}
