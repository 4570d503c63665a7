package io.reliableudp.bench.aeron;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.FragmentHandler;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import org.agrona.BufferUtil;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.YieldingIdleStrategy;

/**
 * The Aeron baseline of the {@code throughput} and {@code pingpong} benchmarks, run by the benchmarks
 * jar in a child JVM on JDK 17: an embedded media driver (one per child, the threading mode given on
 * the command line) and an Aeron client in the same process, publications and subscriptions over UDP
 * on loopback.
 *
 * <p>Protocol: the parent writes one command a line on standard input, the peer answers each with one
 * line starting with {@code RESULT } on standard output (anything else on stdout or stderr is log):
 * <ul>
 *   <li>{@code throughput SIZE CONNECTIONS RELIABLE SECONDS}: CONNECTIONS exclusive publications (one
 *       session each) to one subscription, one sender thread offering SIZE-byte messages to them in
 *       turn, one receiver thread polling; answers
 *       {@code RESULT throughput rate=R sent=S delivered=D complete=true|false} where R is messages
 *       delivered per second during SECONDS and complete says the receiver got every message sent
 *       within 10 s of the sender stopping (100 ms when unreliable). RELIABLE false adds {@code reliable=false} to the channel
 *       (no NAKs: a gap is skipped, not repaired).</li>
 *   <li>{@code pingpong SIZE SECONDS}: a ping publication and a pong publication on two endpoints,
 *       one echo thread; answers {@code RESULT pingpong count=N histogram=BASE64} (HdrHistogram,
 *       compressed encoding, nanoseconds) or {@code RESULT error MESSAGE}.</li>
 *   <li>{@code quit}: closes the client and the driver and deletes the Aeron directory.</li>
 * </ul>
 * Arguments: {@code SHARED|DEDICATED AERON_DIR}. Term buffers are 1 MiB (sparse) to keep the
 * directory small, socket buffers 4 MiB as this library's nodes ask for; the application threads back
 * off (spin, yield, park) when idle, the driver keeps Aeron's default idle strategies. The driver (and
 * the client) start for each command and close after it, so that no idle driver runs beside the other
 * systems' measurements; the JVM, and what it compiled, stays. Every answer ends with
 * {@code cpu=CORES}, the process CPU during the command.
 */
public final class AeronPeer {

    private static final String LOOPBACK = "127.0.0.1";
    private static final int TERM_LENGTH = 1 << 20;
    /** Socket buffers as this library's nodes ask for (4 MiB). */
    private static final int SOCKET_BUFFER = 4 << 20;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long CONNECT_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long PONG_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Aeron aeron;
    private int nextStreamId = 1001;

    private AeronPeer(Aeron aeron) {
        this.aeron = aeron;
    }

