package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.spring.core.UdpRttSampleSource;
import io.reliableudp.spring.core.UdpRttSampleSubscriber;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * Not a test: the tool behind the dashboard picture in docs/observability.md. Runs real nodes over
 * loopback through a scripted link (clean, then latency and loss, then heavy loss, clean, the server
 * killed and restarted), and writes one Prometheus scrape per second to a JSON-lines file that
 * {@code docs/grafana/render.py} turns into the dashboard's panels.
 *
 * <p>Run: {@code java -cp <test classpath> io.reliableudp.spring.boot.metrics.GrafanaCapture target/capture.jsonl [seconds]}.
 */
public final class GrafanaCapture {

    private GrafanaCapture() {
    }

    /**
     * Runs the scenario.
     *
     * @param args output file, and optionally the total length in seconds (default 180; phases scale with it)
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "target/grafana-capture.jsonl");
        double total = args.length > 1 ? Double.parseDouble(args[1]) : 180;
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        NodeListener ignore = (peer, channel, id, payload) -> { };

        SwappableNode server = new SwappableNode();
        server.swap(ReliableUdpNode.start(config(0, true), server.listener));
        InetSocketAddress serverAddress = new InetSocketAddress("127.0.0.1", server.localAddress().getPort());
        SwappableNode client = new SwappableNode();
        client.swap(ReliableUdpNode.start(config(0, false), client.listener));
        List<ReliableUdpNode> extras = List.of(ReliableUdpNode.start(config(0, false), ignore),
                ReliableUdpNode.start(config(0, false), ignore));
        Map<String, InetSocketAddress> names = new LinkedHashMap<>();
        names.put("server", serverAddress);
        names.put("client-a", new InetSocketAddress("127.0.0.1", client.localAddress().getPort()));
        Map<String, ReliableUdpNode> nodes = new LinkedHashMap<>();
        nodes.put("client", client);
        nodes.put("server", server);
        ReliableUdpMetrics metrics = new ReliableUdpMetrics(registry, nodes, UdpPeerDirectory.of(names), Duration.ofHours(1), null);
        metrics.start(); // subscribes to the RTT samples; the refreshes below are made by hand

        LinkConditionerConfig impaired = new LinkConditionerConfig(40, 10, 0.03, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 11);
        LinkConditionerConfig bad = new LinkConditionerConfig(80, 20, 0.15, 0.02, 0.3, 0.5, 0.01, 0.05, 30, 0, 1 << 20, 12);
        long start = System.nanoTime();
        try (Writer w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            int phase = -1;
            for (int second = 0; second <= (int) total; second++) {
                double t = second / total; // 0..1
                int now = t < 0.22 ? 0 : t < 0.44 ? 1 : t < 0.61 ? 2 : t < 0.78 ? 3 : t < 0.83 ? 4 : 5;
                if (now != phase) {
                    phase = now;
                    LinkConditionerConfig link = phase == 1 ? impaired : phase == 2 ? bad : null;
                    client.setLinkConditioner(link);
                    if (server.isOpen()) {
                        server.setLinkConditioner(link);
                    }
                    if (phase == 4) {
                        server.current().close(); // killed
                    } else if (phase == 5) {
                        server.current().close();
                        server.swap(restart(serverAddress.getPort(), server.listener));
                    }
                    System.out.println("t=" + second + "s phase " + phase + " link " + link);
                }
                long until = start + (second + 1) * 1_000_000_000L;
                while (System.nanoTime() < until) {
                    traffic(client, serverAddress, 2, 1);
                    for (ReliableUdpNode extra : extras) {
                        traffic(extra, serverAddress, 1, 0);
                    }
                    if (server.isOpen()) {
                        for (Peer p : server.peers()) {
                            if (p.state() == PeerState.CONNECTED) {
                                p.send(1, new byte[200]);
                                p.flush();
                            }
                        }
                    }
                    Thread.sleep(20);
                }
                metrics.refresh();
                String scrape = registry.scrape();
                w.write("{\"t\":" + second + ",\"text\":" + json(scrape) + "}\n");
                w.flush();
            }
        } finally {
            metrics.stop();
            client.close();
            extras.forEach(ReliableUdpNode::close);
            server.close();
        }
    }

    /** Binds the same port again (the old socket may take a moment to be released). */
    private static ReliableUdpNode restart(int port, NodeListener listener) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return ReliableUdpNode.start(config(port, true), listener);
            } catch (java.net.BindException e) {
                if (attempt == 50) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    /** A few messages on the reliable and unreliable channels; reconnects when the link is gone. */
    private static void traffic(ReliableUdpNode node, InetSocketAddress server, int reliable, int unreliable) {
        Peer peer = node.peer(server);
        if (peer == null) {
            node.connect(server); // completes or fails on its own; the next rounds see the outcome
            return;
        }
        if (peer.state() != PeerState.CONNECTED) {
            return;
        }
        for (int i = 0; i < reliable; i++) {
            peer.send(0, new byte[300 + i * 50]);
        }
        for (int i = 0; i < unreliable; i++) {
            peer.send(2, new byte[120]);
        }
        peer.flush();
    }

    private static NodeConfig config(int port, boolean accept) {
        return NodeConfig.builder().bindAddress(new InetSocketAddress("127.0.0.1", port)).acceptIncoming(accept)
                .timeout(Duration.ofSeconds(2)).connectTimeout(Duration.ofSeconds(2))
                .keepAliveInterval(Duration.ofMillis(100)).build();
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 64).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * A node that can be replaced by a restarted one and hands on its RTT samples, like the starter's
     * managed node. Start each delegate with {@link #listener}.
     */
    private static final class SwappableNode implements ReliableUdpNode, UdpRttSampleSource {
        private final List<UdpRttSampleSubscriber> rttSubscribers = new CopyOnWriteArrayList<>();
        final NodeListener listener = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            }

            @Override
            public void onRttSample(Peer peer, float rttMillis) {
                for (UdpRttSampleSubscriber s : rttSubscribers) {
                    s.onRttSample(peer, rttMillis);
                }
            }
        };
        private volatile @Nullable ReliableUdpNode delegate;

        ReliableUdpNode current() {
            ReliableUdpNode d = delegate;
            if (d == null) {
                throw new IllegalStateException("no node yet");
            }
            return d;
        }

        @Override
        public void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
            rttSubscribers.add(subscriber);
        }

        @Override
        public void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
            rttSubscribers.remove(subscriber);
        }

        void swap(ReliableUdpNode next) {
            delegate = next;
        }

        @Override
        public InetSocketAddress localAddress() {
            return current().localAddress();
        }

        @Override
        public NodeConfig config() {
            return current().config();
        }

        @Override
        public CompletableFuture<Peer> connect(InetSocketAddress remote) {
            return current().connect(remote);
        }

        @Override
        public @Nullable Peer peer(InetSocketAddress address) {
            return current().peer(address);
        }

        @Override
        public Collection<Peer> peers() {
            return current().peers();
        }

        @Override
        public NodeStats stats() {
            return current().stats();
        }

        @Override
        public boolean isOpen() {
            return current().isOpen();
        }

        @Override
        public void setLinkConditioner(@Nullable LinkConditionerConfig config) {
            current().setLinkConditioner(config);
        }

        @Override
        public CompletableFuture<Void> shutdown(Duration drainTimeout) {
            return current().shutdown(drainTimeout);
        }

        @Override
        public void close() {
            current().close();
        }
    }
}
