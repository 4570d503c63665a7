package io.reliableudp.bench.systems;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.transport.BatchedIo;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReceiveThreadMode;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * This library, measured: {@link ReliableUdpNode}s on loopback, channel 0 reliable-ordered and
 * channel 1 unreliable, everything else at its defaults unless named (I/O thread mode, receive
 * busy-poll, pre-shared key).
 *
 * <p>Throughput: one server node and one client node per connection; one application thread sends on
 * every connection in turn, up to 64 messages each with {@link Peer#send} (a future per message) or
 * {@link Peer#offer} (none), then {@link Peer#flush} (also when the connection took nothing new). On the reliable channel a connection is skipped
 * while it has {@code 4096 - 256} messages sent but not yet delivered (the channel queue holds 4096
 * unacknowledged), so that sends are not refused; on the unreliable channel the sender goes on until
 * a send is refused. The server's listener counts per connection. Ping-pong: a message sent and
 * flushed from the client's listener, echoed the same way by the server's.
 */
public final class ReliableUdp implements ThroughputSystem, PingPongSystem {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int RELIABLE_CHANNEL = 0;
    private static final int UNRELIABLE_CHANNEL = 1;
    private static final int BURST = 64;
    private static final int WINDOW = ChannelConfig.DEFAULT_MAX_QUEUED_MESSAGES - 256;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final String name;
    private final boolean offer;
    private final boolean reliable;
    private final ReceiveThreadMode mode;
    private final Duration busyPoll;
    private final boolean psk;
    private BatchedIo batchedIo = NodeConfig.builder().build().batchedIo();

    private ReliableUdp(String name, boolean offer, boolean reliable, ReceiveThreadMode mode, Duration busyPoll, boolean psk) {
        this.name = name;
        this.offer = offer;
        this.reliable = reliable;
        this.mode = mode;
        this.busyPoll = busyPoll;
        this.psk = psk;
    }

    /**
     * A throughput variant with the default I/O thread.
     *
     * @param offer {@link Peer#offer} instead of {@link Peer#send}
     * @param reliable the reliable-ordered channel instead of the unreliable one
     * @param psk encrypted (ChaCha20-Poly1305 with a pre-shared key)
     */
    public static ReliableUdp throughput(boolean offer, boolean reliable, boolean psk) {
        String name = "reliable-udp/" + (offer ? "offer" : "send") + (reliable ? "" : "/unreliable");
        return new ReliableUdp(name, offer, reliable, NodeConfig.builder().build().receiveThreadMode(), Duration.ZERO, psk);
    }

    /**
     * A throughput variant on a chosen socket port ({@link NodeConfig#batchedIo()}), named as
     * {@link #throughput(boolean, boolean, boolean)} with {@code @PORT} appended (e.g. {@code reliable-udp/send@batched}).
     *
     * @param port "plain" (OFF), "batched" (ON) or "auto" (AUTO)
     */
    public static ReliableUdp throughput(boolean offer, boolean reliable, boolean psk, String port) {
        ReliableUdp r = throughput(offer, reliable, psk);
        ReliableUdp named = new ReliableUdp(r.name + "@" + port, offer, reliable, r.mode, r.busyPoll, psk);
        named.batchedIo = batchedIo(port);
        return named;
    }

    /** The {@link BatchedIo} a benchmark's port name stands for: plain, batched or auto. */
    public static BatchedIo batchedIo(String port) {
        return switch (port.toLowerCase(Locale.ROOT)) {
            case "plain", "off" -> BatchedIo.OFF;
            case "batched", "on" -> BatchedIo.ON;
            case "auto" -> BatchedIo.AUTO;
            default -> throw new IllegalArgumentException("a port is plain, batched or auto, not " + port);
        };
    }

    /** Ping-pong with every node setting at its default (the I/O thread mode, no busy-poll). */
    public static ReliableUdp pingPongDefaults(boolean psk) {
        NodeConfig defaults = NodeConfig.builder().build();
        return new ReliableUdp("reliable-udp/defaults", false, true,
                defaults.receiveThreadMode(), defaults.receiveBusyPoll(), psk);
    }

    /** Ping-pong with the documented low-latency setting: platform I/O thread, 50 us receive busy-poll. */
    public static ReliableUdp pingPongLowLatency(boolean psk) {
        return new ReliableUdp("reliable-udp/low-latency", false, true,
                ReceiveThreadMode.PLATFORM, Duration.ofNanos(50_000), psk);
    }

    /**
     * Ping-pong with a given I/O thread mode and receive busy-poll window, named
     * {@code reliable-udp/MODE-WINDOWus} (e.g. {@code reliable-udp/virtual-50us}).
     */
    public static ReliableUdp pingPong(ReceiveThreadMode mode, Duration busyPoll, boolean psk) {
        return new ReliableUdp("reliable-udp/" + mode.name().toLowerCase(Locale.ROOT) + "-" + busyPoll.toNanos() / 1000 + "us",
                false, true, mode, busyPoll, psk);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean reliable() {
        return reliable;
    }

    /** The node settings measured, for the benchmark's parameters. */
    public String settings() {
        return String.format(Locale.ROOT, "%s I/O thread, busy-poll %d us%s", mode.name().toLowerCase(Locale.ROOT),
                busyPoll.toNanos() / 1000, psk ? ", PSK" : "");
    }

    private NodeConfig.Builder config() {
        byte[] key = null;
        if (psk) {
            key = new byte[32];
            key[0] = 7;
        }
        MessageConfig message = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED), ChannelConfig.of(DeliveryMode.UNRELIABLE)))
                .build();
        return NodeConfig.builder().bindAddress(new InetSocketAddress(LOOPBACK, 0)).receiveThreadMode(mode)
                .preSharedKey(key).message(message).timeout(Duration.ofSeconds(10)).receiveBusyPoll(busyPoll)
                .batchedIo(batchedIo);
    }

    // ----------------------------------------------------------------------------- throughput

    /** Counts deliveries per connection; one writer (the server's I/O thread). */
    private static final class Counter implements NodeListener {
        final int[] ports;
        final AtomicLongArray delivered;

        Counter(int connections) {
            ports = new int[connections];
            delivered = new AtomicLongArray(connections);
        }

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            int port = peer.address().getPort();
            for (int i = 0; i < ports.length; i++) {
                if (ports[i] == port) {
                    delivered.lazySet(i, delivered.get(i) + 1);
                    return;
                }
            }
        }

        long total() {
            long s = 0;
            for (int i = 0; i < delivered.length(); i++) {
                s += delivered.get(i);
            }
            return s;
        }
    }

    @Override
    public ThroughputRun measure(int size, int connections, double seconds) throws Exception {
        Counter counter = new Counter(connections);
        List<ReliableUdpNode> clients = new ArrayList<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(config().build(), counter)) {
            Peer[] peers = new Peer[connections];
            for (int i = 0; i < connections; i++) {
                ReliableUdpNode client = ReliableUdpNode.start(config().acceptIncoming(false).build(), (p, c, id, d) -> { });
                clients.add(client);
                counter.ports[i] = client.localAddress().getPort();
                peers[i] = client.connect(new InetSocketAddress(LOOPBACK, server.localAddress().getPort())).get(10, TimeUnit.SECONDS);
            }
            int channel = reliable ? RELIABLE_CHANNEL : UNRELIABLE_CHANNEL;
            byte[] payload = new byte[size];
            AtomicBoolean stop = new AtomicBoolean();
            long[] sent = new long[connections];
            Thread sender = Thread.ofPlatform().name("reliable-udp-sender").start(() -> {
                while (!stop.get()) {
                    boolean progress = false;
                    for (int c = 0; c < connections; c++) {
                        Peer peer = peers[c];
                        int burst = 0;
                        while (burst < BURST && !(reliable && sent[c] - counter.delivered.get(c) >= WINDOW)) {
                            boolean accepted = offer ? peer.offer(channel, payload)
                                    : !peer.send(channel, payload).isCompletedExceptionally();
                            if (!accepted) {
                                break;
                            }
                            sent[c]++;
                            burst++;
                        }
                        // flush also when nothing new was taken: in the congested mode a round sends one packet
                        peer.flush();
                        progress |= burst > 0;
                    }
                    if (!progress) {
                        Thread.yield();
                    }
                }
            });
            Thread.sleep(300);
            long before = counter.total();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = counter.total();
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            sender.join();
            long total = 0;
            for (long s : sent) {
                total += s;
            }
            for (Peer peer : peers) {
                peer.flush();
            }
            long deadline = System.nanoTime() + (reliable ? DRAIN_TIMEOUT_NANOS : TimeUnit.MILLISECONDS.toNanos(100));
            while (counter.total() < total && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            return new ThroughputRun((after - before) / elapsed, total, counter.total());
        } finally {
            for (ReliableUdpNode client : clients) {
                client.close();
            }
        }
    }

    // ----------------------------------------------------------------------------- ping-pong

    @Override
    public Histogram measure(int size, double seconds) throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        CountDownLatch done = new CountDownLatch(1);
        byte[] payload = new byte[size];
        long end = System.nanoTime() + (long) (seconds * 1e9);
        NodeListener echo = (peer, channel, id, data) -> {
            peer.send(RELIABLE_CHANNEL, data);
            peer.flush();
        };
        final class Pinger implements NodeListener {
            volatile long t0;

            @Override
            public void onMessage(Peer p, int channel, int messageId, byte[] data) {
                long now = System.nanoTime();
                h.recordValue(now - t0);
                if (now - end >= 0) {
                    done.countDown();
                    return;
                }
                ping(p);
            }

            void ping(Peer p) {
                t0 = System.nanoTime();
                p.send(RELIABLE_CHANNEL, payload);
                p.flush();
            }
        }
        Pinger pinger = new Pinger();
        try (ReliableUdpNode server = ReliableUdpNode.start(config().build(), echo);
             ReliableUdpNode client = ReliableUdpNode.start(config().acceptIncoming(false).build(), pinger)) {
            Peer peer = client.connect(new InetSocketAddress(LOOPBACK, server.localAddress().getPort())).get(10, TimeUnit.SECONDS);
            pinger.ping(peer);
            if (!done.await((long) seconds + 30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("ping-pong stalled after " + h.getTotalCount() + " round trips");
            }
        }
        return h;
    }
}
