package io.reliableudp.bench.loss;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Java peer of the {@code loss} benchmark (one child process: the sender or the receiver of one system). The
 * C peer ({@code enet_peer.c}) follows the same contract, which is:
 * <pre>
 * receive PORT EVENTS SIZE RECORD_FILE LIFETIME_S WARM_CAP
 * send    HOST PORT EVENTS RATE_HZ SIZE LIFETIME_S SETTLE_S WARM_CAP
 * </pre>
 * An event is SIZE bytes: its sequence number (bytes 0-7) and its send time (bytes 8-15, CLOCK_MONOTONIC
 * nanoseconds: {@code System.nanoTime()} on Linux, the same clock in every process of the machine), big-endian,
 * then zeros. The sender opens its connection at once and sends on it, in this order: the warm-up (Java only,
 * {@code -Dloss.warmup} events back to back in {@value #WARMUP_ROUNDS} rounds; after each round {@code BURST n},
 * and it waits for {@code SETTLE}, which the harness sends once the receiver, told {@code AWAIT n}, got n events
 * and printed {@code WARMED}), then events at RATE_HZ for SETTLE_S seconds (printing {@code SETTLING} as the
 * settle starts: the harness installs the lossy link then), then {@code READY}, and it goes on at the same
 * cadence until {@code GO} on stdin; the first event due after {@code GO} is the first measured one, sequence
 * number F (printed as {@code CONNECTED first=F}), and EVENTS measured events follow, so that the measured
 * events run on the very connection, nodes and code that the warm-up and the settle made hot. It then prints
 * {@code SENT n refused=r}, keeps its connection serving (resends, acks) until {@code STOP} or the end of stdin,
 * prints {@code STATS [stats]} and exits. At most WARM_CAP events precede the measured ones.
 *
 * <p>The receiver prints {@code READY} once bound, learns F from a line {@code FIRST F} on stdin, then prints
 * {@code DONE delivered=N duplicates=D warm=W [stats]} once it got every measured event or was told to stop (a
 * line {@code STOP} or the end of stdin), having written one line {@code SEQ-F LATENCY_NS} per first delivery of
 * a measured event into RECORD_FILE; W counts the events before F that it got (the warm-up and the settle: 0 would
 * mean that the sender warmed up elsewhere). Every event takes the same path in the receiver, so that the first
 * measured one meets no branch that the JIT has not seen. Either peer gives up by itself after LIFETIME_S seconds.
 *
 * <p>With {@code -Dloss.burst=local} (the delay line's runs, where a burst would queue behind the delay) each
 * Java peer instead warms up over a local connection of its own before {@code READY} (both directions of its
 * code), and only the settle runs on the measured connection.
 */
public final class LossPeer {

    /**
     * Events a Java sender sends on its connection before the settle, unless {@code -Dloss.warmup} says
     * otherwise (the harness always passes its {@code --warmup}, whose default this is). 20,000: with 2,000
     * the first ~300 events of a 20 s run still met the JIT compiling the measured paths, for this library
     * and TCP alike (docs/benchmarks.md, "Loss"); the C peer needs none.
     */
    static final int DEFAULT_WARMUP_EVENTS = 20_000;

    private static final LinkedBlockingQueue<String> STDIN = new LinkedBlockingQueue<>();
    private static final String END = "\u0000end";
    /** Rounds of the warm-up on the measured connection; after each the peers wait for their JITs to be quiet. */
    static final int WARMUP_ROUNDS = 4;
    /** The pause after each warm-up event: the receiver wakes for each one, as in the measurement. */
    private static final long WARMUP_GAP_NANOS = 100_000;
    /** The warm-up (-Dloss.warmup events) on the measured connection, or over a local one of each peer's own. */
    private static final boolean LOCAL_BURST = "local".equals(System.getProperty("loss.burst", "connection"));
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
                        Integer.parseInt(args[4]), Path.of(args[5]), deadline(args[6]), Integer.parseInt(args[7]));
                case "send" -> send(transport, args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
                        Double.parseDouble(args[5]), Integer.parseInt(args[6]), deadline(args[7]),
                        Double.parseDouble(args[8]), Long.parseLong(args[9]));
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

    /**
     * First deliveries of the events 0..capacity-1 with their latencies, the warm-up's and the settle's as well
     * as the measured ones (from {@link #first}); fed from one transport thread.
     */
    static final class Record {
        final long[] latency;
        final int events;
        final CountDownLatch complete = new CountDownLatch(1);
        /** The first measured event, unknown (max) until the harness says. */
        long first = Long.MAX_VALUE;
        /** First deliveries, of every event: the measured ones are complete at first + events. */
        long delivered;
        long target = Long.MAX_VALUE;
        int duplicates;
        int foreign;

        Record(int events, long warmCap) {
            this.events = events;
            latency = new long[Math.toIntExact(events + warmCap)];
            Arrays.fill(latency, -1);
        }

        synchronized void deliver(byte[] event, long now) {
            long seq = seq(event);
            if (seq < 0 || seq >= latency.length) {
                foreign++;
            } else if (latency[(int) seq] >= 0) {
                if (seq >= first) {
                    duplicates++;
                }
            } else {
                latency[(int) seq] = now - sentNanos(event);
                if (++delivered >= target) {
                    complete.countDown();
                }
            }
        }

        /** The harness told the first measured event. */
        synchronized void first(long seq) {
            if (seq < 0 || seq + events > latency.length) {
                throw new IllegalArgumentException("first measured event " + seq + " outside the record's " + latency.length);
            }
            first = seq;
            target = seq + events;
            if (delivered >= target) {
                complete.countDown();
            }
        }

        /** First deliveries of all events so far. */
        synchronized long delivered() {
            return delivered;
        }

        /** Measured events delivered. */
        synchronized int measured() {
            int n = 0;
            for (long i = first; i < first + events && i < latency.length; i++) {
                n += latency[(int) i] >= 0 ? 1 : 0;
            }
            return n;
        }

        /** Events before the first measured one that arrived (all of them, when the first is not known). */
        synchronized int warm() {
            int n = 0;
            for (int i = 0; i < latency.length && i < first; i++) {
                n += latency[i] >= 0 ? 1 : 0;
            }
            return n;
        }

        synchronized void write(Path file) throws IOException {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8))) {
                for (long i = first; i < first + events && i < latency.length; i++) {
                    if (latency[(int) i] >= 0) {
                        w.println((i - first) + " " + latency[(int) i]);
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ roles

    private static void receive(EventTransport transport, int port, int events, int size, Path recordFile, long deadline,
            int warmCap) throws Exception {
        if (LOCAL_BURST) {
            warmUp(transport, size);
        }
        Record record = new Record(events, warmCap);
        try (EventTransport.Receiving rx = transport.listen(port, e -> record.deliver(e, System.nanoTime()))) {
            System.out.println("READY port=" + rx.port());
            boolean stopped = false;
            long awaited = -1;
            String statsAtFirst = "";
            while (record.complete.getCount() > 0 && System.nanoTime() < deadline) {
                if (record.complete.await(20, TimeUnit.MILLISECONDS)) {
                    break;
                }
                if (awaited >= 0 && record.delivered() >= awaited) {
                    awaitQuietJit(deadline);
                    System.out.println("WARMED");
                    awaited = -1;
                }
                String command = STDIN.poll();
                if (command != null && command.startsWith("AWAIT ")) {
                    awaited = Long.parseLong(command.substring(6).trim());
                } else if (command != null && command.startsWith("FIRST ")) {
                    statsAtFirst = rx.stats();
                    record.first(Long.parseLong(command.substring(6).trim()));
                } else if (command != null && (command.equals("STOP") || command.equals(END))) {
                    stopped = true;
                    break;
                }
            }
            record.write(recordFile);
            synchronized (record) {
                System.out.println("DONE delivered=" + record.measured() + " duplicates=" + record.duplicates
                        + " warm=" + record.warm() + " foreign=" + record.foreign + " " + since(rx.stats(), statsAtFirst));
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

    private static void send(EventTransport transport, String host, int port, int events, double rateHz, int size, long deadline,
            double settleSeconds, long warmCap) throws Exception {
        if (LOCAL_BURST) {
            warmUp(transport, size);
        }
        try (EventTransport.Sending tx = transport.connect(host, port, CONNECT_TIMEOUT)) {
            long seq = 0;
            int warmup = LOCAL_BURST ? 0 : Integer.getInteger("loss.warmup", DEFAULT_WARMUP_EVENTS);
            for (int round = 1; round <= WARMUP_ROUNDS && warmup > 0; round++) {
                // one event per wake-up, as measured, but back to back; the next round starts once both JITs
                // are quiet, so that C2's queue is short and its thresholds low when the counters climb again
                for (long end = (long) warmup * round / WARMUP_ROUNDS; seq < end; ) {
                    tx.send(event(seq++, System.nanoTime(), size));
                    LockSupport.parkNanos(WARMUP_GAP_NANOS);
                }
                awaitQuietJit(deadline);
                System.out.println("BURST " + seq);
                String command = STDIN.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (!"SETTLE".equals(command)) {
                    throw new IllegalStateException("no SETTLE after the warm-up round, got " + command);
                }
            }
            System.out.println("SETTLING");
            // One loop from the settle into the measurement: the same cadence, the same calls, nothing switched.
            long interval = (long) (1e9 / rateHz);
            long settleTicks = (long) Math.ceil(settleSeconds * rateHz);
            long start = System.nanoTime();
            long first = -1;
            boolean ready = false;
            String statsAtGo = "";
            int sent = 0;
            int refused = 0;
            for (long k = 0; System.nanoTime() < deadline; k++) {
                long due = start + k * interval;
                for (long wait; (wait = due - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(wait);
                }
                if (first >= 0) {
                    if (sent == events) {
                        break;
                    }
                } else if (k >= settleTicks) {
                    if (!ready) {
                        System.out.println("READY");
                        ready = true;
                    } else if ("GO".equals(STDIN.poll())) {
                        first = seq;
                        statsAtGo = tx.stats();
                    }
                }
                if (first < 0 && seq >= warmCap) {
                    throw new IllegalStateException("no GO within " + warmCap + " events");
                }
                boolean accepted = tx.send(event(seq++, System.nanoTime(), size));
                if (first >= 0) {
                    if (!accepted) {
                        refused++;
                    }
                    if (sent++ == 0) {
                        System.out.println("CONNECTED first=" + first);
                    }
                }
            }
            System.out.println("SENT " + sent + " refused=" + refused);
            while (System.nanoTime() < deadline) {
                String command = STDIN.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (command == null || command.equals("STOP") || command.equals(END)) {
                    break;
                }
            }
            System.out.println("STATS " + since(tx.stats(), statsAtGo));
        }
    }

    private static final Pattern COUNTER = Pattern.compile("(bytes|datagrams)=(\\d+)");

    /**
     * A transport's counters ({@code bytes=N datagrams=M ...}) less those it had at {@code base}: the warm-up
     * and the settle are not traffic of the measured events (the namespace's counters start at GO likewise).
     */
    static String since(String stats, String base) {
        Matcher before = COUNTER.matcher(base);
        Map<String, Long> at = new HashMap<>();
        while (before.find()) {
            at.put(before.group(1), Long.parseLong(before.group(2)));
        }
        return COUNTER.matcher(stats).replaceAll(m -> m.group(1) + "=" + (Long.parseLong(m.group(2)) - at.getOrDefault(m.group(1), 0L)));
    }

    /**
     * Returns once this JVM's JIT has compiled nothing for a second (or after 30 s): a long C2 queue raises the
     * invocation counts a method needs to be queued for C2 at all, so a warm-up that outruns the compiler
     * leaves the measured path in C1's profiled code.
     */
    static void awaitQuietJit(long deadline) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        long until = Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            Thread.sleep(1000);
            return;
        }
        long last = jit.getTotalCompilationTime();
        for (int quiet = 0; quiet < 5 && System.nanoTime() < until; ) {
            Thread.sleep(200);
            long now = jit.getTotalCompilationTime();
            quiet = now == last ? quiet + 1 : 0;
            last = now;
        }
    }

    /** Runs the transport's receive and send code over a local connection of its own, without pacing. */
    private static void warmUp(EventTransport transport, int size) throws Exception {
        int events = Integer.getInteger("loss.warmup", DEFAULT_WARMUP_EVENTS);
        if (events <= 0) {
            return;
        }
        Record record = new Record(events, 0);
        record.first(0);
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
