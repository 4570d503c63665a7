package io.reliableudp.transport;

import io.reliableudp.link.LinkConditionerConfig;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One end of {@link MigrationNetnsTest}, run as a child JVM inside a network namespace, driven by lines
 * on stdin and answering on stdout. {@code server IP PORT LATENCY_MS}: accepts one client, echoes its
 * pings, streams {@code D} messages to it, reports moves. {@code client IP SERVER_IP PORT LATENCY_MS}:
 * connects from IP port 5000, measures the round trip with pings, streams {@code U} messages.
 * {@code spoof FROM_IP SERVER_IP PORT HEX...}: sends each datagram from FROM_IP. Both ends carry a
 * send time (System.nanoTime, one clock for every process of the host) in each message, so a receiver
 * can tell when delivery resumed after a move.
 */
public final class MigrationPeerMain {

    static final byte[] KEY = new byte[32];
    /** One message each way every this many microseconds while streaming. */
    static final long INTERVAL_MICROS = 2_000;

    static {
        Arrays.fill(KEY, (byte) 0x3c);
    }

    private MigrationPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "server" -> server(args);
            case "client" -> client(args);
            case "spoof" -> spoof(args);
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static NodeConfig config(String ip, int port, double latencyMillis) throws IOException {
        return NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getByName(ip), port)).preSharedKey(KEY)
                .linkConditioner(new LinkConditionerConfig(latencyMillis, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 << 24, 1))
                .build();
    }

    /** The messages one end received: sequence, send time, receive time; duplicates and order checked. */
    static final class Stream {
        final List<long[]> received = new CopyOnWriteArrayList<>();
        final Map<Long, Boolean> seen = new ConcurrentHashMap<>();
        volatile long duplicates;
        volatile boolean ordered = true;
        private long last = -1;

        synchronized void add(String body) {
            long now = System.nanoTime();
            int colon = body.indexOf(':');
            long seq = Long.parseLong(body.substring(1, colon));
            long sentAt = Long.parseLong(body.substring(colon + 1));
            if (seen.putIfAbsent(seq, Boolean.TRUE) != null) {
                duplicates++;
                return;
            }
            if (seq != last + 1) {
                ordered = false;
            }
            last = seq;
            received.add(new long[] {seq, sentAt, now});
        }

        /**
         * For each move time {@code t}: when delivery resumed after it, as {@code gap=}: of the pauses between
         * two deliveries that begin within a round trip of {@code t} (before or after), the longest ends this
         * long after {@code t} (0 when it ended before); and as {@code first=}: how long after {@code t} the
         * first message sent at or after {@code t} was delivered (includes the one-way delay).
         */
        String report(String name, long rtt, long[] moves) {
            StringBuilder b = new StringBuilder("RESULT " + name + " received=" + received.size() + " duplicates=" + duplicates
                    + " ordered=" + ordered);
            for (long t : moves) {
                long longest = -1;
                long resumed = t;
                for (int i = 1; i < received.size(); i++) {
                    long from = received.get(i - 1)[2];
                    long to = received.get(i)[2];
                    if (from >= t - rtt && from <= t + rtt && to - from > longest) {
                        longest = to - from;
                        resumed = Math.max(t, to);
                    }
                }
                long first = -1;
                for (long[] r : received) {
                    if (r[1] >= t) {
                        first = r[2] - t;
                        break;
                    }
                }
                b.append(" gap=").append(resumed - t).append(" first=").append(first).append(" pause=").append(longest);
            }
            return b.toString();
        }
    }

    /** A stream of numbered messages to one peer at the test's rate, from a thread of its own. */
    private static final class Outgoing {
        private final java.util.concurrent.atomic.AtomicBoolean go = new java.util.concurrent.atomic.AtomicBoolean(true);
        private long sent;
        private @org.jspecify.annotations.Nullable Thread thread;

        void start(Peer peer, char kind) {
            thread = Thread.ofPlatform().daemon().start(() -> {
                long next = System.nanoTime();
                while (go.get()) {
                    long now = System.nanoTime();
                    if (now < next) {
                        java.util.concurrent.locks.LockSupport.parkNanos(next - now);
                        continue;
                    }
                    next += INTERVAL_MICROS * 1000;
                    peer.send(0, (kind + String.valueOf(sent) + ":" + System.nanoTime()).getBytes(StandardCharsets.US_ASCII));
                    sent++;
                }
            });
        }

        /** Stops the stream and says how many it sent: a send in progress is counted before the count is read. */
        long stop() throws InterruptedException {
            go.set(false);
            if (thread != null) {
                thread.join();
            }
            return sent;
        }
    }

    /** The move times of a {@code REPORT rtt t1 t2 ...} line. */
    private static long[] times(String line) {
        String[] parts = line.trim().split(" ");
        long[] t = new long[parts.length - 2];
        for (int i = 2; i < parts.length; i++) {
            t[i - 2] = Long.parseLong(parts[i]);
        }
        return t;
    }

    private static long rtt(String line) {
        return Long.parseLong(line.trim().split(" ")[1]);
    }

    private static void server(String[] args) throws Exception {
        Stream up = new Stream();
        AtomicReference<Peer> client = new AtomicReference<>();
        AtomicReference<DatagramNode> self = new AtomicReference<>();
        NodeListener listener = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                String s = new String(payload, StandardCharsets.US_ASCII);
                if (s.startsWith("P")) {
                    peer.send(0, payload);
                } else if (s.startsWith("U")) {
                    up.add(s);
                }
            }

            @Override
            public void onConnected(Peer peer) {
                client.set(peer);
            }

            @Override
            public void onPeerMigrated(Peer peer, InetSocketAddress from, InetSocketAddress to) {
                DatagramNode node = self.get();
                long movedAt = node.startNanos() + (long) (((PeerHandle) peer).driver().movedAt() * 1e9);
                System.out.println("MIGRATED " + from + " " + to + " moved=" + movedAt);
            }
        };
        NodeConfig cfg = config(args[1], Integer.parseInt(args[2]), Double.parseDouble(args[3]));
        Outgoing stream = new Outgoing();
        try (DatagramNode node = DatagramNode.start(cfg, listener, Sessions.DEFAULT, UdpDatagramPort.open(cfg))) {
            self.set(node);
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("STREAM")) {
                    stream.start(client.get(), 'D');
                } else if (line.equals("STATS")) {
                    NodeStats s = node.stats();
                    System.out.println("STATS migrations=" + s.migrations() + " failed=" + s.pathValidationsFailed()
                            + " replayed=" + s.datagramsDropped().getOrDefault("replayed", 0L)
                            + " decrypt_failed=" + s.datagramsDropped().getOrDefault("decrypt_failed", 0L)
                            + " opened=" + s.connectionsOpened() + " peers=" + s.connections() + " address=" + client.get().address()
                            + " amplification_limited=" + node.counters().amplificationLimited.sum());
                } else if (line.startsWith("STOP")) {
                    System.out.println("SENT " + stream.stop());
                } else if (line.startsWith("REPORT")) {
                    System.out.println(up.report("up", rtt(line), times(line)));
                    System.out.flush();
                    return;
                }
                System.out.flush();
            }
        }
    }

    /** A port that remembers the last datagram it sent (the spoof copies it). */
    static final class Recording extends ForwardingPort {
        volatile byte[] last = new byte[0];

        Recording(DatagramPort port) {
            super(port);
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
            byte[] copy = new byte[datagram.remaining()];
            datagram.duplicate().get(copy);
            last = copy;
            return port.send(datagram, to);
        }
    }

    private static void client(String[] args) throws Exception {
        Stream down = new Stream();
        List<Long> rtts = new ArrayList<>();
        java.util.concurrent.SynchronousQueue<Long> pong = new java.util.concurrent.SynchronousQueue<>();
        NodeListener listener = (peer, channel, messageId, payload) -> {
            String s = new String(payload, StandardCharsets.US_ASCII);
            if (s.startsWith("P")) {
                pong.offer(System.nanoTime());
            } else if (s.startsWith("D")) {
                down.add(s);
            }
        };
        NodeConfig cfg = config(args[1], 5000, Double.parseDouble(args[4]));
        Recording port = new Recording(UdpDatagramPort.open(cfg));
        Outgoing stream = new Outgoing();
        try (DatagramNode node = DatagramNode.start(cfg, listener, Sessions.DEFAULT, port)) {
            Peer server = node.connect(new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3])))
                    .get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 30; i++) {
                long t0 = System.nanoTime();
                server.send(0, ("P" + i).getBytes(StandardCharsets.US_ASCII));
                Long t1 = pong.poll(5, TimeUnit.SECONDS);
                if (t1 != null && i >= 5) {
                    rtts.add(t1 - t0);
                }
            }
            rtts.sort(null);
            System.out.println("RTT " + rtts.get(rtts.size() / 2));
            stream.start(server, 'U');
            System.out.println("STREAMING");
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("COPY")) {
                    System.out.println("COPY " + HexFormat.of().formatHex(port.last));
                } else if (line.startsWith("STOP")) {
                    System.out.println("SENT " + stream.stop());
                } else if (line.startsWith("REPORT")) {
                    System.out.println(down.report("down", rtt(line), times(line)));
                    System.out.flush();
                    return;
                }
                System.out.flush();
            }
        }
    }

    private static void spoof(String[] args) throws Exception {
        try (java.nio.channels.DatagramChannel ch = java.nio.channels.DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(InetAddress.getByName(args[1]), 0));
            InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(args[2]), Integer.parseInt(args[3]));
            for (int i = 4; i < args.length; i++) {
                ch.send(ByteBuffer.wrap(HexFormat.of().parseHex(args[i])), to);
            }
        }
        System.out.println("SPOOFED " + (args.length - 4));
    }
}
