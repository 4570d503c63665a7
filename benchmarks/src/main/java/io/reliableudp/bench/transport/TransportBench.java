package io.reliableudp.bench.transport;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReceiveThreadMode;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * Transport benchmark harness over loopback, each figure next to its raw-UDP baseline measured in
 * the same run:
 * <ul>
 *   <li>throughput: 32-byte reliable-ordered messages over one connection (messages/s delivered),
 *       with {@link Peer#send} (a future per message) and with {@link Peer#offer} (none),
 *       vs. raw {@link DatagramChannel} datagrams/s (one 32-byte datagram each, one sender thread,
 *       one receiver thread);</li>
 *   <li>ping-pong: round trip of a 32-byte reliable message (send + flush, echoed by the server's
 *       listener) vs. raw UDP ping-pong, HdrHistogram p50/p99/p99.9;</li>
 *   <li>both with the receive loop on a virtual and on a platform thread.</li>
 * </ul>
 * Options: {@code --seconds N} (per measurement, default 3), {@code --runs N} (default 3, the median
 * is reported), {@code --pings N} (default 20000), {@code --psk} (encrypted mode),
 * {@code --only throughput|pingpong|cpu} (cpu: process CPU at 1000 echoed messages/s per busy-poll window),
 * {@code --mode virtual|platform|both} (default both),
 * {@code --busy-poll 0,50} (ping-pong only: the {@link NodeConfig#receiveBusyPoll()} windows to measure,
 * in microseconds, comma-separated; default 0).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.reliableudp.bench.transport.TransportBench</pre>
 */
public final class TransportBench {

    private static final int MESSAGE_BYTES = 32;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** The receive busy-poll window of the nodes being measured (set per ping-pong measurement). */
    private static Duration busyPoll = Duration.ZERO;

    private TransportBench() {
    }

    public static void main(String[] args) throws Exception {
        double seconds = 3;
        int runs = 3;
        int pings = 20_000;
        boolean psk = false;
        String only = "all";
        List<Duration> busyPolls = List.of(Duration.ZERO);
        List<ReceiveThreadMode> modes = List.of(ReceiveThreadMode.VIRTUAL, ReceiveThreadMode.PLATFORM);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--pings" -> pings = Integer.parseInt(args[++i]);
                case "--psk" -> psk = true;
                case "--only" -> only = args[++i];
                case "--busy-poll" -> busyPolls = Arrays.stream(args[++i].split(","))
                        .map(v -> Duration.ofNanos(Math.round(Double.parseDouble(v.trim()) * 1000))).toList();
                case "--mode" -> {
                    String m = args[++i];
                    modes = m.equals("both") ? modes : List.of(ReceiveThreadMode.valueOf(m.toUpperCase(Locale.ROOT)));
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        System.out.printf("transport bench: %d-byte messages, %.1f s per measurement, median of %d runs, %s mode, cores=%d, java %s%n",
                MESSAGE_BYTES, seconds, runs, psk ? "encrypted (PSK)" : "plain", Runtime.getRuntime().availableProcessors(),
                Runtime.version());

        boolean throughput = !only.equals("pingpong");
        boolean pingPong = !only.equals("throughput") && !only.equals("cpu");
        if (only.equals("cpu")) {
            // CPU cost of the busy-poll window under sparse traffic: 1000 echoed messages/s
            for (ReceiveThreadMode mode : modes) {
                for (Duration b : busyPolls) {
                    busyPoll = b;
                    pacedEchoCpu(mode, psk, 1_000, 1); // warm-up
                    double cores = pacedEchoCpu(mode, psk, 1_000, seconds);
                    System.out.printf("%-44s process CPU %.3f cores (1000 msgs/s echoed, %.0f s)%n",
                            "paced echo, " + mode.name().toLowerCase(Locale.ROOT)
                                    + (b.isZero() ? "" : ", busy-poll " + b.toNanos() / 1000 + " us"), cores, seconds);
                }
            }
            return;
        }
        // warm-up of every path (JIT)
        for (ReceiveThreadMode mode : modes) {
            if (throughput) {
                nodeThroughput(mode, psk, 1, false);
                nodeThroughput(mode, psk, 1, true);
            }
            if (pingPong) {
                for (Duration b : busyPolls) {
                    busyPoll = b;
                    nodePingPong(mode, psk, 2_000);
                }
                busyPoll = Duration.ZERO;
            }
        }
        if (throughput) {
            rawThroughput(1);
            throughput(seconds, runs, psk, modes);
        }
        if (pingPong) {
            rawPingPong(2_000);
            pingPong(pings, psk, modes, busyPolls);
        }
    }

    private static void throughput(double seconds, int runs, boolean psk, List<ReceiveThreadMode> modes) throws Exception {
        double[] raw = new double[runs];
        for (int r = 0; r < runs; r++) {
            raw[r] = rawThroughput(seconds);
        }
        System.out.printf("%-44s %12.0f datagrams/s (median; runs %s)%n", "raw DatagramChannel 32 B, 1 sender 1 receiver",
                median(raw), fmt(raw));
        for (ReceiveThreadMode mode : modes) {
            for (boolean offer : new boolean[] {false, true}) {
                double[] node = new double[runs];
                for (int r = 0; r < runs; r++) {
                    node[r] = nodeThroughput(mode, psk, seconds, offer);
                }
                System.out.printf("%-44s %12.0f messages/s (median; runs %s) = %.1fx raw datagrams/s%n",
                        "node reliable-ordered 32 B, " + (offer ? "offer" : "send") + ", "
                                + mode.name().toLowerCase(Locale.ROOT),
                        median(node), fmt(node), median(node) / median(raw));
            }
        }
    }

    private static void pingPong(int pings, boolean psk, List<ReceiveThreadMode> modes, List<Duration> busyPolls) throws Exception {
        Histogram rawRtt = rawPingPong(pings);
        print("raw UDP ping-pong 32 B", rawRtt);
        for (ReceiveThreadMode mode : modes) {
          for (Duration b : busyPolls) {
            busyPoll = b;
            long cpu0 = processCpuNanos();
            long wall0 = System.nanoTime();
            Histogram h = nodePingPong(mode, psk, pings);
            double cores = (processCpuNanos() - cpu0) / (double) (System.nanoTime() - wall0);
            busyPoll = Duration.ZERO;
            print("node ping-pong 32 B, " + mode.name().toLowerCase(Locale.ROOT)
                    + (b.isZero() ? "" : ", busy-poll " + b.toNanos() / 1000 + " us"), h);
            System.out.printf("%-44s process CPU %.2f cores during the run%n", "", cores);
            System.out.printf("%-44s p50 +%.1f us vs raw, p99 %.2fx raw%n", "",
                    (h.getValueAtPercentile(50) - rawRtt.getValueAtPercentile(50)) / 1000.0,
                    (double) h.getValueAtPercentile(99) / rawRtt.getValueAtPercentile(99));
          }
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void print(String name, Histogram h) {
        System.out.printf("%-44s p50 %7.1f us  p99 %7.1f us  p99.9 %7.1f us  max %8.1f us  (n=%d)%n", name,
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0, h.getTotalCount());
    }

    private static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static String fmt(double[] values) {
        StringBuilder b = new StringBuilder();
        for (double v : values) {
            b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.0f", v));
        }
        return b.toString();
    }

    // ----------------------------------------------------------------------------- raw UDP

    static double rawThroughput(double seconds) throws Exception {
        try (DatagramChannel rx = DatagramChannel.open(); DatagramChannel tx = DatagramChannel.open()) {
            rx.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
            rx.bind(new InetSocketAddress(LOOPBACK, 0));
            tx.bind(new InetSocketAddress(LOOPBACK, 0));
            InetSocketAddress to = (InetSocketAddress) rx.getLocalAddress();
            AtomicBoolean stop = new AtomicBoolean();
            long[] received = new long[1];
            Thread receiver = Thread.ofPlatform().start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(2048);
                try {
                    while (!stop.get()) {
                        b.clear();
                        rx.receive(b);
                        received[0]++;
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            Thread sender = Thread.ofPlatform().start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(MESSAGE_BYTES);
                try {
                    while (!stop.get()) {
                        b.clear();
                        tx.send(b, to);
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            Thread.sleep(200);
            long start = System.nanoTime();
            long before = received[0];
            Thread.sleep((long) (seconds * 1000));
            long after = received[0];
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            sender.join();
            tx.send(ByteBuffer.allocate(1), to); // unblock the receiver
            rx.close();
            receiver.join(1000);
            return (after - before) / elapsed;
        }
    }

    static Histogram rawPingPong(int count) throws Exception {
        try (DatagramChannel server = DatagramChannel.open(); DatagramChannel client = DatagramChannel.open()) {
            server.bind(new InetSocketAddress(LOOPBACK, 0));
            client.bind(new InetSocketAddress(LOOPBACK, 0));
            InetSocketAddress serverAddress = (InetSocketAddress) server.getLocalAddress();
            Thread echo = Thread.ofPlatform().start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(2048);
                try {
                    while (true) {
                        b.clear();
                        var from = server.receive(b);
                        b.flip();
                        server.send(b, from);
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            client.connect(serverAddress);
            Histogram h = new Histogram(3_600_000_000L, 3);
            ByteBuffer out = ByteBuffer.allocateDirect(MESSAGE_BYTES);
            ByteBuffer in = ByteBuffer.allocateDirect(2048);
            for (int i = 0; i < count; i++) {
                out.clear();
                long t0 = System.nanoTime();
                client.write(out);
                in.clear();
                client.read(in);
                h.recordValue(System.nanoTime() - t0);
            }
            server.close();
            echo.join(1000);
            return h;
        }
    }

    // ----------------------------------------------------------------------------- nodes

    private static NodeConfig.Builder config(ReceiveThreadMode mode, boolean psk) {
        byte[] key = null;
        if (psk) {
            key = new byte[32];
            key[0] = 7;
        }
        MessageConfig message = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED), ChannelConfig.of(DeliveryMode.UNRELIABLE)))
                .build();
        return NodeConfig.builder().bindAddress(new InetSocketAddress(LOOPBACK, 0)).receiveThreadMode(mode)
                .preSharedKey(key).message(message).timeout(Duration.ofSeconds(10)).receiveBusyPoll(busyPoll);
    }

    /** Single writer (the server's I/O thread), read by the measuring thread. */
    private static final class Counter implements NodeListener {
        volatile long count;

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            count++; // one writer: the server's I/O thread
        }
    }

    /** {@code offer}: {@link Peer#offer} (no future per message) instead of {@link Peer#send}. */
    static double nodeThroughput(ReceiveThreadMode mode, boolean psk, double seconds, boolean offer) throws Exception {
        Counter counter = new Counter();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(mode, psk).build(), counter);
             ReliableUdpNode client = ReliableUdpNode.start(config(mode, psk).acceptIncoming(false).build(), (p, c, i, d) -> { })) {
            Peer peer = client.connect(new InetSocketAddress(LOOPBACK, server.localAddress().getPort())).get(5, TimeUnit.SECONDS);
            byte[] payload = new byte[MESSAGE_BYTES];
            AtomicBoolean stop = new AtomicBoolean();
            int window = ChannelConfig.DEFAULT_MAX_QUEUED_MESSAGES - 256;
            Thread sender = Thread.ofPlatform().start(() -> {
                long sent = 0;
                while (!stop.get()) {
                    if (sent - counter.count >= window) {
                        peer.flush();
                        Thread.yield();
                        continue;
                    }
                    boolean accepted = offer ? peer.offer(0, payload) : !peer.send(0, payload).isCompletedExceptionally();
                    if (!accepted) {
                        peer.flush();
                        Thread.yield();
                        continue;
                    }
                    sent++;
                    if ((sent & 63) == 0) {
                        peer.flush();
                    }
                }
            });
            Thread.sleep(300);
            long before = counter.count;
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = counter.count;
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            sender.join();
            return (after - before) / elapsed;
        }
    }

    /** Process CPU (in cores) while a client sends {@code rate} messages/s, each echoed by the server. */
    static double pacedEchoCpu(ReceiveThreadMode mode, boolean psk, int rate, double seconds) throws Exception {
        NodeListener echo = (peer, channel, id, data) -> {
            peer.send(0, data);
            peer.flush();
        };
        try (ReliableUdpNode server = ReliableUdpNode.start(config(mode, psk).build(), echo);
             ReliableUdpNode client = ReliableUdpNode.start(config(mode, psk).acceptIncoming(false).build(), (p, c, i, d) -> { })) {
            Peer peer = client.connect(new InetSocketAddress(LOOPBACK, server.localAddress().getPort())).get(5, TimeUnit.SECONDS);
            byte[] payload = new byte[MESSAGE_BYTES];
            long interval = 1_000_000_000L / rate;
            long cpu0 = processCpuNanos();
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            for (long next = start; next - end < 0; next += interval) {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
                peer.send(0, payload);
                peer.flush();
            }
            return (processCpuNanos() - cpu0) / (double) (System.nanoTime() - start);
        }
    }

    static Histogram nodePingPong(ReceiveThreadMode mode, boolean psk, int count) throws Exception {
        Histogram h = new Histogram(3_600_000_000L, 3);
        CountDownLatch done = new CountDownLatch(1);
        byte[] payload = new byte[MESSAGE_BYTES];
        NodeListener echo = (peer, channel, id, data) -> {
            peer.send(0, data);
            peer.flush();
        };
        final class Pinger implements NodeListener {
            volatile Peer peer;
            volatile long t0;
            int remaining = count;

            @Override
            public void onMessage(Peer p, int channel, int messageId, byte[] data) {
                long now = System.nanoTime();
                h.recordValue(now - t0);
                if (--remaining == 0) {
                    done.countDown();
                    return;
                }
                ping(p);
            }

            void ping(Peer p) {
                t0 = System.nanoTime();
                p.send(0, payload);
                p.flush();
            }
        }
        Pinger pinger = new Pinger();
        try (ReliableUdpNode server = ReliableUdpNode.start(config(mode, psk).build(), echo);
             ReliableUdpNode client = ReliableUdpNode.start(config(mode, psk).acceptIncoming(false).build(), pinger)) {
            Peer peer = client.connect(new InetSocketAddress(LOOPBACK, server.localAddress().getPort())).get(5, TimeUnit.SECONDS);
            synchronized (pinger) {
                pinger.ping(peer);
            }
            if (!done.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("ping-pong stalled after " + h.getTotalCount() + " round trips");
            }
        }
        return h;
    }

}
