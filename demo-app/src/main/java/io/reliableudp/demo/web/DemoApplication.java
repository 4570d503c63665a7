package io.reliableudp.demo.web;

import io.reliableudp.demo.node.Ledger;
import io.reliableudp.spring.core.UdpPeerDirectory;
import java.time.Duration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The demo: one Spring Boot web application on 127.0.0.1 (the page at {@code /}, the actuator with the
 * {@code reliableudp} endpoint writable, Prometheus scrapes) whose {@link Fleet} starts a station and up
 * to three rovers, each a child Spring Boot context with its own reliable-udp node, plus a TCP lane.
 *
 * <p>Runs until Ctrl-C; with {@code --demo.duration=20s} it stops by itself and exits with status 1 if
 * a reliable message was lost or reordered. Other settings: {@code --server.port} (8080),
 * {@code --demo.rovers} (3), {@code --demo.status-interval} (5s), {@code --demo.tcp-lane}
 * ({@code auto}: real loss in a network namespace when root, else the model; {@code netns}; {@code model}). Commands in {@code docs/demo.md}.
 */
@SpringBootApplication(proxyBeanMethods = false)
public class DemoApplication {

    /**
     * Runs the demo.
     *
     * @param args Spring Boot arguments ({@code --demo.duration=20s}, {@code --server.port=0}...)
     */
    public static void main(String[] args) throws InterruptedException {
        ConfigurableApplicationContext ctx = SpringApplication.run(DemoApplication.class, args);
        Duration duration;
        try {
            duration = ctx.getEnvironment().getProperty("demo.duration", Duration.class);
        } catch (RuntimeException e) {
            System.out.println("demo.duration must be a duration such as 20s, was '" + ctx.getEnvironment().getProperty("demo.duration") + "'");
            SpringApplication.exit(ctx);
            System.exit(2);
            return;
        }
        if (duration == null) {
            return;   // the web server's threads keep the JVM up; Ctrl-C closes the context (Fleet.stop prints the summary)
        }
        Thread.sleep(duration.toMillis());
        Fleet fleet = ctx.getBean(Fleet.class);
        int code = SpringApplication.exit(ctx);
        System.exit(Boolean.TRUE.equals(fleet.verdict()) ? code : 1);
    }

    /** The process's bookkeeping, shared with the node contexts. */
    @Bean
    Ledger ledger() {
        return new Ledger();
    }

    /** The station, the rovers and the TCP lane. */
    @Bean
    Fleet fleet(Ledger ledger, Environment env) {
        return new Fleet(ledger, env.getProperty("demo.rovers", Integer.class, 3),
                env.getProperty("demo.status-interval", Duration.class, Duration.ofSeconds(5)),
                env.getProperty("demo.tcp-lane", "auto"));
    }

    /** Names the nodes' peers for the endpoint, health and meters. */
    @Bean
    UdpPeerDirectory demoPeerDirectory(Fleet fleet) {
        return fleet.directory();
    }

    /** The station's node, as the endpoint and the meters see it. */
    @Bean("station")
    SwappableNode station(Fleet fleet) {
        return fleet.nodes().get("station");
    }

    /** Rover 1's node. */
    @Bean("rover-1")
    SwappableNode rover1(Fleet fleet) {
        return fleet.nodes().get("rover-1");
    }

    /** Rover 2's node (absent with {@code demo.rovers=1}). */
    @Bean("rover-2")
    @org.springframework.boot.autoconfigure.condition.ConditionalOnExpression("${demo.rovers:3} >= 2")
    SwappableNode rover2(Fleet fleet) {
        return fleet.nodes().get("rover-2");
    }

    /** Rover 3's node (absent with {@code demo.rovers} below 3). */
    @Bean("rover-3")
    @org.springframework.boot.autoconfigure.condition.ConditionalOnExpression("${demo.rovers:3} >= 3")
    SwappableNode rover3(Fleet fleet) {
        return fleet.nodes().get("rover-3");
    }

    /** Prints the page's URL once the web server listens. */
    @Bean
    ApplicationListener<WebServerInitializedEvent> printUrl(Fleet fleet) {
        return e -> {
            String url = "http://127.0.0.1:" + e.getWebServer().getPort() + "/";
            fleet.url(url);
            System.out.println("reliable-udp demo: open " + url + " (Ctrl-C stops it)");
        };
    }
}
