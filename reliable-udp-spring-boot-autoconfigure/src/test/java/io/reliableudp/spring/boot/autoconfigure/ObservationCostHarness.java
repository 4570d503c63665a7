package io.reliableudp.spring.boot.autoconfigure;

import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A measurement, not a test (it asserts nothing and runs only with
 * {@code -Dreliableudp.observation-cost=true}): what a send observation costs. Two applications on
 * loopback UDP; the client's template sends batches of reliable messages and waits for every
 * acknowledgement, in rounds that alternate observation off and on (the template's switch, one run, one
 * JVM), with a registry as Boot's actuator sets it up (a meter handler: one timer per key set). Prints the
 * wall time and the process CPU time per send of each mode, and their difference.
 *
 * <pre>./mvnw -B -q -pl reliable-udp-spring-boot-autoconfigure -am test -Dtest=ObservationCostHarness \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dreliableudp.observation-cost=true</pre>
 */
@EnabledIfSystemProperty(named = "reliableudp.observation-cost", matches = "true")
class ObservationCostHarness {

    private static final int BATCH = 2_000;
    private static final int BATCHES_PER_ROUND = 10;
    private static final int ROUNDS = 12;

    @Test
    void measure() throws Exception {
        try (ConfigurableApplicationContext server = start(App.class, "reliable-udp.port=0");
                ConfigurableApplicationContext client = start(App.class, "reliable-udp.peers.server.address=127.0.0.1:"
                        + server.getBean(ManagedReliableUdpNode.class).localAddress().getPort())) {
            ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
            byte[] payload = new byte[64];
            for (int i = 0; i < 3; i++) {   // warm-up, both paths
                template.setObservationEnabled(i % 2 == 0);
                round(template, payload);
            }
            List<double[]> off = new ArrayList<>();
            List<double[]> on = new ArrayList<>();
            for (int r = 0; r < ROUNDS; r++) {
                boolean observed = r % 2 == 1;
                template.setObservationEnabled(observed);
                (observed ? on : off).add(round(template, payload));
            }
            double[] offMedian = medians(off);
            double[] onMedian = medians(on);
            System.out.printf(Locale.ROOT, "observation cost per send (%d sends per round, %d rounds each, medians):%n",
                    BATCH * BATCHES_PER_ROUND, ROUNDS / 2);
            System.out.printf(Locale.ROOT, "  off: wall %.0f ns/send, process CPU %.0f ns/send%n", offMedian[0], offMedian[1]);
            System.out.printf(Locale.ROOT, "  on:  wall %.0f ns/send, process CPU %.0f ns/send%n", onMedian[0], onMedian[1]);
            System.out.printf(Locale.ROOT, "  on - off: wall %+.0f ns/send (%+.1f %%), process CPU %+.0f ns/send (%+.1f %%)%n",
                    onMedian[0] - offMedian[0], 100 * (onMedian[0] - offMedian[0]) / offMedian[0],
                    onMedian[1] - offMedian[1], 100 * (onMedian[1] - offMedian[1]) / offMedian[1]);
            System.out.println("  timers registered: " + client.getBean(SimpleMeterRegistry.class).getMeters().size());
        }
    }

    /** One round: wall and process CPU nanoseconds per acknowledged send. */
    private static double[] round(ReliableUdpTemplate template, byte[] payload) throws Exception {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        for (int b = 0; b < BATCHES_PER_ROUND; b++) {
            List<CompletableFuture<SendResult>> sent = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                sent.add(template.send("server", "reliable-unordered", payload));
            }
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get();
        }
        long wall = System.nanoTime() - t0;
        long cpu = os.getProcessCpuTime() - cpu0;
        int n = BATCH * BATCHES_PER_ROUND;
        return new double[] { (double) wall / n, (double) cpu / n };
    }

    private static double[] medians(List<double[]> rounds) {
        double[] m = new double[2];
        for (int k = 0; k < 2; k++) {
            int kk = k;
            double[] v = rounds.stream().mapToDouble(r -> r[kk]).sorted().toArray();
            m[k] = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        }
        return m;
    }

    private static ConfigurableApplicationContext start(Class<?> app, String... properties) {
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "reliable-udp.bind-address=127.0.0.1",
                        "reliable-udp.send-queue-wait=5s", "logging.level.root=WARN", "reliable-udp.template.observation-enabled=true",
                        "spring.autoconfigure.exclude=org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
                .properties(properties).run();
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        ObservationRegistry observationRegistry(SimpleMeterRegistry meters) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            return registry;
        }
    }
}
