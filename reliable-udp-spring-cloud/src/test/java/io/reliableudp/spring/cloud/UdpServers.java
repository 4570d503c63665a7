package io.reliableudp.spring.cloud;

import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Test support: the instances of the "orders" service as real reliable-udp nodes on 127.0.0.1, each
 * recording which text messages it received (the template's envelope decoded), so a test can tell
 * which instance got which message and whether a message arrived at all.
 */
final class UdpServers implements AutoCloseable {

    /** Where a message arrived: instance name per message text, and every arrival in order. */
    final Map<String, String> arrivedAt = new ConcurrentHashMap<>();
    final List<String> arrivals = new CopyOnWriteArrayList<>();
    private final Map<String, ReliableUdpNode> running = new ConcurrentHashMap<>();

    /**
     * Starts an instance.
     *
     * @param name the instance's name (what arrivals record)
     * @param port the UDP port, 0 for any
     * @return its port
     */
    int start(String name, int port) {
        return start(name, "127.0.0.1", port);
    }

    /**
     * Starts an instance on a loopback address of its own (127.0.0.0/8: every address is local on Linux),
     * so that instances share one port as the pods of a Kubernetes service do.
     *
     * @param name the instance's name
     * @param host a loopback address, e.g. 127.0.0.2
     * @param port the UDP port, 0 for any
     * @return its port
     */
    int start(String name, String host, int port) {
        NodeConfig config = NodeConfig.builder().bindAddress(new InetSocketAddress(host, port)).build();
        NodeListener listener = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                Envelope e = EnvelopeCodec.decode(payload);
                String text = new String(e.body(), StandardCharsets.UTF_8);
                arrivedAt.merge(text, name, (a, b) -> a + "," + b);
                arrivals.add(name + "|" + text);
            }
        };
        try {
            ReliableUdpNode node = ReliableUdpNode.start(config, listener);
            running.put(name, node);
            return node.localAddress().getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops an instance gracefully (disconnects its peers after a short drain). */
    void stop(String name) {
        ReliableUdpNode node = running.remove(name);
        if (node != null) {
            node.shutdown(Duration.ofMillis(500)).orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).exceptionally(e -> null).join();
            node.close();
        }
    }

    /** Kills an instance: its socket closes without a word to its peers. */
    void kill(String name) {
        ReliableUdpNode node = running.remove(name);
        if (node != null) {
            node.close();
        }
    }

    /** The instance a message text arrived at, or null. */
    String where(String text) {
        return arrivedAt.get(text);
    }

    @Override
    public void close() {
        List.copyOf(running.keySet()).forEach(this::kill);
    }
}
