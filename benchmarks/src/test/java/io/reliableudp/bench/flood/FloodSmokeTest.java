package io.reliableudp.bench.flood;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The CI-sized run of the {@code flood} benchmark: 5,000 garbage datagrams/s for 2 s from one flooder
 * JVM while the pair exchanges 200 msg/s, with and without a dedicated socket. Both settings appear
 * in the JSON line, every reliable message the client's node took was delivered, the garbage was sent
 * and rejected by the server, and the latency figures are there and ordered. No figure is compared
 * with another (the machine may be busy): the target is reported, not asserted.
 */
class FloodSmokeTest {

    @Test
    @Timeout(300)
    void thePairDeliversEverythingWhileGarbageIsSentAndRejected() throws Exception {
        Path out = Path.of("target", "smoke-flood");
        String line = FloodBench.run("--rate", "5000", "--seconds", "2", "--quiet-seconds", "1", "--warmup-seconds", "1", "--msg-rate", "200",
                "--flooders", "1", "--sockets", "2", "--dedicated", "0,1", "--out", out.toString());
        JsonNode result = new ObjectMapper().readTree(line);
        assertThat(result.path("benchmark").asString()).isEqualTo("flood");
        for (String system : new String[] {"dedicated-0", "dedicated-1"}) {
            JsonNode r = result.path("results").path(system);
            assertThat(r.path("error").isMissingNode()).as(system + ": " + r.path("error")).isTrue();
            assertThat(r.path("sent").asLong()).as(system + " sent").isPositive();
            assertThat(r.path("delivered").asLong()).as(system + ": every reliable message taken was delivered")
                    .isEqualTo(r.path("sent").asLong());
            assertThat(r.path("messages_flood").asLong()).as(system + " messages during the flood").isPositive();
            assertThat(r.path("garbage_sent").asLong()).as(system + " garbage sent").isGreaterThan(5000);
            assertThat(r.path("garbage_rejected_flood").asLong()).as(system + " garbage rejected").isPositive();
            assertThat(r.path("quiet_p50_ms").asDouble()).isPositive().isLessThanOrEqualTo(r.path("quiet_p99_ms").asDouble());
            assertThat(r.path("flood_p99_ms").asDouble()).isPositive().isLessThanOrEqualTo(r.path("flood_max_ms").asDouble());
            assertThat(r.path("target_met").asInt()).isBetween(0, 1);
        }
        assertThat(out.resolve("flood.json")).content().isEqualToIgnoringNewLines(line);
    }

    @Test
    void theKernelCountersAreReadWhereLinuxHasThem() {
        Map<String, Long> udp = FloodBench.udpCounters();
        if (Path.of("/proc/net/snmp").toFile().canRead()) {
            assertThat(udp).containsKeys("InDatagrams", "InErrors", "RcvbufErrors");
        } else {
            assertThat(udp).isEmpty();
        }
    }
}
