package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.spring.boot.autoconfigure.metrics.ReliableUdpMetricsAutoConfiguration;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.search.Search;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@Timeout(30)
class ReliableUdpMetricsTest {

    private final FakeNode node = new FakeNode(40001);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpMetricsAutoConfiguration.class,
                    // binds the MeterBinder beans to the registry bean, as in an application
                    org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class))
            .withBean("udp", ReliableUdpNode.class, () -> node)
            .withBean(MeterRegistry.class, () -> registry)
            .withBean(UdpPeerDirectory.class, () -> FakeNode.names("server", "127.0.0.1:40000", "backup", "localhost:40009"))
            .withPropertyValues("reliable-udp.metrics.refresh-interval=1h");

    @Test
    void everyDocumentedMeterExistsMovesWithTrafficAndNothingUndocumentedIsRegistered() throws Exception {
        Map<String, String> documented = MetricsDocumentation.types();
        assertThat(documented).hasSize(MeterSpec.ALL.size());
        FakePeer server = node.connect(40000);
        node.traffic(1);
        runner.run(context -> {
            ReliableUdpMetrics metrics = context.getBean(ReliableUdpMetrics.class);
            // registered at start
            for (String name : documented.keySet()) {
                assertThat(registry.find(name).meters()).as(name).isNotEmpty();
            }
            Set<String> registered = registry.getMeters().stream().map(m -> m.getId().getName())
                    .filter(n -> n.startsWith("reliable.udp"))
                    // the simple registry shows the timer's buckets as extra gauges
                    .filter(n -> !n.equals("reliable.udp.rtt.samples.histogram")).collect(Collectors.toCollection(TreeSet::new));
            assertThat(registered).isEqualTo(new TreeSet<>(documented.keySet()));
            // documented type matches the registered type
            for (Meter m : registry.getMeters()) {
                String type = documented.get(m.getId().getName());
                if (type == null) {
                    continue;
                }
                switch (m) {
                    case TimeGauge t -> assertThat(type).as(m.getId().getName()).isEqualTo("TimeGauge");
                    case Gauge g -> assertThat(type).as(m.getId().getName()).isEqualTo("Gauge");
                    case FunctionCounter c -> assertThat(type).as(m.getId().getName()).isEqualTo("FunctionCounter");
                    case Timer t -> assertThat(type).as(m.getId().getName()).startsWith("Timer");
                    default -> throw new AssertionError("unexpected meter type " + m);
                }
            }

            Map<Meter.Id, Double> before = counterValues();
            long timerCountBefore = registry.get("reliable.udp.rtt.samples").tag("peer", "server").timer().count();
            node.connect(40009); // a new connection: connections.opened moves too
            node.traffic(7);
            server.rtt(42).loss(12.5f).kbps(800).congested(true);
            // every sample the packet layer took is recorded, not the smoothed value once per refresh
            assertThat(node.rttSubscriberCount()).isEqualTo(1);
            node.rttSamples(server, 40, 41.5f, 42, 44, 39);
            metrics.refresh();

            // every counter moved, by the traffic
            Map<Meter.Id, Double> after = counterValues();
            assertThat(after.keySet()).containsAll(before.keySet());
            // (reasons the fake never reports stay at their pre-registered 0: see reasonMetersExistAtZero...)
            before.forEach((id, value) -> {
                if (id.getTag("reason") == null || after.get(id) > 0) {
                    assertThat(after.get(id)).as(id.toString()).isGreaterThan(value);
                }
            });
            assertThat(registry.get("reliable.udp.packets").tags("peer", "server", "event", "sent").functionCounter().count())
                    .isEqualTo(8);
            assertThat(registry.get("reliable.udp.messages").tags("peer", "server", "channel", "1", "event", "resent")
                    .functionCounter().count()).isEqualTo(8);
            assertThat(registry.get("reliable.udp.messages").tags("peer", "server", "channel", "1", "event", "expired")
                    .functionCounter().count()).isEqualTo(8);
            assertThat(registry.get("reliable.udp.messages").tags("peer", "server", "channel", "1", "event", "expired_received")
                    .functionCounter().count()).isEqualTo(8);
            assertThat(registry.get("reliable.udp.datagrams.dropped").tags("node", "udp", "reason", "malformed")
                    .functionCounter().count()).isEqualTo(8);
            // every gauge follows the stats, in base units
            assertThat(gauge("reliable.udp.rtt")).isEqualTo(0.042, within());
            assertThat(gauge("reliable.udp.rtt.min")).isEqualTo(0.042 * 0.8, within());
            assertThat(gauge("reliable.udp.rtt.max")).isEqualTo(0.042 * 1.5, within());
            assertThat(gauge("reliable.udp.jitter")).isEqualTo(0.0042, within());
            assertThat(gauge("reliable.udp.jitter.max")).isEqualTo(0.042 * 0.4, within());
            assertThat(gauge("reliable.udp.jitter.stddev")).isEqualTo(0.042 * 0.05, within());
            assertThat(gauge("reliable.udp.packet.loss")).isEqualTo(0.125, within());
            assertThat(registry.get("reliable.udp.bandwidth").tags("peer", "server", "direction", "sent").gauge().value())
                    .isEqualTo(100_000, within());
            assertThat(gauge("reliable.udp.congested")).isEqualTo(1);
            assertThat(gauge("reliable.udp.send.rate")).isEqualTo(30);
            assertThat(gauge("reliable.udp.peer.connected")).isEqualTo(1);
            assertThat(registry.get("reliable.udp.queue.messages").tags("peer", "server", "channel", "1").gauge().value())
                    .isEqualTo(4);
            assertThat(registry.get("reliable.udp.queue.bytes").tags("peer", "server", "channel", "1").gauge().value())
                    .isEqualTo(4 * 64);
            assertThat(registry.get("reliable.udp.connections").tag("node", "udp").gauge().value()).isEqualTo(2);
            assertThat(registry.get("reliable.udp.peer.connected").tag("peer", "backup").gauge().value()).isEqualTo(1);
            assertThat(registry.get("reliable.udp.node.open").gauge().value()).isEqualTo(1);
            Timer samples = registry.get("reliable.udp.rtt.samples").tag("peer", "server").timer();
            assertThat(samples.count()).isEqualTo(timerCountBefore + 5);
            assertThat(samples.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(44, within());
            assertThat(samples.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(206.5, within());
            // refreshes alone record nothing
            metrics.refresh();
            assertThat(samples.count()).isEqualTo(timerCountBefore + 5);
        });
        assertThat(node.rttSubscriberCount()).isZero();
        // context closed: every meter removed
        assertThat(registry.getMeters()).noneMatch(m -> m.getId().getName().startsWith("reliable.udp"));
    }

    @Test
    void metersOfAPeerAreRemovedWhenItGoesAndComeBackMonotonic() {
        FakePeer server = node.connect(40000);
        server.traffic(5);
        runner.run(context -> {
            ReliableUdpMetrics metrics = context.getBean(ReliableUdpMetrics.class);
            assertThat(registry.get("reliable.udp.peer.bytes").tags("peer", "server", "direction", "sent")
                    .functionCounter().count()).isEqualTo(500);
            node.remove(server); // timed out
            metrics.refresh();
            // only the configured peer's presence gauge stays, at 0
            assertThat(peerMeterNames("server")).containsExactly("reliable.udp.peer.connected");
            assertThat(gauge("reliable.udp.peer.connected")).isZero();

            FakePeer again = node.connect(40000);
            again.traffic(2);
            metrics.refresh();
            // the new connection's counts continue on top of the old ones
            assertThat(registry.get("reliable.udp.peer.bytes").tags("peer", "server", "direction", "sent")
                    .functionCounter().count()).isEqualTo(700);
            assertThat(gauge("reliable.udp.peer.connected")).isEqualTo(1);
        });
    }

    @Test
    void unnamedPeersShareTheBoundedTagOtherWithMonotonicSums() {
        List<FakePeer> clients = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            FakePeer p = node.connect(50_000 + i);
            p.traffic(1).rtt(10 + i % 10);
            clients.add(p);
        }
        runner.run(context -> {
            ReliableUdpMetrics metrics = context.getBean(ReliableUdpMetrics.class);
            Set<String> peerTags = registry.getMeters().stream().map(m -> m.getId().getTag("peer"))
                    .filter(java.util.Objects::nonNull).collect(Collectors.toSet());
            assertThat(peerTags).containsExactlyInAnyOrder("other", "server", "backup");
            assertThat(registry.get("reliable.udp.packets").tags("peer", "other", "event", "acked")
                    .functionCounter().count()).isEqualTo(200);
            assertThat(gauge("reliable.udp.peer.connected", "other")).isEqualTo(200);
            assertThat(registry.get("reliable.udp.rtt").tag("peer", "other").timeGauge().value()).isEqualTo(0.0145, within());
            assertThat(registry.get("reliable.udp.rtt.max").tag("peer", "other").timeGauge().value()).isEqualTo(0.019 * 1.5, within());
            // samples of every unnamed peer land in the one timer of the group
            for (FakePeer p : clients) {
                node.rttSamples(p, 3, 7);
            }
            assertThat(registry.get("reliable.udp.rtt.samples").tag("peer", "other").timer().count()).isEqualTo(400);
            int metersBefore = registry.getMeters().size();

            for (int i = 0; i < 150; i++) {
                node.remove(clients.get(i));
            }
            clients.get(199).traffic(1);
            metrics.refresh();
            // departed clients keep their counts in the sum: never decreasing
            assertThat(registry.get("reliable.udp.packets").tags("peer", "other", "event", "acked")
                    .functionCounter().count()).isEqualTo(201);
            assertThat(gauge("reliable.udp.peer.connected", "other")).isEqualTo(50);
            assertThat(registry.getMeters()).hasSize(metersBefore);

            for (int i = 150; i < 200; i++) {
                node.remove(clients.get(i));
            }
            metrics.refresh();
            assertThat(peerMeterNames("other")).isEmpty();
        });
    }

    @Test
    void theScheduleRefreshesWithoutBeingAsked() {
        FakePeer server = node.connect(40000);
        runner.withPropertyValues("reliable-udp.metrics.refresh-interval=20ms").run(context -> {
            server.rtt(77);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(gauge("reliable.udp.rtt")).isEqualTo(0.077, within()));
            node.close();
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(registry.get("reliable.udp.node.open").gauge().value()).isZero());
            assertThat(peerMeterNames("server")).containsExactly("reliable.udp.peer.connected");
        });
    }

    @Test
    void aFailingNodeIsCountedAndTheOthersStillRefresh() {
        FakeNode broken = new FakeNode(40002) {
            @Override
            public synchronized io.reliableudp.transport.NodeStats stats() {
                throw new IllegalStateException("boom");
            }
        };
        node.connect(40000);
        runner.withBean("broken", ReliableUdpNode.class, () -> broken).run(context -> {
            ReliableUdpMetrics metrics = context.getBean(ReliableUdpMetrics.class);
            long failures = metrics.refreshFailures();
            assertThat(failures).isPositive();
            metrics.refresh();
            assertThat(metrics.refreshFailures()).isEqualTo(failures + 1);
            assertThat(registry.get("reliable.udp.node.open").tag("node", "udp").gauge().value()).isEqualTo(1);
        });
    }

    @Test
    void everyDocumentedPrometheusNameIsScraped() throws Exception {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        node.connect(40000).traffic(3);
        node.connect(50000).traffic(3);
        ReliableUdpMetrics metrics = new ReliableUdpMetrics(Map.of("udp", node),
                UdpPeerDirectory.of(Map.of("server", new java.net.InetSocketAddress("127.0.0.1", 40000))),
                Duration.ofSeconds(1), null);
        metrics.bindTo(prometheus);
        metrics.refresh();
        String scrape = prometheus.scrape();
        Map<String, List<String>> documented = MetricsDocumentation.prometheusNames();
        assertThat(documented).hasSize(MeterSpec.ALL.size());
        documented.forEach((name, promNames) -> {
            assertThat(promNames).as(name).isNotEmpty();
            for (String p : promNames) {
                assertThat(scrape).as(name + " -> " + p).containsPattern("(?m)^" + p + "\\{");
            }
        });
        assertThat(scrape).contains("peer=\"server\"").contains("peer=\"other\"").contains("node=\"udp\"");
        metrics.stop();
    }

    @Test
    void ordersAfterBootsRegistriesAndHonoursMeterFilters() {
        AutoConfigurations boot = AutoConfigurations.of(ReliableUdpMetricsAutoConfiguration.class,
                org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration.class,
                org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration.class,
                org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration.class);
        node.connect(40000);
        new ApplicationContextRunner().withConfiguration(boot)
                .withBean("udp", ReliableUdpNode.class, () -> node)
                .withBean(UdpPeerDirectory.class, () -> FakeNode.names("server", "127.0.0.1:40000"))
                .run(context -> {
                    assertThat(context).hasSingleBean(ReliableUdpMetrics.class);
                    MeterRegistry boots = context.getBean(MeterRegistry.class);
                    assertThat(boots.get("reliable.udp.rtt").tag("peer", "server").timeGauge().value()).isEqualTo(0.01, within());
                });
        new ApplicationContextRunner().withConfiguration(boot)
                .withBean("udp", ReliableUdpNode.class, () -> new FakeNode(40001))
                .withPropertyValues("management.metrics.enable.reliable.udp=false")
                .run(context -> assertThat(context.getBean(MeterRegistry.class).find("reliable.udp.node.open").meters())
                        .isEmpty());
    }

    @Test
    void backsOffWithoutMicrometerWithoutARegistryOrWithoutANode() {
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReliableUdpMetrics.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ReliableUdpMetricsAutoConfiguration.class))
                .withBean("udp", ReliableUdpNode.class, () -> node)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReliableUdpMetrics.class));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ReliableUdpMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, () -> registry)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ReliableUdpMetrics.class));
    }

    @Test
    void reasonMetersExistAtZeroBeforeTheFirstEvent() {
        // an alert on rate(reliable_udp_handshake_failures_total{reason="wrong_key"}) needs a series
        runner.run(context -> {
            context.getBean(ReliableUdpMetrics.class).refresh();
            for (io.reliableudp.DropReason r : io.reliableudp.DropReason.values()) {
                assertThat(registry.get("reliable.udp.datagrams.dropped").tags("node", "udp", "reason", r.key())
                        .functionCounter().count()).as(r.key()).isZero();
            }
            for (io.reliableudp.HandshakeFailure r : io.reliableudp.HandshakeFailure.values()) {
                assertThat(registry.get("reliable.udp.handshake.failures").tags("node", "udp", "reason", r.key())
                        .functionCounter().count()).as(r.key()).isZero();
            }
        });
    }

    @Test
    void rejectsWrongSettingsNamingTheProperty() {
        runner.withPropertyValues("reliable-udp.metrics.refresh-interval=1ms")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("reliable-udp.metrics.refresh-interval"));
    }

    private Map<Meter.Id, Double> counterValues() {
        Map<Meter.Id, Double> out = new HashMap<>();
        for (Meter m : registry.getMeters()) {
            if (m instanceof FunctionCounter c && m.getId().getName().startsWith("reliable.udp")) {
                out.put(m.getId(), c.count());
            }
        }
        return out;
    }

    private double gauge(String name) {
        return gauge(name, "server");
    }

    private double gauge(String name, String peer) {
        Search search = registry.find(name).tag("peer", peer);
        TimeGauge tg = search.timeGauge();
        if (tg != null) {
            return tg.value();
        }
        Gauge g = registry.find(name).tag("peer", peer).gauge();
        assertThat(g).as(name + " peer=" + peer).isNotNull();
        return g.value();
    }

    private Set<String> peerMeterNames(String peer) {
        return registry.getMeters().stream().filter(m -> peer.equals(m.getId().getTag("peer")))
                .map(m -> m.getId().getName()).collect(Collectors.toCollection(TreeSet::new));
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(1e-6);
    }
}