    /**
     * Serves commands until {@code quit} or end of input, each with a media driver and client of its own.
     *
     * @param args {@code SHARED|DEDICATED AERON_DIR}
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: AeronPeer SHARED|DEDICATED AERON_DIR");
            System.exit(2);
        }
        ThreadingMode mode = ThreadingMode.valueOf(args[0].toUpperCase(Locale.ROOT));
        String dir = args[1];
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(Path.of(dir))));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("READY aeron " + io.aeron.AeronVersion.VERSION + " " + mode + " java " + Runtime.version());
        try {
            for (String line; (line = in.readLine()) != null; ) {
                String[] cmd = line.trim().split("\\s+");
                if (cmd[0].isEmpty()) {
                    continue;
                }
                if (cmd[0].equals("quit")) {
                    break;
                }
                String answer;
                long cpu0 = processCpuNanos();
                long wall0 = System.nanoTime();
                // a driver per command: an idle driver would otherwise run beside the other systems' measurements
                try (MediaDriver driver = MediaDriver.launch(driverContext(mode, dir));
                     Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()))) {
                    AeronPeer peer = new AeronPeer(aeron);
                    answer = switch (cmd[0]) {
                        case "throughput" -> peer.throughput(Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]),
                                Boolean.parseBoolean(cmd[3]), Double.parseDouble(cmd[4]));
                        case "pingpong" -> peer.pingPong(Integer.parseInt(cmd[1]), Double.parseDouble(cmd[2]));
                        default -> "error unknown command " + cmd[0];
                    };
                } catch (Exception | AssertionError e) {
                    answer = "error " + e.toString().replace('\n', ' ');
                }
                out.println("RESULT " + answer + String.format(Locale.ROOT, " cpu=%.3f",
                        (processCpuNanos() - cpu0) / (double) (System.nanoTime() - wall0)));
            }
        } finally {
            deleteTree(Path.of(dir));
        }
    }

    private static MediaDriver.Context driverContext(ThreadingMode mode, String dir) {
        return new MediaDriver.Context()
                .aeronDirectoryName(dir)
                .threadingMode(mode)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true)
                .termBufferSparseFile(true)
                .publicationTermBufferLength(TERM_LENGTH)
                .ipcTermBufferLength(TERM_LENGTH)
                .socketRcvbufLength(SOCKET_BUFFER)
                .socketSndbufLength(SOCKET_BUFFER);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    // ----------------------------------------------------------------------------- throughput

    private String throughput(int size, int connections, boolean reliable, double seconds) throws Exception {
        int streamId = nextStreamId++;
        String channel = "aeron:udp?endpoint=" + LOOPBACK + ":" + freePort() + (reliable ? "" : "|reliable=false");
        AtomicLong delivered = new AtomicLong();
        AtomicBoolean stopReceiver = new AtomicBoolean();
        List<ExclusivePublication> publications = new ArrayList<>();
        try (Subscription subscription = aeron.addSubscription(channel, streamId)) {
            for (int i = 0; i < connections; i++) {
                publications.add(aeron.addExclusivePublication(channel, streamId));
            }
            awaitConnected(publications, subscription, connections);
            Thread receiver = new Thread(() -> {
                IdleStrategy idle = new BackoffIdleStrategy();
                FragmentHandler count = (buffer, offset, length, header) -> delivered.lazySet(delivered.get() + 1);
                while (!stopReceiver.get()) {
                    idle.idle(subscription.poll(count, 256));
                }
            }, "aeron-receiver");
            receiver.start();
            AtomicBoolean stopSender = new AtomicBoolean();
            AtomicLong sent = new AtomicLong();
            Thread sender = new Thread(() -> {
                UnsafeBuffer payload = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(64, size), 64));
                IdleStrategy idle = new BackoffIdleStrategy();
                long count = 0;
                while (!stopSender.get()) {
                    int accepted = 0;
                    for (int p = 0; p < publications.size(); p++) {
                        Publication publication = publications.get(p);
                        for (int m = 0; m < 64; m++) {
                            payload.putLong(0, count);
                            if (publication.offer(payload, 0, size) < 0) {
                                break;
                            }
                            count++;
                            accepted++;
                        }
                    }
                    sent.lazySet(count);
                    idle.idle(accepted);
                }
                sent.set(count);
            }, "aeron-sender");
            sender.start();
            Thread.sleep(300);
            long before = delivered.get();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = delivered.get();
            double elapsed = (System.nanoTime() - start) / 1e9;
            stopSender.set(true);
            sender.join();
            long total = sent.get();
            long deadline = System.nanoTime() + (reliable ? DRAIN_TIMEOUT_NANOS : TimeUnit.MILLISECONDS.toNanos(100));
            while (delivered.get() < total && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            stopReceiver.set(true);
            receiver.join();
            return String.format(Locale.ROOT, "throughput rate=%.1f sent=%d delivered=%d complete=%b",
                    (after - before) / elapsed, total, delivered.get(), delivered.get() == total);
        } finally {
            for (ExclusivePublication publication : publications) {
                publication.close();
            }
        }
    }

    private static void awaitConnected(List<? extends Publication> publications, Subscription subscription, int images)
            throws InterruptedException {
        long deadline = System.nanoTime() + CONNECT_TIMEOUT_NANOS;
        while (!(subscription.imageCount() >= images && publications.stream().allMatch(Publication::isConnected))) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("publications not connected after 10 s (images "
                        + subscription.imageCount() + " of " + images + ")");
            }
            Thread.sleep(1);
        }
    }

    // ----------------------------------------------------------------------------- ping-pong

    private String pingPong(int size, double seconds) throws Exception {
        int pingStream = nextStreamId++;
        int pongStream = nextStreamId++;
        String pingChannel = "aeron:udp?endpoint=" + LOOPBACK + ":" + freePort();
        String pongChannel = "aeron:udp?endpoint=" + LOOPBACK + ":" + freePort();
        AtomicBoolean stop = new AtomicBoolean();
        try (Subscription pingSubscription = aeron.addSubscription(pingChannel, pingStream);
             Subscription pongSubscription = aeron.addSubscription(pongChannel, pongStream);
             ExclusivePublication ping = aeron.addExclusivePublication(pingChannel, pingStream);
             ExclusivePublication pong = aeron.addExclusivePublication(pongChannel, pongStream)) {
            awaitConnected(List.of(ping), pingSubscription, 1);
            awaitConnected(List.of(pong), pongSubscription, 1);
            Thread echo = new Thread(() -> {
                IdleStrategy idle = new YieldingIdleStrategy();
                FragmentHandler back = (buffer, offset, length, header) -> {
                    while (pong.offer(buffer, offset, length) < 0 && !stop.get()) {
                        Thread.yield();
                    }
                };
                while (!stop.get()) {
                    idle.idle(pingSubscription.poll(back, 16));
                }
            }, "aeron-echo");
            echo.start();
            try {
                Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
                UnsafeBuffer payload = new UnsafeBuffer(BufferUtil.allocateDirectAligned(Math.max(64, size), 64));
                int[] got = new int[1];
                FragmentHandler onPong = (buffer, offset, length, header) -> got[0]++;
                long end = System.nanoTime() + (long) (seconds * 1e9);
                while (System.nanoTime() - end < 0) {
                    got[0] = 0;
                    long t0 = System.nanoTime();
                    payload.putLong(0, t0);
                    while (ping.offer(payload, 0, size) < 0) {
                        Thread.yield();
                        if (System.nanoTime() - t0 > PONG_TIMEOUT_NANOS) {
                            return "error ping not accepted for 5 s after " + histogram.getTotalCount() + " round trips";
                        }
                    }
                    while (got[0] == 0) {
                        if (pongSubscription.poll(onPong, 1) == 0) {
                            Thread.yield();
                            if (System.nanoTime() - t0 > PONG_TIMEOUT_NANOS) {
                                return "error no pong for 5 s after " + histogram.getTotalCount() + " round trips";
                            }
                        }
                    }
                    histogram.recordValue(System.nanoTime() - t0);
                }
                ByteBuffer encoded = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
                int length = histogram.encodeIntoCompressedByteBuffer(encoded);
                byte[] bytes = new byte[length];
                encoded.flip();
                encoded.get(bytes);
                return "pingpong count=" + histogram.getTotalCount() + " histogram=" + Base64.getEncoder().encodeToString(bytes);
            } finally {
                stop.set(true);
                echo.join();
            }
        }
    }

    // ----------------------------------------------------------------------------- support

    /** A port free on loopback now (the driver binds it just after: a race only with other binders). */
    private static int freePort() throws IOException {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(LOOPBACK), 0))) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        } catch (IOException e) {
            System.err.println("could not delete " + root + ": " + e);
        }
    }
}
