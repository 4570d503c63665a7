package io.reliableudp.spring.boot.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The dashboard only queries metrics that exist under their documented Prometheus names. */
class GrafanaDashboardTest {

    private static final Pattern METRIC = Pattern.compile("reliable_udp_[a-z_]+");

    @Test
    void everyPanelQueriesDocumentedPrometheusNames() throws Exception {
        Path dashboard = MetricsDocumentation.docs().resolveSibling("grafana/reliable-udp.json");
        JsonNode root = JsonMapper.builder().build().readTree(Files.readString(dashboard));
        Set<String> documented = new HashSet<>();
        for (List<String> names : MetricsDocumentation.prometheusNames().values()) {
            documented.addAll(names);
        }
        int expressions = 0;
        Set<String> used = new HashSet<>();
        for (JsonNode panel : root.get("panels")) {
            assertThat(panel.get("targets")).as(panel.get("title").asString()).isNotEmpty();
            for (JsonNode target : panel.get("targets")) {
                expressions++;
                Matcher m = METRIC.matcher(target.get("expr").asString());
                while (m.find()) {
                    used.add(m.group());
                }
            }
        }
        assertThat(expressions).isGreaterThanOrEqualTo(16);
        assertThat(documented).containsAll(used);
        // the headline signals are on it
        assertThat(used).contains("reliable_udp_rtt_seconds", "reliable_udp_packet_loss_ratio",
                "reliable_udp_bandwidth_bytes_per_second", "reliable_udp_messages_total", "reliable_udp_queue_messages",
                "reliable_udp_rtt_samples_seconds_bucket", "reliable_udp_peer_connected");
    }
}
