package io.reliableudp.demo.web;

import io.reliableudp.demo.node.Ledger;
import io.reliableudp.demo.node.NodeApplications;
import io.reliableudp.demo.node.RoverDriver;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * The demo's fleet: starts the station and the rovers (each a child Spring Boot context with its own
 * node on 127.0.0.1), drives their traffic from one thread (positions 20 Hz, telemetry 10 Hz, a
 * status query per second, a 16 KB camera frame every 2 s, per rover; rover-1's positions also over
 * the TCP lane), prints a status line, kills and restarts rovers on request, and on stop waits for
 * every reliable send to end, prints the summary and keeps the verdict.
 */
public final class Fleet implements SmartLifecycle {

    /** The first links: different per rover so the page has something to compare. */
    static final Map<String, LinkConditionerConfig> INITIAL_LINKS = Map.of(
            "station", link(10, 2, 0.01, 0),
            "rover-1", link(20, 5, 0.02, 0),
            "rover-2", link(40, 10, 0.05, 0),
            "rover-3", link(15, 3, 0.0, 64_000));

    private static final long TICK_NANOS = 10_000_000L;

    private final Ledger ledger;
    private final Duration statusInterval;
    private final int stationPort;
    private final ConfigurableApplicationContext station;
    private final Map<String, SwappableNode> nodes = new LinkedHashMap<>();
    private final Map<String, Slot> rovers = new LinkedHashMap<>();
    private final List<TcpLane> tcp;
    private volatile long startNanos = System.nanoTime();
    private volatile boolean running;
    private volatile @Nullable Thread traffic;
    private volatile @Nullable Boolean verdict;
    private volatile String url = "";

    /** One rover: its context and driver while it runs, its epoch. */
    private static final class Slot {
        final String name;
        int port;
        int epoch;
        volatile @Nullable ConfigurableApplicationContext context;
        volatile @Nullable RoverDriver driver;

        Slot(String name) {
            this.name = name;
        }
    }

    /**
     * Starts the station and {@code roverCount} rovers and the TCP lane (their nodes exist before any
     * bean that reads them; traffic starts with the lifecycle).
     */
    Fleet(Ledger ledger, int roverCount, Duration statusInterval, String tcpLane) {
        if (roverCount < 1 || roverCount > 3) {
            throw new IllegalArgumentException("demo.rovers must be 1..3, was " + roverCount);
        }
        this.ledger = ledger;
        this.statusInterval = statusInterval;
        // port 0 everywhere at first: the kernel picks (no race with other processes); a rover keeps its port across restarts
        this.station = NodeApplications.station(ledger, 0);
        this.stationPort = station.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        nodes.put("station", new SwappableNode("station", station.getBean(ManagedReliableUdpNode.class)));
        for (int i = 1; i <= roverCount; i++) {
            Slot slot = new Slot("rover-" + i);
            rovers.put(slot.name, slot);
            ConfigurableApplicationContext ctx = startRover(slot);
            nodes.put(slot.name, new SwappableNode(slot.name, ctx.getBean(ManagedReliableUdpNode.class)));
        }
        try {
            tcp = TcpLane.open(ledger, tcpLane);
        } catch (IOException e) {
            throw new UncheckedIOException("could not open the TCP lane on loopback", e);
        }
    }

    private static LinkConditionerConfig link(double latencyMillis, double jitterMillis, double loss, long bandwidth) {
        LinkConditionerConfig p = LinkConditionerConfig.PERFECT;
        return new LinkConditionerConfig(latencyMillis, jitterMillis, loss, p.burstEnterProbability(), p.burstExitProbability(),
                p.burstLossProbability(), 0, 0, 0, bandwidth, p.queueLimitBytes(), 42);
    }

    private ConfigurableApplicationContext startRover(Slot slot) {
        slot.epoch++;
        ConfigurableApplicationContext ctx;
        try {
            ctx = NodeApplications.rover(ledger, slot.name, slot.epoch, slot.port, stationPort);
        } catch (RuntimeException e) {
            if (slot.port == 0) {
                throw e;
            }
            System.out.println("  " + slot.name + ": its port " + slot.port + " is taken now (" + e.getMessage()
                    + "); restarting on another, which the endpoint and meters name 'other'");
            ctx = NodeApplications.rover(ledger, slot.name, slot.epoch, 0, stationPort);
        }
        if (slot.port == 0) {
            slot.port = ctx.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        }
        slot.context = ctx;
        slot.driver = ctx.getBean(RoverDriver.class);
        return ctx;
    }

