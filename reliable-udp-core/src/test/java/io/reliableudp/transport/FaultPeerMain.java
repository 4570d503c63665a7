package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
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
import org.jspecify.annotations.Nullable;

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
        /** The server's peer each received message came by, in the order received: one per connection. */
        final List<Peer> receivedBy = new CopyOnWriteArrayList<>();
        final List<String> serverDisconnects = new CopyOnWriteArrayList<>();
        final List<String> clientDisconnects = new CopyOnWriteArrayList<>();
        /** System.nanoTime (the nodes' clock) of the first disconnect event of each side, 0 before. */
        volatile long serverDisconnectedAt;
        volatile long clientDisconnectedAt;
        final Map<Integer, CompletableFuture<Delivery>> futures = new ConcurrentHashMap<>();
        /** The messages each connection took (accepted by its send), in send order: one list per connect. */
        final List<List<Integer>> sentOn = new ArrayList<>();
        /** The reason of the send tried on each ended connection before connecting again (always refused). */
        final List<String> refusedAfterEnd = new ArrayList<>();
        final long repeatedCompletionsBefore = PeerLock.REPEATED_COMPLETIONS.sum();
        volatile Peer peer;
        int next;
        int connects;

        Stream(NodeConfig.Builder cfg) throws Exception {
            server = ReliableUdpNode.start(cfg.build(), new NodeListener() {
                @Override
                public void onMessage(Peer p, int channel, int id, byte[] payload) {
                    if (channel == 0) {
                        received.add(ByteBuffer.wrap(payload).getInt());
                        receivedBy.add(p);
                    }
                }

                @Override
                public void onDisconnected(Peer p, DisconnectReason reason) {
                    if (serverDisconnects.isEmpty()) {
                        serverDisconnectedAt = System.nanoTime();
                    }
                    serverDisconnects.add(reason.name());
                }
            });
            client = ReliableUdpNode.start(cfg.acceptIncoming(false).build(), new NodeListener() {
                @Override
                public void onMessage(Peer p, int channel, int id, byte[] payload) {
                }

                @Override
                public void onDisconnected(Peer p, DisconnectReason reason) {
                    if (clientDisconnects.isEmpty()) {
                        clientDisconnectedAt = System.nanoTime();
                    }
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
            sentOn.add(new ArrayList<>());
        }

        /** Sends for {@code seconds} at about {@code perSecond}; when the peer is gone, connects again (as an application would: the core does not). */
        void run(double seconds, int perSecond) throws Exception {
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long interval = 1_000_000_000L / perSecond;
            long due = System.nanoTime();
            while (System.nanoTime() < end) {
                Peer p = peer;
                if (p.state() == PeerState.DISCONNECTED) {
                    if (refusedAfterEnd.size() < connects) {
                        // a send on the ended connection: refused at once, never sent
                        refusedAfterEnd.add(String.valueOf(reason(p.send(0, ByteBuffer.allocate(16).putInt(-1).array()))));
                    }
                    try {
                        connect();
                    } catch (ExecutionException e) {
                        // connect timed out during the outage: try again
                    }
                    continue;
                }
                int id = next++;
                CompletableFuture<Delivery> f = p.send(0, ByteBuffer.allocate(16).putInt(id).array());
                futures.put(id, f);
                if (!f.isDone() || !f.isCompletedExceptionally()) {
                    sentOn.get(sentOn.size() - 1).add(id);
                }
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
            boolean prefixes = prefixes();
            long repeated = PeerLock.REPEATED_COMPLETIONS.sum() - repeatedCompletionsBefore;
            boolean ok = duplicates == 0 && ordered && unresolved == 0 && ackedNotReceived.isEmpty()
                    && !failures.containsKey("null") && prefixes && repeated == 0;
            OUT.printf("RESULT ok=%s sent=%d received=%d acked=%d failed=%s unresolved=%d duplicates=%d ordered=%s"
                            + " acked_not_received=%d connects=%d server_disconnects=%s client_disconnects=%s"
                            + " prefixes=%s repeated_completions=%d refused_after_end=%s %s%n",
                    ok, next, received.size(), acked, failures, unresolved, duplicates, ordered, ackedNotReceived.size(),
                    connects, serverDisconnects, clientDisconnects, prefixes, repeated, refusedAfterEnd, extra);
            return ok;
        }

        /**
         * Whether each connection delivered exactly a prefix of what was sent on it: the messages the
         * server received by one of its peers are exactly the first k the client's connection took, once
         * each, in order (no gap), and the first one not delivered was not acknowledged.
         */
        boolean prefixes() {
            Map<Peer, List<Integer>> byConnection = new java.util.LinkedHashMap<>();
            for (int i = 0; i < received.size(); i++) {
                byConnection.computeIfAbsent(receivedBy.get(i), k -> new ArrayList<>()).add(received.get(i));
            }
            for (List<Integer> got : byConnection.values()) {
                List<Integer> sent = sentOn.stream().filter(l -> l.contains(got.get(0))).findFirst().orElse(List.of());
                if (got.size() > sent.size() || !got.equals(sent.subList(0, got.size()))) {
                    OUT.println("not a prefix: received " + got + " of " + sent);
                    return false;
                }
                if (got.size() < sent.size()) {
                    CompletableFuture<Delivery> first = futures.get(sent.get(got.size()));
                    if (first.isDone() && !first.isCompletedExceptionally()) {
                        OUT.println("message " + sent.get(got.size()) + " acknowledged, the first not delivered");
                        return false;
                    }
                }
            }
            return true;
        }

        private static @Nullable DeliveryFailure reason(CompletableFuture<Delivery> f) throws InterruptedException {
            try {
                f.get(5, TimeUnit.SECONDS);
                return null;
            } catch (ExecutionException e) {
                return e.getCause() instanceof DeliveryException de ? de.reason() : null;
            } catch (TimeoutException e) {
                return null;
            }
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
            long[] healedAt = new long[1];
            Thread heal = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep((long) (seconds * 1000));
                    healedAt[0] = System.nanoTime(); // before the rule goes: a disconnect before this was in the dark
                    nft("flush", "chain", "inet", "rudp_bh", "out");
                    outage[0] = (System.nanoTime() - start) / 1e9;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            s.run(seconds + 2, 500); // reconnects after the outage when the connection timed out
            heal.join();
            // when each side's first disconnect came, after the outage began (ms; -1: none), and whether before it healed
            long server = s.serverDisconnectedAt == 0 ? -1 : (s.serverDisconnectedAt - start) / 1_000_000;
            long client = s.clientDisconnectedAt == 0 ? -1 : (s.clientDisconnectedAt - start) / 1_000_000;
            boolean inTheDark = s.serverDisconnectedAt != 0 && s.serverDisconnectedAt - healedAt[0] < 0
                    && s.clientDisconnectedAt != 0 && s.clientDisconnectedAt - healedAt[0] < 0;
            boolean ok = s.report(String.format("outage=%.1fs timeout_ms=%d server_disconnect_ms=%d client_disconnect_ms=%d"
                    + " disconnects_before_heal=%s", outage[0], s.client.config().timeout().toMillis(), server, client, inTheDark));
            System.exit(ok ? 0 : 1);
        }
    }

    // ------------------------------------------------------------------ wall-clock jump

    /**
     * The connect timeout of the clock-jump nodes, instead of the default 5 s: the first handshake of
     * this fresh JVM runs interpreted and, on a loaded build machine, overran 5 s before any jump. What
     * the test looks for is a handshake the jump breaks, and such a one never completes (each fresh
     * challenge after the jump is refused alike), so waiting longer hides nothing; 25 s is what the
     * parent's 90 s wait for this process leaves each of its three connects.
     */
    private static final Duration JUMP_CONNECT_TIMEOUT = Duration.ofSeconds(25);

    private static void clockJump() throws Exception {
        String file = System.getenv("FAKETIME_TIMESTAMP_FILE");
        if (file == null) {
            throw new IllegalStateException("run under libfaketime with FAKETIME_TIMESTAMP_FILE");
        }
        Path timestamp = Path.of(file);
        try (Stream s = new Stream(config().connectTimeout(JUMP_CONNECT_TIMEOUT))) {
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
        try (ReliableUdpNode other = ReliableUdpNode.start(config().connectTimeout(JUMP_CONNECT_TIMEOUT).acceptIncoming(false).build(),
                (p, c, i, d) -> { })) {
            // the node ends a connect that gets no answer at its connect timeout: wait that long, and a little more
            Peer p = other.connect(s.serverAddress()).get(JUMP_CONNECT_TIMEOUT.toSeconds() + 5, TimeUnit.SECONDS);
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
