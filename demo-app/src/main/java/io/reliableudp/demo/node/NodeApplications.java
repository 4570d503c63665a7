package io.reliableudp.demo.node;

import java.util.function.Consumer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Starts the station's and the rovers' child applications: each its own Spring Boot context without
 * a web server, configured from {@code demo-node.yml} (channels, bind address) plus the properties
 * given here (port, peers, name, epoch), with the process's {@link Ledger} as a bean.
 */
public final class NodeApplications {

    /**
     * Auto-configurations a node context leaves out: its meters are published once, by the web
     * application, over every node (so the {@code node} tag names the station and each rover).
     */
    static final String EXCLUDED = "io.reliableudp.spring.boot.autoconfigure.metrics.ReliableUdpMetricsAutoConfiguration";

    private NodeApplications() {
    }

    /**
     * Starts the station on {@code 127.0.0.1:port}.
     *
     * @param ledger the process's ledger
     * @param port UDP port (0 = any)
     * @return the running context
     */
    public static ConfigurableApplicationContext station(Ledger ledger, int port) {
        return start(StationNode.class, ledger, "station", "reliable-udp.port=" + port, "reliable-udp.accept-incoming=true");
    }

    /**
     * Starts a rover on {@code 127.0.0.1:port} whose peer {@code station} is at {@code stationPort}.
     *
     * @param ledger the process's ledger
     * @param name the rover's name
     * @param epoch its start number
     * @param port UDP port
     * @param stationPort the station's UDP port
     * @return the running context
     */
    public static ConfigurableApplicationContext rover(Ledger ledger, String name, int epoch, int port, int stationPort) {
        return start(RoverNode.class, ledger, name, "reliable-udp.port=" + port, "reliable-udp.accept-incoming=false",
                "reliable-udp.peers.station.address=127.0.0.1:" + stationPort, "reliable-udp.template.default-peer=station",
                "demo.rover.name=" + name, "demo.rover.epoch=" + epoch);
    }

    private static ConfigurableApplicationContext start(Class<?> source, Ledger ledger, String name, String... properties) {
        Consumer<ConfigurableApplicationContext> withLedger = ctx -> ctx.getBeanFactory().registerSingleton("demoLedger", ledger);
        return new SpringApplicationBuilder(source)
                .web(WebApplicationType.NONE)
                .registerShutdownHook(false)   // the web application closes its nodes, in order, when it stops
                .logStartupInfo(false)
                .properties("spring.config.name=demo-node", "spring.application.name=" + name)
                .properties(properties)
                .initializers(withLedger::accept)
                .run();
    }
}