    /** The node beans by name ({@code station}, {@code rover-1}...). */
    Map<String, SwappableNode> nodes() {
        return nodes;
    }

    /** Names for the endpoint and the meters: each node's address under its name (rovers keep their port across restarts). */
    UdpPeerDirectory directory() {
        Map<String, InetSocketAddress> names = new LinkedHashMap<>();
        names.put("station", new InetSocketAddress("127.0.0.1", stationPort));
        rovers.values().forEach(s -> names.put(s.name, new InetSocketAddress("127.0.0.1", s.port)));
        return UdpPeerDirectory.of(names);
    }

    /** The TCP lanes. */
    List<TcpLane> tcp() {
        return tcp;
    }

    /** The page's URL, for the status line. */
    void url(String url) {
        this.url = url;
    }

    /** Whether the rover runs now. */
    boolean alive(String rover) {
        Slot s = slot(rover);
        return s.context != null;
    }

    /** The rover's current epoch. */
    int epoch(String rover) {
        return slot(rover).epoch;
    }

    /** The rovers' names. */
    List<String> roverNames() {
        return new ArrayList<>(rovers.keySet());
    }

    private Slot slot(String rover) {
        Slot s = rovers.get(rover);
        if (s == null) {
            throw new IllegalArgumentException("no rover named '" + rover + "'");
        }
        return s;
    }

    /**
     * Kills a rover: its node closes at once (pending reliable sends fail with a reason, disconnect
     * packets go out), then its context closes.
     *
     * @return false when it was not running
     */
    boolean kill(String rover) {
        Slot s = slot(rover);
        synchronized (s) {
            ConfigurableApplicationContext ctx = s.context;
            if (ctx == null) {
                return false;
            }
            s.driver = null;
            s.context = null;
            ctx.getBean(ManagedReliableUdpNode.class).close();
            ctx.close();
            System.out.println("  " + rover + " killed (epoch " + s.epoch + ")");
            return true;
        }
    }

    /**
     * Restarts a killed rover on its port with the next epoch and the link conditioner last set.
     *
     * @return false when it was running
     */
    boolean restart(String rover) {
        Slot s = slot(rover);
        synchronized (s) {
            if (s.context != null) {
                return false;
            }
            ConfigurableApplicationContext ctx = startRover(s);
            nodes.get(rover).swap(ctx.getBean(ManagedReliableUdpNode.class));
            System.out.println("  " + rover + " restarted (epoch " + s.epoch + ")");
            return true;
        }
    }

    @Override
    public void start() {
        nodes.forEach((name, node) -> {
            if (!node.conditionerSet()) {
                node.setLinkConditioner(INITIAL_LINKS.get(name));
            }
        });
        awaitConnected(Duration.ofSeconds(15));
        startNanos = System.nanoTime();   // the status line counts from the first event
        running = true;
        Thread t = Thread.ofPlatform().name("demo-traffic").start(this::drive);
        traffic = t;
    }

    private void awaitConnected(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        for (Slot s : rovers.values()) {
            while (!connected(nodes.get(s.name)) && System.nanoTime() < deadline) {
                sleep(20);
            }
        }
    }

    private static boolean connected(SwappableNode node) {
        if (!node.isOpen()) {
            return false;
        }
        for (Peer p : node.peers()) {
            if (p.state() == PeerState.CONNECTED) {
                return true;
            }
        }
        return false;
    }

