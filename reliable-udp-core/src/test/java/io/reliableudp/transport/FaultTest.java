package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.testsupport.NetworkNamespace;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Faults on real sockets, each bounded to seconds: a peer JVM killed mid-stream (and restarted on
 * its port), the path blackholed for 2 s and 8 s (nftables in a namespace the test creates; root
 * only), a receiver stalled until its socket buffer overflows, and the wall clock jumping hours
 * both ways (a child JVM under libfaketime). Each asserts the disconnect reasons and that every
 * reliable message was delivered once, in order, or its future failed with a reason.
 *
 * <p>Layer: the core's transport ({@code ReliableUdpNode}). The core has no automatic reconnect:
 * where a test reconnects, the test (or {@link FaultPeerMain}) calls {@code connect} again as an
 * application would; the Spring starter's {@code ReconnectPolicy} is what reconnects by itself.
 */
@Timeout(120)
@ExtendWith(SendFuturesEndOnce.class)
class FaultTest {

    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final Pattern RESULT = Pattern.compile("RESULT (.*)");

    private static Process child(List<String> prefix, Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(JAVA, "-cp", System.getProperty("java.class.path"), FaultPeerMain.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Runs a child to its end; its RESULT line's {@code key=value} pairs. */
    private static Map<String, String> result(Process p, String what) throws Exception {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("child finished").isTrue();
        System.out.println(what + ": " + out.trim());
        Matcher m = RESULT.matcher(out);
        assertThat(m.find()).as("RESULT line in: " + out).isTrue();
        Map<String, String> values = new java.util.LinkedHashMap<>();
        // values are key=value separated by spaces; lists are printed as [A, B] and maps as {A=1, B=2}
        Matcher kv = Pattern.compile("(\\w+)=(\\[[^\\]]*\\]|\\{[^}]*\\}|\\S+)").matcher(m.group(1));
        while (kv.find()) {
            values.put(kv.group(1), kv.group(2));
        }
        assertThat(p.exitValue()).as(out).isZero();
        return values;
    }

    // ------------------------------------------------------------------ peer death

    @Test
    void aPeerJvmKilledMidStreamTimesOutEveryMessageDeliveredOnceOrFailedAndARestartedPeerIsReachedAgain() throws Exception {
        List<Integer> printed = new CopyOnWriteArrayList<>();
        Process server = child(List.of(), Map.of(), "server", "0");
        int port;
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String first = lines.readLine();
            assertThat(first).startsWith("PORT ");
            port = Integer.parseInt(first.substring(5).trim());
            Thread reader = Thread.ofPlatform().daemon().start(() -> readReceived(lines, printed));

            RecordingListener events = new RecordingListener();
            NodeConfig cfg = NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .timeout(Duration.ofSeconds(2)).acceptIncoming(false).build();
            try (ReliableUdpNode client = ReliableUdpNode.start(cfg, events)) {
                InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
                Peer peer = client.connect(target).get(10, TimeUnit.SECONDS);
                List<CompletableFuture<Delivery>> futures = new ArrayList<>();
                boolean killed = false;
                long stopAt = Long.MAX_VALUE;
                for (int i = 0; System.nanoTime() < stopAt && i < 20_000; i++) {
                    futures.add(peer.send(0, ByteBuffer.allocate(16).putInt(i).array()));
                    if (i % 10 == 9) {
                        peer.flush();
                        Thread.sleep(5);
                    }
                    if (!killed && printed.size() >= 300) {
                        server.destroyForcibly(); // SIGKILL: no disconnect packets
                        killed = true;
                        stopAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                    }
                }
                assertThat(killed).as("the peer got 300 messages before the sends ran out").isTrue();
                assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
                reader.join(10_000);
                await().atMost(Duration.ofSeconds(10)).until(() -> !events.disconnected.isEmpty());
                assertThat(events.disconnected).extracting(RecordingListener.Disconnected::reason)
                        .containsExactly(DisconnectReason.TIMEOUT);

                int acked = 0;
                // exactly messages 0..k-1, each once, in order: a gap, a duplicate or a swap fails here
                assertThat(printed).as("delivered: exactly the first %d messages, in order", printed.size())
                        .containsExactlyElementsOf(IntStream.range(0, printed.size()).boxed().toList());
                for (int i = 0; i < futures.size(); i++) {
                    DeliveryFailure why = outcome(futures.get(i));
                    if (why == null) {
                        acked++;
                    } else {
                        assertThat(why).isIn(DeliveryFailure.TIMEOUT, DeliveryFailure.NOT_CONNECTED);
                    }
                }
                assertThat(acked).isGreaterThanOrEqualTo(1);
                if (printed.size() < futures.size()) {
                    // the first message not delivered was not acknowledged (later ones may have been: received
                    // behind it and lost with the process; docs/reliability.md)
                    assertThat(outcome(futures.get(printed.size()))).as("message %d, the first not delivered, was"
                            + " not acknowledged", printed.size()).isNotNull();
                }
                System.out.printf("peer killed: sent=%d delivered=%d acked=%d%n", futures.size(), printed.size(), acked);

                // a peer restarted on the same port: the core does not reconnect, the application connects again
                List<Integer> again = new CopyOnWriteArrayList<>();
                Process restarted = child(List.of(), Map.of(), "server", String.valueOf(port));
                try {
                    BufferedReader l2 = new BufferedReader(new InputStreamReader(restarted.getInputStream(), StandardCharsets.UTF_8));
                    assertThat(l2.readLine()).isEqualTo("PORT " + port);
                    Thread.ofPlatform().daemon().start(() -> readReceived(l2, again));
                    Peer back = client.connect(target).get(10, TimeUnit.SECONDS);
                    back.send(0, ByteBuffer.allocate(16).putInt(777_777).array()).get(10, TimeUnit.SECONDS);
                    await().atMost(Duration.ofSeconds(5)).until(() -> again.contains(777_777));
                } finally {
                    restarted.destroyForcibly();
                }
            }
        } finally {
            server.destroyForcibly();
        }
    }

    private static void readReceived(BufferedReader lines, List<Integer> into) {
        try {
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("R ")) {
                    into.add(Integer.parseInt(line.substring(2).trim()));
                }
            }
        } catch (IOException e) {
            // the child died: its output ends
        }
    }

    /** Null when the future completed, else the failure's reason (never an untyped failure). */
    private static DeliveryFailure outcome(CompletableFuture<Delivery> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(DeliveryException.class);
            return ((DeliveryException) e.getCause()).reason();
        } catch (TimeoutException e) {
            throw new AssertionError("a send future was never completed", e);
        }
    }

    // ------------------------------------------------------------------ blackhole

    /**
     * Both nodes in a child JVM inside a network namespace; the child itself adds an nftables rule
     * that drops every UDP datagram on the namespace's loopback and removes it after 2 or 8 seconds.
     * Timeout 5 s (the default): a 2 s outage passes unnoticed (no disconnect, every message delivered
     * once in order and acknowledged); an 8 s one times both sides out (pending sends fail with TIMEOUT,
     * sends meanwhile are refused with NOT_CONNECTED), and the client connects again once the path is back.
     */
    @ParameterizedTest(name = "outage {0} s")
    @ValueSource(ints = {2, 8})
    void aBlackholedPathShorterThanTheTimeoutIsRiddenOutAndALongerOneTimesOutAndReconnects(int seconds) throws Exception {
        NetworkNamespace.assumeAvailable("blackhole");
        try (NetworkNamespace namespace = NetworkNamespace.create("rudp-bh-" + seconds)) {
            Map<String, String> r = result(child(namespace.prefix(), Map.of(), "blackhole",
                    String.valueOf(seconds)), "blackhole " + seconds + " s");
            assertThat(r.get("ok")).isEqualTo("true");
            assertThat(r.get("duplicates")).isEqualTo("0");
            assertThat(r.get("ordered")).isEqualTo("true");
            assertThat(r.get("unresolved")).isEqualTo("0");
            assertThat(r.get("acked_not_received")).isEqualTo("0");
            assertThat(r.get("prefixes")).as("each connection delivered exactly a prefix of what it took").isEqualTo("true");
            assertThat(r.get("repeated_completions")).as("send futures told their end twice").isEqualTo("0");
            if (seconds < 5) {
                assertThat(r.get("server_disconnects")).isEqualTo("[]");
                assertThat(r.get("client_disconnects")).isEqualTo("[]");
                assertThat(r.get("failed")).isEqualTo("{}");
                assertThat(r.get("connects")).isEqualTo("1");
                assertThat(r.get("acked")).isEqualTo(r.get("sent")).isEqualTo(r.get("received"));
            } else {
                assertThat(r.get("server_disconnects")).isEqualTo("[TIMEOUT]");
                assertThat(r.get("client_disconnects")).startsWith("[TIMEOUT");
                assertThat(r.get("failed")).contains("TIMEOUT=");
                // a send on the timed-out connection is refused, never sent
                assertThat(r.get("refused_after_end")).startsWith("[NOT_CONNECTED");
                // each side timed out in the dark (before the path came back), and not before the configured
                // timeout minus what may have passed between the last datagram heard and the outage (< 0.5 s)
                long timeout = Long.parseLong(r.get("timeout_ms"));
                assertThat(r.get("disconnects_before_heal")).isEqualTo("true");
                assertThat(Long.parseLong(r.get("server_disconnect_ms"))).isGreaterThanOrEqualTo(timeout - 500);
                assertThat(Long.parseLong(r.get("client_disconnect_ms"))).isGreaterThanOrEqualTo(timeout - 500);
                assertThat(Integer.parseInt(r.get("connects"))).isGreaterThanOrEqualTo(2);
                assertThat(Integer.parseInt(r.get("received"))).isGreaterThan(0);
            }
        }
    }

    // ------------------------------------------------------------------ receiver stall

    /**
     * The server's listener blocks its I/O thread for 2 s (less than the 5 s timeout) while the client
     * keeps sending: the server's socket buffer (asked for 8 KiB, a few datagrams) overflows and the kernel drops
     * datagrams (the socket's drop counter in /proc/net/udp rises). After the stall every message is
     * delivered exactly once and in order, every future completes, nobody disconnects.
     */
    @Test
    void aReceiverStalledUntilItsSocketBufferOverflowsLosesNothing() throws Exception {
        final int messages = 1000;
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stalled = new AtomicBoolean();
        List<Integer> received = new CopyOnWriteArrayList<>();
        RecordingListener serverEvents = new RecordingListener();
        NodeListener stalling = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                received.add(ByteBuffer.wrap(payload).getInt());
                if (stalled.compareAndSet(false, true)) {
                    try {
                        release.await(10, TimeUnit.SECONDS); // the node's I/O thread stops here
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }

            @Override
            public void onDisconnected(Peer peer, DisconnectReason reason) {
                serverEvents.onDisconnected(peer, reason);
            }
        };
        RecordingListener clientEvents = new RecordingListener();
        InetSocketAddress lo = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (ReliableUdpNode server = ReliableUdpNode.start(NodeConfig.builder().bindAddress(lo)
                .socketReceiveBufferSize(8 * 1024).build(), stalling);
             ReliableUdpNode client = ReliableUdpNode.start(NodeConfig.builder().bindAddress(lo).acceptIncoming(false).build(),
                     clientEvents)) {
            Peer peer = client.connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            long dropsBefore = socketDrops(server.localAddress().getPort());
            List<CompletableFuture<Delivery>> futures = new ArrayList<>();
            long stallEnds = 0;
            byte[] filler = new byte[400];
            for (int i = 0; i < messages; i++) {
                ByteBuffer.wrap(filler).putInt(0, i);
                futures.add(peer.send(0, filler.clone()));
                if (i % 20 == 19) {
                    peer.flush();
                    Thread.sleep(1);
                }
                if (stallEnds == 0 && stalled.get()) {
                    stallEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                }
            }
            while (stallEnds == 0 || System.nanoTime() < stallEnds) {
                peer.flush(); // keeps the resends going into the full buffer
                Thread.sleep(10);
                if (stallEnds == 0 && stalled.get()) {
                    stallEnds = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                }
            }
            long dropsDuring = socketDrops(server.localAddress().getPort()) - dropsBefore;
            release.countDown();
            for (CompletableFuture<Delivery> f : futures) {
                assertThat(outcome(f)).as("every message acknowledged").isNull();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() >= messages);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                expected.add(i);
            }
            assertThat(received).as("exactly once, in order").containsExactlyElementsOf(expected);
            assertThat(serverEvents.disconnected).isEmpty();
            assertThat(clientEvents.disconnected).isEmpty();
            System.out.printf("stalled receiver: kernel dropped %d datagrams at the server's socket; resent %d%n",
                    dropsDuring, peer.stats().channels().get(0).messagesResent());
            assertThat(dropsDuring).as("datagrams the kernel dropped at the full receive buffer").isPositive();
        }
    }

    /** The kernel's drop counter of the UDP socket bound to {@code port} (last column of /proc/net/udp{,6}). */
    static long socketDrops(int port) throws IOException {
        String hexPort = String.format(":%04X", port);
        long drops = 0;
        for (String file : List.of("/proc/net/udp", "/proc/net/udp6")) {
            Path p = Path.of(file);
            if (!Files.isReadable(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 12 && f[1].endsWith(hexPort)) {
                    drops += Long.parseLong(f[f.length - 1]);
                }
            }
        }
        return drops;
    }

    // ------------------------------------------------------------------ wall-clock jump

    private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    /**
     * A child JVM under libfaketime (wall clock only: {@code FAKETIME_DONT_FAKE_MONOTONIC=1}) streams
     * between two nodes while its wall clock jumps 3 h forward, then back to 3 h behind real time; a new
     * client connects after each jump (handshake cookies carry monotonic time). Nothing disconnects,
     * every message is delivered once in order. Machine clock untouched. {@code WallClockRuleTest}
     * keeps wall-clock reads out of the core so that this holds by construction.
     */
    @Test
    void wallClockJumpsOfHoursBothWaysChangeNothing(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isReadable(LIBFAKETIME),
                "skipped: libfaketime is not installed (apt-get install faketime; .ci/run does it as root)");
        Path timestamp = dir.resolve("faketime");
        Files.writeString(timestamp, "+0\n");
        Map<String, String> env = Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME_TIMESTAMP_FILE", timestamp.toString(),
                "FAKETIME_CACHE_DURATION", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1");
        Map<String, String> r = result(child(List.of(), env, "clockjump"), "wall-clock jump");
        long hour = 3_600_000;
        assertThat(Long.parseLong(r.get("jump_forward_ms"))).as("the child's wall clock went forward 3 h")
                .isBetween(3 * hour - 60_000, 3 * hour + 60_000);
        assertThat(Long.parseLong(r.get("jump_back_ms"))).as("then back 6 h").isBetween(-6 * hour - 60_000, -6 * hour + 60_000);
        assertThat(r.get("ok")).isEqualTo("true");
        // the two short-lived clients' goodbyes; the stream's own connection never ends
        assertThat(r.get("server_disconnects")).isEqualTo("[CLOSED_BY_PEER, CLOSED_BY_PEER]");
        assertThat(r.get("client_disconnects")).isEqualTo("[]");
        assertThat(r.get("failed")).isEqualTo("{}");
        assertThat(r.get("acked")).isEqualTo(r.get("sent")).isEqualTo(r.get("received"));
        assertThat(r.get("new_client_forward")).isEqualTo("true");
        assertThat(r.get("new_client_back")).isEqualTo("true");
    }
}
