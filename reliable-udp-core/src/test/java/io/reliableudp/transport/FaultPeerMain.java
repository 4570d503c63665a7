package io.reliableudp.transport;

import io.reliableudp.connection.DisconnectReason;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The child JVM of the fault tests ({@link FaultTest}); one mode per fault, each printing one
 * {@code RESULT key=value ...} line the parent asserts on:
 * <ul>
 *   <li>{@code server}: a server node on 127.0.0.1 (port {@code args[1]}, 0 = any) that prints
 *       {@code PORT n} and then {@code R n} for each reliable-ordered message, flushed at once, until
 *       it is killed;</li>
 *   <li>{@code blackhole SECONDS}: inside a network namespace, a client and a server node stream
 *       numbered messages while {@code nft} drops every UDP datagram on the loopback for SECONDS;</li>
 *   <li>{@code clockjump}: under libfaketime with a timestamp file, the same stream while the wall
 *       clock jumps 3 hours forward and then 6 hours back, with a new client connecting after each
 *       jump.</li>
 * </ul>
 * The stream checks the delivery invariants: every reliable-ordered message delivered at most once and
 * in order, every acknowledged one delivered, every future completed or failed with a reason.
 */
public final class FaultPeerMain {

    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    private FaultPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "server" -> server(Integer.parseInt(args[1]));
            case "blackhole" -> blackhole(Double.parseDouble(args[1]));
            case "clockjump" -> clockJump();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static NodeConfig.Builder config() throws Exception {
        return NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
    }

