package io.reliableudp.bench.loss;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A Java peer of the {@code loss} benchmark (one child process: the sender or the receiver of one system). The
 * C peer ({@code enet_peer.c}) follows the same contract, which is:
 * <pre>
 * receive PORT EVENTS SIZE RECORD_FILE LIFETIME_S
 * send    HOST PORT EVENTS RATE_HZ SIZE LIFETIME_S
 * </pre>
 * An event is SIZE bytes: its sequence number (bytes 0-7) and its send time (bytes 8-15, CLOCK_MONOTONIC
 * nanoseconds: {@code System.nanoTime()} on Linux, the same clock in every process of the machine), big-endian,
 * then zeros. Lines on stdout: the receiver prints {@code READY} once bound, then {@code DONE delivered=N
 * duplicates=D [stats]} after it got every event or was told to stop (a line {@code STOP} or the end of stdin),
 * having written one line {@code SEQ LATENCY_NS} per first delivery of an event into RECORD_FILE. The sender
 * prints {@code READY}, waits for {@code GO} on stdin (the harness installs the lossy link in between), connects,
 * prints {@code CONNECTED}, sends event i at {@code start + i / RATE}, prints {@code SENT n refused=r}, keeps its
 * connection serving (resends, acks) until {@code STOP} or the end of stdin, prints {@code STATS [stats]} and
 * exits. Either gives up by itself after LIFETIME_S seconds.
 *
 * <p>Before {@code READY}, a Java peer warms its JIT up over a local connection of its own (both directions of
 * its code: a receiver and a sender in this process, {@code -Dloss.warmup} events, 20,000 by default), while the
 * harness has no loss or counters installed yet.
 */
public final class LossPeer {

    /**
     * Events a Java peer sends itself before measuring, unless {@code -Dloss.warmup} says otherwise (the
     * harness always passes its {@code --warmup}, whose default this is). 20,000: with 2,000 the first ~300
     * events of a 20 s run still met the JIT compiling the measured paths, for this library and TCP alike
     * (docs/benchmarks.md, "Loss", warm-up); the C peer needs none.
     */
    static final int DEFAULT_WARMUP_EVENTS = 20_000;

    private static final LinkedBlockingQueue<String> STDIN = new LinkedBlockingQueue<>();
    private static final String END = "\u0000end";
    /** How long a receiver that reported DONE waits for the harness's STOP before it closes anyway. */
    private static final long STOP_WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private LossPeer() {
    }

