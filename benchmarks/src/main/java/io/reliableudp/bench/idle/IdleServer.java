package io.reliableudp.bench.idle;

import io.reliableudp.bench.kit.Loopback;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.ReceiveThreadMode;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * The measured side of {@code idle}, a child JVM: one node on loopback with the default settings (or the
 * keepalive given, in ms, 0 = default) that accepts connections and does nothing else. Prints
 * {@code PORT n}; answers {@code stats} on stdin with {@code STATS in=.. out=.. peers=..} (datagrams received
 * and sent so far); exits on {@code quit} or when stdin closes.
 */
public final class IdleServer {

    private IdleServer() {
    }

    /** {@code IdleServer KEEPALIVE_MS platform|virtual}. */
    public static void main(String[] args) throws Exception {
        long keepAliveMs = Long.parseLong(args[0]);
        ReceiveThreadMode mode = ReceiveThreadMode.valueOf(args[1].toUpperCase(Locale.ROOT));
        NodeConfig.Builder cfg = Loopback.node().receiveThreadMode(mode).maxConnections(65_536);
        if (keepAliveMs > 0) {
            cfg.keepAliveInterval(Duration.ofMillis(keepAliveMs));
        }
        try (ReliableUdpNode node = ReliableUdpNode.start(cfg.build(), (peer, channel, id, payload) -> { })) {
            System.out.println("PORT " + node.localAddress().getPort());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
                if (line.equals("stats")) {
                    NodeStats s = node.stats();
                    System.out.println("STATS in=" + s.datagramsReceived() + " out=" + s.datagramsSent() + " peers=" + node.peers().size());
                }
            }
        }
    }
}
