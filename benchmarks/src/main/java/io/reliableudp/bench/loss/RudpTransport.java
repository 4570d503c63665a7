package io.reliableudp.bench.loss;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * This library in the {@code loss} benchmark, with its defaults: a node from {@code NodeConfig.builder()} with
 * nothing set but the port, channel 0 (reliable-ordered in the default channels), {@link Peer#send} per event,
 * no flush, nothing tuned. The only use of the library's API in the benchmark, through its public standalone
 * API ({@code io.reliableudp.transport}), so that it measures whatever the defaults are when it is run.
 *
 * <p>Without root (no network namespace) both nodes drop outgoing datagrams with the library's own link
 * conditioner instead ({@code lossProbability}), and the traffic counters come from {@link NodeStats}.
 */
final class RudpTransport implements EventTransport {

    private static final int CHANNEL = 0;
    /** IPv4 + UDP headers, added per datagram to the node's payload bytes to estimate IP bytes without nftables. */
    private static final int IP_UDP_HEADERS = 28;

    private final double conditionerLoss;

    /**
     * @param conditionerLoss 0 on a real lossy link; otherwise the link conditioner's loss probability (0..1)
     */
    RudpTransport(double conditionerLoss) {
        this.conditionerLoss = conditionerLoss;
    }

    private NodeConfig.Builder config() {
        NodeConfig.Builder b = NodeConfig.builder();
        if (conditionerLoss > 0) {
            b.linkConditioner(new LinkConditionerConfig(0, 0, conditionerLoss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, System.nanoTime()));
        }
        return b;
    }

    private static String stats(ReliableUdpNode node) {
        NodeStats s = node.stats();
        return "bytes=" + (s.bytesSent() + IP_UDP_HEADERS * s.datagramsSent()) + " datagrams=" + s.datagramsSent();
    }

    @Override
    public Receiving listen(int port, Consumer<byte[]> sink) throws Exception {
        ReliableUdpNode node = ReliableUdpNode.start(config().bindAddress(new InetSocketAddress(port)).build(),
                (peer, channel, messageId, payload) -> sink.accept(payload));
        return new Receiving() {
            @Override
            public int port() {
                return node.localAddress().getPort();
            }

            @Override
            public String stats() {
                return RudpTransport.stats(node);
            }

            @Override
            public void close() {
                node.close();
            }
        };
    }

    @Override
    public Sending connect(String host, int port, Duration timeout) throws Exception {
        ReliableUdpNode node = ReliableUdpNode.start(config().build(), (peer, channel, messageId, payload) -> { });
        Peer peer;
        try {
            peer = node.connect(new InetSocketAddress(host, port)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            node.close();
            throw e;
        }
        return new Sending() {
            @Override
            public boolean send(byte[] event) {
                return !peer.send(CHANNEL, event).isCompletedExceptionally();
            }

            @Override
            public String stats() {
                // the sender's view of the path too, for the log (the benchmark reads only bytes=)
                var p = peer.stats();
                return RudpTransport.stats(node) + String.format(java.util.Locale.ROOT,
                        " rtt_ms=%.3f rtt_min_ms=%.3f resent=%d", p.rttMillis(), p.rttMinMillis(),
                        p.channels().get(CHANNEL).messagesResent());
            }

            @Override
            public void close() {
                node.close();
            }
        };
    }
}