    /**
     * Runs one peer: {@code SYSTEM receive ...} or {@code SYSTEM send ...} (see the class comment).
     *
     * @param args the system ({@code reliable-udp}, {@code tcp}, {@code kcp}), the role and its arguments
     */
    public static void main(String[] args) throws Exception {
        int status = 0;
        try {
            EventTransport transport = transport(args[0], Integer.parseInt(args[1].equals("receive") ? args[4] : args[6]));
            readStdin();
            switch (args[1]) {
                case "receive" -> receive(transport, Integer.parseInt(args[2]), Integer.parseInt(args[3]),
                        Integer.parseInt(args[4]), Path.of(args[5]), deadline(args[6]));
                case "send" -> send(transport, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                        Double.parseDouble(args[5]), Integer.parseInt(args[6]), deadline(args[7]));
                default -> throw new IllegalArgumentException("role must be receive or send, was " + args[1]);
            }
        } catch (Exception e) {
            System.out.println("ERROR " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status); // transports may leave non-daemon threads (Netty event loops) behind
    }

    static EventTransport transport(String system, int eventBytes) throws ReflectiveOperationException {
        return switch (system) {
            case "reliable-udp" -> new RudpTransport(Double.parseDouble(System.getProperty("loss.conditioner", "0")));
            case "tcp" -> new TcpTransport(eventBytes);
            case "kcp" -> new KcpTransport();
            default -> throw new IllegalArgumentException("no Java peer for system " + system);
        };
    }

    private static long deadline(String lifetimeSeconds) {
        return System.nanoTime() + (long) (Double.parseDouble(lifetimeSeconds) * 1e9);
    }

    // ------------------------------------------------------------------ events

    /** A new event: sequence number and send time, zero-padded to {@code size} bytes. */
    static byte[] event(long seq, long sentNanos, int size) {
        return ByteBuffer.allocate(size).putLong(seq).putLong(sentNanos).array();
    }

    static long seq(byte[] event) {
        return event.length < 16 ? -1 : ByteBuffer.wrap(event).getLong(0);
    }

    static long sentNanos(byte[] event) {
        return ByteBuffer.wrap(event).getLong(8);
    }

    /** First deliveries of the events 0..n-1 with their latencies; fed from one transport thread. */
    private static final class Record {
        final long[] latency;
        final CountDownLatch complete = new CountDownLatch(1);
        int delivered;
        int duplicates;
        int foreign;

        Record(int events) {
            latency = new long[events];
            Arrays.fill(latency, -1);
        }

        synchronized void deliver(byte[] event, long now) {
            long seq = seq(event);
            if (seq < 0 || seq >= latency.length) {
                foreign++;
            } else if (latency[(int) seq] >= 0) {
                duplicates++;
            } else {
                latency[(int) seq] = now - sentNanos(event);
                if (++delivered == latency.length) {
                    complete.countDown();
                }
            }
        }

        synchronized void write(Path file) throws IOException {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
                for (int i = 0; i < latency.length; i++) {
                    if (latency[i] >= 0) {
                        w.println(i + " " + latency[i]);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ roles

    private static void receive(EventTransport transport, int port, int events, int size, Path recordFile, long deadline) throws Exception {
        warmUp(transport, size);
        Record record = new Record(events);
        try (EventTransport.Receiving rx = transport.listen(port, e -> record.deliver(e, System.nanoTime()))) {
            System.out.println("READY port=" + rx.port());
            boolean stopped = false;
            while (record.complete.getCount() > 0 && System.nanoTime() < deadline) {
                if (record.complete.await(20, TimeUnit.MILLISECONDS)) {
                    break;
                }
                String command = STDIN.poll();
                if (command != null && (command.equals("STOP") || command.equals(END))) {
                    stopped = true;
                    break;
                }
            }
            record.write(recordFile);
            synchronized (record) {
                System.out.println("DONE delivered=" + record.delivered + " duplicates=" + record.duplicates
                        + " foreign=" + record.foreign + " " + rx.stats());
            }
            // The transport stays open until the harness has read the traffic counters: its teardown
            // (a DISCONNECT, a FIN) is not traffic of the stream, and not every system sends one.
            if (!stopped) {
                awaitStop(STOP_WAIT_NANOS);
            }
        }
    }

    /** Waits for {@code STOP} (or the end of stdin) at most {@code nanos}. */
    private static void awaitStop(long nanos) throws InterruptedException {
        long until = System.nanoTime() + nanos;
        for (long left; (left = until - System.nanoTime()) > 0;) {
            String command = STDIN.poll(left, TimeUnit.NANOSECONDS);
            if (command != null && (command.equals("STOP") || command.equals(END))) {
                return;
            }
        }
    }

    private static void send(EventTransport transport, String host, int port, int events, double rateHz, int size, long deadline) throws Exception {
        warmUp(transport, size);
        System.out.println("READY");
        if (!"GO".equals(STDIN.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS))) {
            throw new IllegalStateException("no GO before the deadline");
        }
        try (EventTransport.Sending tx = transport.connect(host, port, CONNECT_TIMEOUT)) {
            System.out.println("CONNECTED");
            long interval = (long) (1e9 / rateHz);
            long start = System.nanoTime();
            int sent = 0;
            int refused = 0;
            for (int i = 0; i < events && System.nanoTime() < deadline; i++) {
                long due = start + i * interval;
                for (long wait; (wait = due - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(wait);
                }
                sent++;
                if (!tx.send(event(i, System.nanoTime(), size))) {
                    refused++;
                }
            }
            System.out.println("SENT " + sent + " refused=" + refused);
            while (System.nanoTime() < deadline) {
                String command = STDIN.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (command == null || command.equals("STOP") || command.equals(END)) {
                    break;
                }
            }
            System.out.println("STATS " + tx.stats());
        }
    }

    /** Runs the transport's receive and send code over a local connection of its own, without pacing. */
    private static void warmUp(EventTransport transport, int size) throws Exception {
        int events = Integer.getInteger("loss.warmup", DEFAULT_WARMUP_EVENTS);
        if (events <= 0) {
            return;
        }
        Record record = new Record(events);
        try (EventTransport.Receiving rx = transport.listen(0, e -> record.deliver(e, System.nanoTime()));
             EventTransport.Sending tx = transport.connect("127.0.0.1", rx.port(), CONNECT_TIMEOUT)) {
            for (int i = 0; i < events; i++) {
                tx.send(event(i, System.nanoTime(), size));
                if (i % 100 == 99) {
                    Thread.sleep(2); // stay within every transport's queues and windows
                }
            }
            if (!record.complete.await(20, TimeUnit.SECONDS)) {
                System.out.println("WARMUP incomplete: " + record.delivered + " of " + events);
            }
        }
    }

    private static void readStdin() {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    STDIN.add(line.trim());
                }
            } catch (IOException e) {
                // stdin gone: same as its end
            }
            STDIN.add(END);
        }, "stdin");
        t.setDaemon(true);
        t.start();
    }
}