    private static void server(int port) throws Exception {
        NodeListener listener = (peer, channel, id, payload) -> {
            if (channel == 0) {
                OUT.println("R " + ByteBuffer.wrap(payload).getInt());
            }
        };
        NodeConfig cfg = config().bindAddress(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port)).build();
        try (ReliableUdpNode server = ReliableUdpNode.start(cfg, listener)) {
            OUT.println("PORT " + server.localAddress().getPort());
            Thread.sleep(Long.MAX_VALUE); // until killed
        }
    }

    // ------------------------------------------------------------------ the stream

    /** A server and a client node exchanging numbered reliable-ordered messages, with the bookkeeping. */
    static final class Stream implements AutoCloseable {
        final ReliableUdpNode server;
        final ReliableUdpNode client;
        final List<Integer> received = new CopyOnWriteArrayList<>();
        final List<String> serverDisconnects = new CopyOnWriteArrayList<>();
        final List<String> clientDisconnects = new CopyOnWriteArrayList<>();
        final Map<Integer, CompletableFuture<Delivery>> futures = new ConcurrentHashMap<>();
        volatile Peer peer;
        int next;
        int connects;

        Stream(NodeConfig.Builder cfg) throws Exception {
            server = ReliableUdpNode.start(cfg.build(), new NodeListener() {
                @Override
                public void onMessage(Peer p, int channel, int id, byte[] payload) {
                    if (channel == 0) {
                        received.add(ByteBuffer.wrap(payload).getInt());
                    }
                }

                @Override
                public void onDisconnected(Peer p, DisconnectReason reason) {
                    serverDisconnects.add(reason.name());
                }
            });
            client = ReliableUdpNode.start(cfg.acceptIncoming(false).build(), new NodeListener() {
                @Override
                public void onMessage(Peer p, int channel, int id, byte[] payload) {
                }

                @Override
                public void onDisconnected(Peer p, DisconnectReason reason) {
                    clientDisconnects.add(reason.name());
                }
            });
            connect();
        }

        InetSocketAddress serverAddress() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.localAddress().getPort());
        }

        private void connect() throws Exception {
            peer = client.connect(serverAddress()).get(30, TimeUnit.SECONDS);
            connects++;
        }

        /** Sends for {@code seconds} at about {@code perSecond}; when the peer is gone, connects again (as an application would: the core does not). */
        void run(double seconds, int perSecond) throws Exception {
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long interval = 1_000_000_000L / perSecond;
            long due = System.nanoTime();
            while (System.nanoTime() < end) {
                Peer p = peer;
                if (p.state() == PeerState.DISCONNECTED) {
                    try {
                        connect();
                    } catch (ExecutionException e) {
                        // connect timed out during the outage: try again
                    }
                    continue;
                }
                int id = next++;
                futures.put(id, p.send(0, ByteBuffer.allocate(16).putInt(id).array()));
                if (id % 10 == 9) {
                    p.flush();
                }
                due += interval;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            }
            peer.flush();
        }

        /** Waits for every future, then checks the invariants and prints the RESULT line. */
        boolean report(String extra) throws Exception {
            Map<String, Integer> failures = new TreeMap<>();
            int acked = 0;
            int unresolved = 0;
            List<Integer> ackedNotReceived = new ArrayList<>();
            java.util.Set<Integer> got = new java.util.HashSet<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            for (int id = 0; id < next; id++) {
                CompletableFuture<Delivery> f = futures.get(id);
                try {
                    f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    acked++;
                } catch (ExecutionException e) {
                    DeliveryFailure why = e.getCause() instanceof DeliveryException de ? de.reason() : null;
                    failures.merge(String.valueOf(why), 1, Integer::sum);
                } catch (TimeoutException e) {
                    unresolved++;
                }
            }
            Thread.sleep(200); // the listener runs after the ack may have gone out
            int duplicates = 0;
            boolean ordered = true;
            int last = -1;
            for (int v : received) {
                if (!got.add(v)) {
                    duplicates++;
                }
                if (v <= last) {
                    ordered = false;
                }
                last = v;
            }
            for (int id = 0; id < next; id++) {
                CompletableFuture<Delivery> f = futures.get(id);
                if (f.isDone() && !f.isCompletedExceptionally() && !got.contains(id)) {
                    ackedNotReceived.add(id);
                }
            }
            boolean ok = duplicates == 0 && ordered && unresolved == 0 && ackedNotReceived.isEmpty()
                    && !failures.containsKey("null");
            OUT.printf("RESULT ok=%s sent=%d received=%d acked=%d failed=%s unresolved=%d duplicates=%d ordered=%s"
                            + " acked_not_received=%d connects=%d server_disconnects=%s client_disconnects=%s %s%n",
                    ok, next, received.size(), acked, failures, unresolved, duplicates, ordered, ackedNotReceived.size(),
                    connects, serverDisconnects, clientDisconnects, extra);
            return ok;
        }

        @Override
        public void close() {
            client.close();
            server.close();
        }
    }

    // ------------------------------------------------------------------ blackhole

    private static void nft(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("nft"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("nft " + String.join(" ", args) + " failed: " + out);
        }
    }

    private static void blackhole(double seconds) throws Exception {
        nft("add", "table", "inet", "rudp_bh");
        nft("add", "chain", "inet", "rudp_bh", "out", "{ type filter hook output priority 0; }");
        try (Stream s = new Stream(config())) {
            s.run(1, 500);
            nft("add", "rule", "inet", "rudp_bh", "out", "oif", "lo", "meta", "l4proto", "udp", "drop");
            long start = System.nanoTime();
            double[] outage = new double[1];
            Thread heal = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep((long) (seconds * 1000));
                    nft("flush", "chain", "inet", "rudp_bh", "out");
                    outage[0] = (System.nanoTime() - start) / 1e9;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            s.run(seconds + 2, 500); // reconnects after the outage when the connection timed out
            heal.join();
            boolean ok = s.report(String.format("outage=%.1fs", outage[0]));
            System.exit(ok ? 0 : 1);
        }
    }

    // ------------------------------------------------------------------ wall-clock jump

    private static void clockJump() throws Exception {
        String file = System.getenv("FAKETIME_TIMESTAMP_FILE");
        if (file == null) {
            throw new IllegalStateException("run under libfaketime with FAKETIME_TIMESTAMP_FILE");
        }
        Path timestamp = Path.of(file);
        try (Stream s = new Stream(config())) {
            s.run(1, 500);
            long forward = jump(s, timestamp, "+3h");
            boolean newClientAfterForward = connectOnce(s);
            long back = jump(s, timestamp, "-3h");
            boolean newClientAfterBack = connectOnce(s);
            s.run(0.5, 500);
            boolean ok = s.report(String.format("jump_forward_ms=%d jump_back_ms=%d new_client_forward=%s new_client_back=%s",
                    forward, back, newClientAfterForward, newClientAfterBack));
            System.exit(ok && newClientAfterForward && newClientAfterBack ? 0 : 1);
        }
    }

    /**
     * Sets the fake wall clock to {@code offset} from real time and streams until the jump is seen
     * (libfaketime re-reads its file at most once per FAKETIME_CACHE_DURATION), then 1 s more.
     *
     * @return how far the wall clock jumped beyond the monotonic time that passed, in ms
     */
    private static long jump(Stream s, Path timestamp, String offset) throws Exception {
        long before = System.currentTimeMillis();
        long monoBefore = System.nanoTime();
        Files.writeString(timestamp, offset + "\n");
        long jumped = 0;
        for (int i = 0; i < 40 && Math.abs(jumped) < 3_000_000; i++) {
            s.run(0.1, 500);
            jumped = System.currentTimeMillis() - before - (System.nanoTime() - monoBefore) / 1_000_000;
        }
        s.run(1, 500);
        return jumped;
    }

    /** A fresh client node connects to the stream's server and gets one message acknowledged. */
    private static boolean connectOnce(Stream s) throws Exception {
        try (ReliableUdpNode other = ReliableUdpNode.start(config().acceptIncoming(false).build(), (p, c, i, d) -> { })) {
            Peer p = other.connect(s.serverAddress()).get(10, TimeUnit.SECONDS);
            p.send(1, "hello".getBytes(StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            OUT.println("new client failed: " + e);
            return false;
        }
    }

    static Duration seconds(double s) {
        return Duration.ofNanos((long) (s * 1e9));
    }
}
