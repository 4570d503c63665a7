package io.reliableudp.demo.spring;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerStats;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Two Spring Boot applications in one JVM, each with its own reliable-udp node on 127.0.0.1: the
 * station (listeners) and the rover (template), joined by a named peer. The rover's outgoing datagrams
 * cross a seeded link conditioner (10% loss, 15 ms +- 5 ms latency): positions still all arrive, in
 * order, and are acknowledged; some telemetry is lost, as unreliable messages may be.
 *
 * <p>Runs for {@code demo.duration} (default 5s) and exits, with status 1 if a reliable message was
 * lost or reordered. With {@code --spring.main.keep-alive=true} it runs until stopped.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class SpringDemo {

    /**
     * Starts both applications, drives the rover, prints what happens.
     *
     * @param args Spring Boot arguments (e.g. {@code --demo.duration=10s}, {@code --spring.main.keep-alive=true})
     */
    public static void main(String[] args) throws Exception {
        ConfigurableApplicationContext station = new SpringApplicationBuilder(SpringDemo.class)
                .profiles("station").web(WebApplicationType.NONE).run(args);
        ManagedReliableUdpNode stationNode = station.getBean(ManagedReliableUdpNode.class);
        int port = stationNode.localAddress().getPort();
        ConfigurableApplicationContext rover = new SpringApplicationBuilder(SpringDemo.class)
                .profiles("rover").web(WebApplicationType.NONE)
                .properties("reliable-udp.peers.station.address=127.0.0.1:" + port).run(args);
        boolean keepAlive = rover.getEnvironment().getProperty("spring.main.keep-alive", Boolean.class, false);
        Duration duration = rover.getEnvironment().getProperty("demo.duration", Duration.class, Duration.ofSeconds(5));
        Station s = station.getBean(Station.class);
        Rover r = rover.getBean(Rover.class);
        ManagedReliableUdpNode roverNode = rover.getBean(ManagedReliableUdpNode.class);

        System.out.println("reliable-udp Spring demo: station on " + stationNode.localAddress() + ", rover on "
                + roverNode.localAddress() + " (rover -> station: 10% loss, 15 ms +- 5 ms)");
        System.out.println(keepAlive ? "running until stopped (spring.main.keep-alive=true)" : "running for " + duration.toSeconds() + " s");

        long start = System.nanoTime();
        long end = start + duration.toNanos();
        long nextReport = start + TimeUnit.SECONDS.toNanos(1);
        int tick = 0;
        while (keepAlive || System.nanoTime() < end) {
            if (tick % 5 == 0) {
                r.sendPosition();
            }
            r.sendTelemetry();
            tick++;
            Thread.sleep(10);
            if (System.nanoTime() >= nextReport) {
                nextReport += TimeUnit.SECONDS.toNanos(1);
                report(Duration.ofNanos(System.nanoTime() - start), r, s, roverNode);
            }
            if (!rover.isActive() || !station.isActive()) {
                break;
            }
        }

        // every position either acknowledged or failed with a reason: wait for all of them
        CompletableFuture.allOf(r.positionSends.toArray(CompletableFuture[]::new))
                .handle((v, e) -> null).get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (r.acks.get() < r.positionsSent() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        report(Duration.ofNanos(System.nanoTime() - start), r, s, roverNode);
        long sent = r.positionsSent();
        long delivered = s.positions.get();
        long telemetryLost = r.telemetrySent.get() - s.telemetry.get();
        System.out.printf("summary: positions sent %d, delivered %d (%d out of order), acknowledged %d, failed %d;%n"
                        + "         telemetry sent %d, received %d (%.1f%% lost on the conditioned link);%n"
                        + "         app round trip (position -> ack) p50 %.1f ms, p99 %.1f ms%n",
                sent, delivered, s.outOfOrder.get(), r.acks.get(), r.failures.get(),
                r.telemetrySent.get(), s.telemetry.get(), 100.0 * telemetryLost / Math.max(1, r.telemetrySent.get()),
                r.ackRttMillis(50), r.ackRttMillis(99));
        boolean ok = delivered == sent && s.outOfOrder.get() == 0 && r.acks.get() == sent && r.failures.get() == 0;
        System.out.println(ok ? "every reliable message arrived, in order, and was acknowledged"
                : "RELIABLE DELIVERY FAILED");
        int code = SpringApplication.exit(rover) | SpringApplication.exit(station);
        System.exit(ok ? code : 1);
    }

    private static void report(Duration elapsed, Rover r, Station s, ManagedReliableUdpNode roverNode) {
        String link = "";
        for (Peer p : roverNode.peers()) {
            PeerStats st = p.stats();
            link = String.format("link RTT %.1f ms (transport estimate)", st.rttMillis());
        }
        System.out.printf("[%4.1fs] positions sent %d, delivered %d, acked %d | telemetry sent %d, received %d | %s%n",
                elapsed.toMillis() / 1000.0, r.positionsSent(), s.positions.get(), r.acks.get(), r.telemetrySent.get(),
                s.telemetry.get(), link);
    }
}