    private void drive() {
        long next = System.nanoTime();
        long tick = 0;
        long nextStatus = next + statusInterval.toNanos();
        while (running) {
            long now = System.nanoTime();
            try {
                for (Slot s : rovers.values()) {
                    RoverDriver d = s.driver;
                    if (d == null || !connected(nodes.get(s.name))) {
                        continue;
                    }
                    if (tick % 5 == 0) {
                        long seq = d.sendPosition(now);
                        if (s.name.equals("rover-1")) {
                            for (TcpLane lane : tcp) {
                                lane.send(seq, now);
                            }
                        }
                    }
                    if (tick % 10 == 3) {
                        d.sendTelemetry(now);
                    }
                    if (tick % 100 == 7) {
                        d.query();
                    }
                    if (tick % 200 == 11) {
                        d.sendFrame(now);
                    }
                }
                if (tick % 50 == 0) {
                    LinkConditionerConfig c = nodes.get("rover-1").conditioner();
                    for (TcpLane lane : tcp) {
                        lane.follow(c == null ? 0 : c.lossProbability(), c == null ? 0 : c.latencyMillis());
                    }
                }
                if (now >= nextStatus) {
                    nextStatus += statusInterval.toNanos();
                    System.out.println(statusLine(now));
                }
            } catch (RuntimeException e) {
                System.out.println("  traffic: " + e);   // a rover being killed under us: go on
            }
            tick++;
            next += TICK_NANOS;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                sleep(wait / 1_000_000);
            } else if (wait < -1_000_000_000L) {
                next = System.nanoTime();                    // a stalled machine: do not burst to catch up
            }
        }
    }

    /** One short line: per rover positions delivered/sent, order, p99; the TCP lane's p99; the URL. */
    String statusLine(long now) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "[%5.0fs]", (now - startNanos) / 1e9));
        for (Ledger.Rover r : ledger.rovers().values()) {
            Ledger.Totals t = r.totals();
            double p99 = r.positionLatency().percentiles(now).get("p99");
            b.append(String.format(Locale.ROOT, " %s%s %d/%d%s p99 %.0f ms |", r.name(), alive(r.name()) ? "" : " (down)",
                    t.positionsDelivered, t.positionsSent, t.inOrder() ? "" : " REORDERED", p99));
        }
        for (TcpLane lane : tcp) {
            b.append(String.format(Locale.ROOT, " %s p99 %.0f ms |", lane.name(), ledger.lane(lane.name()).percentiles(now).get("p99")));
        }
        b.append(' ').append(url);
        return b.toString();
    }

    @Override
    public void stop() {
        running = false;
        Thread t = traffic;
        if (t != null) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        // every reliable send ends: acknowledged, or failed with a reason (printed by the ledger)
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && !settled()) {
            sleep(20);
        }
        boolean ok = true;
        System.out.println("summary:");
        for (Ledger.Rover r : ledger.rovers().values()) {
            Ledger.Totals x = r.totals();
            long[] q = r.queries();
            System.out.printf(Locale.ROOT, "  %s: positions sent %d, delivered %d, failed %d, pending %d, acknowledged but lost %d, out of order %d;"
                            + " frames sent %d, delivered %d, failed %d, corrupt %d; telemetry %d/%d received; queries %d, answered %d, failed %d%s%n",
                    r.name(), x.positionsSent, x.positionsDelivered, x.positionsFailed, x.positionsPending, x.positionsUndelivered, x.outOfOrder,
                    x.framesSent, x.framesDelivered, x.framesFailed, x.framesCorrupt, r.telemetryReceived(), r.telemetrySent(),
                    q[0], q[1], q[2], x.failures.isEmpty() ? "" : "; failures by reason " + x.failures);
            ok &= x.complete();
        }
        for (TcpLane lane : tcp) {
            System.out.printf(Locale.ROOT, "  %s: sent %d, delivered %d (in order: TCP)%n", lane.name(), lane.sent(), lane.delivered());
        }
        System.out.println(ok ? "every reliable message was delivered in order or failed with a reason"
                : "RELIABLE DELIVERY FAILED: a reliable message was lost, reordered or left pending");
        verdict = ok;
        tcp.forEach(TcpLane::close);
        for (Slot s : rovers.values()) {
            ConfigurableApplicationContext ctx = s.context;
            s.driver = null;
            if (ctx != null) {
                ctx.close();                       // drains (nothing is pending any more)
            }
        }
        station.close();
    }

    /** True once nothing is pending and the station's listeners caught up with every acknowledged send. */
    private boolean settled() {
        for (Ledger.Rover r : ledger.rovers().values()) {
            Ledger.Totals x = r.totals();
            if (x.positionsPending > 0 || x.positionsUndelivered > 0 || x.framesUndelivered > 0) {
                return false;
            }
        }
        return true;
    }

    /** The verdict of {@link #stop()}: null before it ran. */
    @Nullable Boolean verdict() {
        return verdict;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Stops before the web server and the meters (they read the nodes this closes). */
    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(Math.max(1, millis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
