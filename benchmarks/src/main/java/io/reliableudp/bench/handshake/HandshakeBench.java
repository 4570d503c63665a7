package io.reliableudp.bench.handshake;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Loopback;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code handshakes} subcommand: one server node on loopback and {@code --clients} client nodes in
 * this JVM, each connecting, disconnecting and connecting again as fast as it can for
 * {@code --seconds}; the figure is the connections the server opened per second (every one a complete
 * handshake: request, challenge, response with its key exchange, accept). The same run measures every
 * mode asked for with {@code --modes}: {@code psk} (pre-shared key only), {@code identity} (static keys
 * and allow-lists), {@code both}, {@code plain}. The cost is the server's X25519 work (2 scalar
 * multiplications per handshake with a PSK only, 5 with identities) plus the clients' in the same
 * JVM: on a 2-core machine both compete for the cores, so the figure is a floor, not a server's ceiling.
 */
@Command(name = HandshakeBench.NAME, description = "handshakes per second a node completes over loopback, by mode (psk, identity, both, plain) in one run")
public final class HandshakeBench extends BenchCommand {

    /** The subcommand's name. */
    public static final String NAME = "handshakes";

    @Option(names = "--modes", split = ",", defaultValue = "psk,identity", description = "security modes, one measurement each: plain, psk, identity, both")
    private List<String> modes;
    @Option(names = "--clients", defaultValue = "8", description = "client nodes connecting and disconnecting in a loop")
    private int clients;
    @Option(names = "--seconds", defaultValue = "5", converter = Seconds.class, description = SECONDS)
    private double seconds;
    @Option(names = "--warmup", defaultValue = "10",
            description = "seconds of handshakes in every mode before the first measurement (the JIT compiles the X25519 arithmetic)")
    private double warmup;
    @Option(names = "--runs", defaultValue = "1", converter = Runs.class, description = RUNS)
    private int runs;

    /**
     * Runs the measurements, prints a table and, last, the JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new HandshakeBench(), args);
    }

    @Override
    public String call() throws Exception {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("modes", modes);
        params.put("clients", clients);
        params.put("seconds", seconds);
        params.put("warmup_seconds", warmup);
        Report report = new Report(NAME, params);
        System.out.printf(Locale.ROOT, "handshakes: one server node, %d client nodes in this JVM looping connect/disconnect for %.0f s per mode; %s%n",
                clients, seconds, LoadAverage.describe(LoadAverage.oneMinute()));
        Table table = new Table("mode", "run", "handshakes/s", "failed connects", "load");
        for (String mode : modes) {
            measure(mode, new LinkedHashMap<>(), warmup / modes.size()); // warm-up, not reported
        }
        for (int run = 1; run <= runs; run++) {
            for (String mode : modes) {
                Map<String, Object> f = report.run(mode, run);
                double load = LoadAverage.oneMinute();
                measure(mode, f, seconds);
                f.put("load_average", load);
                table.row(mode, run, Table.number((double) f.get("handshakes_per_s")), f.get("failed_connects"), Table.number(load));
            }
        }
        table.print(System.out, "handshakes a node completes per second (server connections opened / s)");
        return finish(report);
    }

    private void measure(String mode, Map<String, Object> f, double measureSeconds) throws Exception {
        byte[] psk = new byte[32];
        new SecureRandom().nextBytes(psk);
        NodeIdentity serverKey = NodeIdentity.generate();
        NodeIdentity clientKey = NodeIdentity.generate();
        boolean withPsk = mode.equals("psk") || mode.equals("both");
        boolean withIdentity = mode.equals("identity") || mode.equals("both");
        if (!withPsk && !withIdentity && !mode.equals("plain")) {
            throw new IllegalArgumentException(NAME + ": unknown mode '" + mode + "' (plain, psk, identity, both)");
        }
        NodeConfig.Builder server = Loopback.node().maxConnections(65_536);
        NodeConfig.Builder client = Loopback.client();
        if (withPsk) {
            server.preSharedKey(psk);
            client.preSharedKey(psk);
        }
        if (withIdentity) {
            server.identity(serverKey).allowedPeers(List.of(new PeerIdentity("client", clientKey.publicKey())));
            client.identity(clientKey).allowedPeers(List.of(new PeerIdentity("server", serverKey.publicKey())));
        }
        NodeListener quiet = (peer, channel, messageId, payload) -> { };
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong failed = new AtomicLong();
        try (ReliableUdpNode s = ReliableUdpNode.start(server.build(), quiet)) {
            InetSocketAddress target = Loopback.address(s.localAddress().getPort());
            List<ReliableUdpNode> nodes = new ArrayList<>();
            List<Thread> loops = new ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    ReliableUdpNode c = ReliableUdpNode.start(client.build(), quiet);
                    nodes.add(c);
                    loops.add(Thread.ofPlatform().name("handshake-client-" + i).start(() -> {
                        while (!stop.get()) {
                            try {
                                Peer p = c.connect(target).get(5, TimeUnit.SECONDS);
                                p.disconnect();
                            } catch (Exception e) {
                                failed.incrementAndGet();
                            }
                        }
                    }));
                }
                Thread.sleep(1_000); // warm-up: JIT, first handshakes
                long opened0 = s.stats().connectionsOpened();
                long t0 = System.nanoTime();
                long failed0 = failed.get();
                Thread.sleep((long) (measureSeconds * 1000));
                long opened1 = s.stats().connectionsOpened();
                long t1 = System.nanoTime();
                f.put("handshakes_per_s", (opened1 - opened0) / ((t1 - t0) / 1e9));
                f.put("failed_connects", failed.get() - failed0);
                f.put("handshake_failures", s.stats().handshakeFailures());
            } finally {
                stop.set(true);
                for (Thread t : loops) {
                    t.join(10_000);
                }
                for (ReliableUdpNode n : nodes) {
                    n.close();
                }
            }
        }
    }
}
