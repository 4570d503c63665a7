package io.reliableudp.bench.loss;

import io.reliableudp.bench.kit.NetNamespace;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The CI-sized run of the {@code loss} benchmark (one loss rate, 5 s): every available system appears in the
 * JSON line, every one of them delivered every event, and the figures are positive and ordered. Through the
 * real lossy namespace it needs root (skipped with a message otherwise); the link-conditioner variants run anywhere,
 * one of them showing that the measured events follow the warm-up and the settle on one connection.
 * No figure is compared with another: the machine may be busy.
 */
class LossBenchSmokeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @Timeout(300)
    void everySystemDeliversEveryEventThroughFivePercentLoss() throws Exception {
        Assumptions.assumeTrue(NetNamespace.unavailable().isEmpty(),
                () -> "skipped: the loss benchmark smoke run needs a network namespace: " + NetNamespace.unavailable().orElse(""));
        Path out = Path.of("target", "smoke-loss");
        String line = LossBench.run("--loss", "5", "--seconds", "5", "--runs", "1", "--warmup", "300", "--settle-seconds", "1",
                "--grace", "15", "--out", out.toString());
        JsonNode result = JSON.readTree(line);

        List<String> expected = new ArrayList<>(List.of("reliable-udp", "tcp"));
        if (Files.isReadable(Path.of("..", "benchmarks-kcp", "target", "kcp-peer.jar"))) {
            expected.add("kcp");
        } else {
            assertThat(result.path("skipped").path("kcp").asString()).contains("not built");
        }
        if (EnetPeer.unavailable().isEmpty()) {
            expected.add("enet");
        } else {
            assertThat(result.path("skipped").path("enet").asString()).contains("libenet");
        }
        assertThat(result.path("benchmark").asString()).isEqualTo("loss");
        assertThat(result.path("params").path("network").asString()).isEqualTo("netns+nftables");
        assertThat(names(result.path("results"))).containsExactlyElementsOf(expected);
        for (String system : expected) {
            assertDeliveredEverything(result.path("results").path(system), system, 300);
            JsonNode figures = result.path("results").path(system);
            assertThat(figures.path("loss5/bytes_to_receiver").asLong()).as(system + " data direction").isPositive();
            assertThat(figures.path("loss5/bytes_from_receiver").asLong()).as(system + " ack direction").isPositive();
            // events of 64 B cost at least their own IP, UDP/TCP headers and payload
            assertThat(figures.path("loss5/bytes_per_event").asDouble()).as(system).isGreaterThan(64 + 28);
            // the receiver got the settle (and a Java sender's warm-up) on the connection it was measured on
            assertThat(figures.path("loss5/warm_events").asLong()).as(system + " events before the measured ones")
                    .isGreaterThanOrEqualTo(system.equals("enet") ? 60 : 300 + 60);
        }
        assertThat(out.resolve("loss.json")).content().isEqualToIgnoringNewLines(line);
        assertThat(Files.size(out.resolve("loss.png"))).isPositive();
    }

    @Test
    @Timeout(120)
    void withoutNamespaceTheLibraryRunsOverItsOwnLinkConditioner() throws Exception {
        String line = LossBench.run("--network", "conditioner", "--loss", "5", "--seconds", "3", "--runs", "1",
                "--warmup", "200", "--settle-seconds", "0", "--grace", "15", "--out", Path.of("target", "smoke-loss-conditioner").toString());
        JsonNode result = JSON.readTree(line);
        assertThat(result.path("params").path("network").asString()).isEqualTo("link-conditioner");
        assertThat(names(result.path("results"))).containsExactly(LossBench.CONDITIONER_SYSTEM);
        assertThat(names(result.path("skipped"))).containsExactly("tcp", "kcp", "enet");
        JsonNode figures = result.path("results").path(LossBench.CONDITIONER_SYSTEM);
        assertDeliveredEverything(figures, LossBench.CONDITIONER_SYSTEM, 180);
        assertThat(figures.path("loss5/bytes_per_event").asDouble()).isGreaterThan(64 + 28);
    }

    @Test
    @Timeout(120)
    void theMeasuredEventsFollowTheWarmUpAndTheSettleOnTheSameConnection() throws Exception {
        String line = LossBench.run("--network", "conditioner", "--loss", "0", "--seconds", "2", "--runs", "1",
                "--warmup", "400", "--settle-seconds", "1.5", "--grace", "15", "--out", Path.of("target", "smoke-loss-settle").toString());
        JsonNode result = JSON.readTree(line);
        assertThat(result.path("params").path("settle_seconds").asDouble()).isEqualTo(1.5);
        JsonNode figures = result.path("results").path(LossBench.CONDITIONER_SYSTEM);
        assertThat(figures.path("loss0/delivered").asInt()).isEqualTo(120);
        // the receiver counts the events of its own connection before the first measured one: the warm-up
        // (400) and 1.5 s at 60 Hz (90) at least; a warm-up or settle on another connection would leave 0
        assertThat(figures.path("loss0/warm_events").asLong()).isGreaterThanOrEqualTo(400 + 90);
        // the nodes' own counters count from the first measured event: with the 490 earlier events about 750 B
        assertThat(figures.path("loss0/bytes_per_event").asDouble()).isBetween(64.0 + 28, 300.0);
    }

    @Test
    void theCountersOfAPeerAreTakenFromTheFirstMeasuredEvent() {
        assertThat(LossPeer.since("bytes=1500 datagrams=20 rtt_ms=0.1", "bytes=1000 datagrams=12 rtt_ms=0.2"))
                .isEqualTo("bytes=500 datagrams=8 rtt_ms=0.1");
        assertThat(LossPeer.since("bytes=1500 datagrams=20", "")).isEqualTo("bytes=1500 datagrams=20");
    }

    @Test
    void aNegativeSettleIsRefusedBeforeTheRun() {
        assertThatThrownBy(() -> LossBench.run("--network", "conditioner", "--settle-seconds", "-1",
                "--out", Path.of("target", "smoke-loss-refused").toString()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--settle-seconds must be 0..3600");
    }

    @Test
    @Timeout(300)
    void throughTheDelayLineTheUdpSystemsSeeTheDelayAndTcpIsLeftOut() throws Exception {
        Assumptions.assumeTrue(NetNamespace.unavailable().isEmpty(),
                () -> "skipped: the delayed loss run needs a network namespace: " + NetNamespace.unavailable().orElse(""));
        String line = LossBench.run("--delay-ms", "5", "--loss", "5", "--systems", "reliable-udp,tcp", "--seconds", "3",
                "--runs", "1", "--warmup", "200", "--settle-seconds", "1", "--grace", "15", "--out", Path.of("target", "smoke-loss-delay").toString());
        JsonNode result = JSON.readTree(line);
        assertThat(result.path("params").path("delay_ms").get(0).asDouble()).isEqualTo(5.0);
        assertThat(names(result.path("results"))).containsExactly("reliable-udp");
        assertThat(result.path("skipped").path("tcp").asString()).contains("terminates TCP");
        JsonNode figures = result.path("results").path("reliable-udp");
        assertThat(figures.path("delay5ms/loss5/delivered").asInt()).isEqualTo(180);
        assertThat(figures.path("delay5ms/loss5/duplicates").asInt()).isZero();
        // no event can arrive before the line's delay less its jitter (10 %): a lower bound, never a speed
        assertThat(figures.path("delay5ms/loss5/p50_ms").asDouble()).isGreaterThanOrEqualTo(4.5);
        assertThat(figures.path("delay5ms/loss5/bytes_per_event").asDouble()).isGreaterThan(64 + 28);
    }

    private static void assertDeliveredEverything(JsonNode figures, String system, int events) {
        assertThat(figures.path("loss5/error").isMissingNode()).as(system + ": " + figures.path("loss5/error")).isTrue();
        assertThat(figures.path("loss5/expected").asInt()).as(system).isEqualTo(events);
        assertThat(figures.path("loss5/delivered").asInt()).as(system + " delivered every event").isEqualTo(events);
        assertThat(figures.path("loss5/refused").asInt()).as(system).isZero();
        double p50 = figures.path("loss5/p50_ms").asDouble();
        double p99 = figures.path("loss5/p99_ms").asDouble();
        double max = figures.path("loss5/max_ms").asDouble();
        assertThat(p50).as(system + " p50").isPositive();
        assertThat(p99).as(system + " p99").isGreaterThanOrEqualTo(p50);
        assertThat(max).as(system + " max").isGreaterThanOrEqualTo(p99);
        assertThat(figures.path("runs").size()).as(system + " runs").isEqualTo(1);
        assertThat(figures.path("runs").get(0).path("loss5/load1").isNumber()).as(system + " load average recorded").isTrue();
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.propertyNames().forEach(names::add);
        return names;
    }
}
