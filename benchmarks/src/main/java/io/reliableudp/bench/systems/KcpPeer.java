package io.reliableudp.bench.systems;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import org.HdrHistogram.Histogram;

/**
 * The KCP baseline of the {@code throughput} and {@code pingpong} benchmarks, as a child JVM: this
 * harness's class path plus the {@code benchmarks-kcp} jar (kcp-netty 1.5.2 on Netty 4.1.68, which must
 * not meet the Netty 4.2 of Spring Boot 4), reached through {@code KcpLink} (one-way streams) and
 * {@code KcpEcho} (echo server, client with replies) by name and JDK types only. KCP in fast mode
 * (nodelay 1, interval 10, resend 2, nc 1), kcp-netty's defaults otherwise (send window 32 segments,
 * receive window 128).
 *
 * <p>Speaks the protocol of {@link PeerProcess}: one command a line on stdin, one {@code RESULT} line
 * each on stdout.
 * <ul>
 *   <li>{@code throughput SIZE CONNECTIONS true SECONDS}: one receiving server, CONNECTIONS client links;
 *       one sender thread writes 64 messages to each link in turn while fewer than 1024 per connection
 *       are sent and not yet delivered (kcp-netty queues writes without bound otherwise);</li>
 *   <li>{@code pingpong SIZE SECONDS}: an echo server; the next ping is written from the reply callback
 *       (the client's event loop), as this library's ping-pong sends from its listener.</li>
 * </ul>
 */
public final class KcpPeer {

    private static final String LINK = "io.reliableudp.bench.kcp.KcpLink";
    private static final String ECHO = "io.reliableudp.bench.kcp.KcpEcho";
    private static final int BURST = 64;
    private static final int WINDOW_PER_CONNECTION = 1024;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final MethodHandle listen;
    private final MethodHandle connect;
    private final MethodHandle listenEcho;
    private final MethodHandle connectWithReplies;

    private KcpPeer() throws ReflectiveOperationException {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> link = Class.forName(LINK);
        Class<?> echo = Class.forName(ECHO);
        listen = lookup.findStatic(link, "listen", MethodType.methodType(AutoCloseable.class, int.class, Consumer.class));
        connect = lookup.findStatic(link, "connect", MethodType.methodType(Consumer.class, String.class, int.class));
        listenEcho = lookup.findStatic(echo, "listenEcho", MethodType.methodType(AutoCloseable.class, int.class));
        connectWithReplies = lookup.findStatic(echo, "connect",
                MethodType.methodType(Consumer.class, String.class, int.class, Consumer.class));
    }

    /** Serves commands until {@code quit} or end of input. */
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        KcpPeer peer = new KcpPeer();
        out.println("READY kcp java " + Runtime.version());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] cmd = line.trim().split("\\s+");
            if (cmd[0].isEmpty()) {
                continue;
            }
            if (cmd[0].equals("quit")) {
                break;
            }
            String answer;
            long cpu0 = Cpu.processNanos();
            long wall0 = System.nanoTime();
            try {
                answer = switch (cmd[0]) {
                    case "throughput" -> peer.throughput(Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]), Double.parseDouble(cmd[4]));
                    case "pingpong" -> peer.pingPong(Integer.parseInt(cmd[1]), Double.parseDouble(cmd[2]));
                    default -> "error unknown command " + cmd[0];
                };
            } catch (Throwable e) {
                answer = "error " + e.toString().replace('\n', ' ');
            }
            out.println("RESULT " + answer + String.format(Locale.ROOT, " cpu=%.3f",
                    (Cpu.processNanos() - cpu0) / (double) (System.nanoTime() - wall0)));
        }
        System.exit(0); // Netty's threads are gone, but do not wait on any straggler
    }

    @SuppressWarnings("unchecked")
    private String throughput(int size, int connections, double seconds) throws Throwable {
        AtomicLong delivered = new AtomicLong();
        Consumer<byte[]> sink = bytes -> delivered.lazySet(delivered.get() + 1); // one event loop thread
        List<Consumer<byte[]>> links = new ArrayList<>();
        try (AutoCloseable server = (AutoCloseable) listen.invoke(0, sink)) {
            int port = ((IntSupplier) server).getAsInt();
            for (int i = 0; i < connections; i++) {
                links.add((Consumer<byte[]>) connect.invoke("127.0.0.1", port));
            }
            byte[] payload = new byte[size];
            long window = (long) WINDOW_PER_CONNECTION * connections;
            AtomicBoolean stop = new AtomicBoolean();
            long[] sent = new long[1];
            Thread sender = Thread.ofPlatform().name("kcp-sender").start(() -> {
                while (!stop.get()) {
                    boolean progress = false;
                    for (Consumer<byte[]> link : links) {
                        for (int m = 0; m < BURST && sent[0] - delivered.get() < window; m++) {
                            link.accept(payload);
                            sent[0]++;
                            progress = true;
                        }
                    }
                    if (!progress) {
                        Thread.yield();
                    }
                }
            });
            Thread.sleep(300);
            long before = delivered.get();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = delivered.get();
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            sender.join();
            long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
            while (delivered.get() < sent[0] && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            return String.format(Locale.ROOT, "throughput rate=%.1f sent=%d delivered=%d complete=%b",
                    (after - before) / elapsed, sent[0], delivered.get(), delivered.get() == sent[0]);
        } finally {
            for (Consumer<byte[]> link : links) {
                ((AutoCloseable) link).close();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private String pingPong(int size, double seconds) throws Throwable {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        CountDownLatch done = new CountDownLatch(1);
        byte[] payload = new byte[size];
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long[] t0 = new long[1];
        Object[] self = new Object[1];
        Consumer<byte[]> replies = bytes -> { // the client's event loop: one thread
            long now = System.nanoTime();
            h.recordValue(now - t0[0]);
            if (now - end >= 0) {
                done.countDown();
                return;
            }
            t0[0] = System.nanoTime();
            ((Consumer<byte[]>) self[0]).accept(payload);
        };
        try (AutoCloseable server = (AutoCloseable) listenEcho.invoke(0)) {
            int port = ((IntSupplier) server).getAsInt();
            Consumer<byte[]> client = (Consumer<byte[]>) connectWithReplies.invoke("127.0.0.1", port, replies);
            try {
                self[0] = client;
                t0[0] = System.nanoTime();
                client.accept(payload);
                if (!done.await((long) seconds + 30, TimeUnit.SECONDS)) {
                    return "error ping-pong stalled after " + h.getTotalCount() + " round trips";
                }
            } finally {
                ((AutoCloseable) client).close();
            }
        }
        ByteBuffer encoded = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        int length = h.encodeIntoCompressedByteBuffer(encoded);
        byte[] bytes = new byte[length];
        encoded.flip();
        encoded.get(bytes);
        return "pingpong count=" + h.getTotalCount() + " histogram=" + Base64.getEncoder().encodeToString(bytes);
    }
}
