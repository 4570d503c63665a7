package io.reliableudp.bench.soak;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Loopback;
import io.reliableudp.bench.kit.Plot;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExitCodeGenerator;
import picocli.CommandLine.Option;

/**
 * The {@code soak} subcommand: N numbered reliable-ordered messages from one node to another over real
 * loopback sockets, both directions through the link conditioner (loss, duplication, reordering,
 * jitter), checked one by one on arrival: 0 lost, 0 duplicated, 0 out of order. Every
 * {@code --report-every} messages it prints the rate and the heap used after a full GC; the heap after
 * GC at 10% and at 100% of the run must be within {@code --heap-tolerance} of each other (heap flat).
 * Exit status 1 when any check fails.
 */
@Command(name = SoakBench.NAME,
        description = "N reliable-ordered messages over loopback through loss, duplication, reordering and jitter: 0 lost, heap flat")
public final class SoakBench extends BenchCommand implements IExitCodeGenerator {

    /** The subcommand's name. */
    public static final String NAME = "soak";

    @Option(names = "--messages", defaultValue = "10000000", description = "reliable-ordered messages to send")
    private long messages;
    @Option(names = "--loss", defaultValue = "30", description = "loss in %% of the datagrams each way (link conditioner)")
    private double loss;
    @Option(names = "--duplicate", defaultValue = "5", description = "duplicated datagrams in %%, each way")
    private double duplicate;
    @Option(names = "--reorder", defaultValue = "10", description = "reordered datagrams in %%, each way")
    private double reorder;
    @Option(names = "--jitter", defaultValue = "5", description = "jitter in ms (uniform 0..jitter extra delay), each way")
    private double jitter;
    @Option(names = "--latency", defaultValue = "1", description = "fixed one-way delay in ms")
    private double latency;
    @Option(names = "--size", defaultValue = "32", description = "message size in bytes (at least 8: the sequence number)")
    private int size;
    @Option(names = "--report-every", paramLabel = "N", description = "print progress and heap after GC every N messages (default: messages / 20)")
    private Long reportEveryOption;
    private long reportEvery;
    @Option(names = "--window", defaultValue = "4000", description = "most messages sent but not yet received")
    private int window;
    @Option(names = "--seconds", defaultValue = "14400", converter = Seconds.class, description = "the longest the soak may take, in seconds")
    private double limitSeconds;
    @Option(names = "--heap-tolerance", defaultValue = "10", description = "heap after GC at 100%% within this many %% of the one at 10%%")
    private double heapTolerance;
    @Option(names = "--seed", defaultValue = "1", description = "seed of the link conditioners")
    private long seed;
    @Option(names = "--runs", defaultValue = "1", converter = Runs.class, description = "accepted for symmetry; the soak runs once")
    private int runs;

    private Checker checker;
    private boolean passed;

    /**
     * Runs the soak, prints progress, a table and, last, the JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new SoakBench(), args);
    }

    /** 1 when a check failed (the jar's exit status). */
    @Override
    public int getExitCode() {
        return passed ? 0 : 1;
    }

    private LinkConditionerConfig conditioner(long streamSeed) {
        return new LinkConditionerConfig(latency, jitter, loss / 100, 0, 1, 0, duplicate / 100, reorder / 100,
                Math.max(10, 2 * jitter), 0, 1 << 20, streamSeed);
    }

    @Override
    public String call() throws Exception {
        if (size < 8 || messages < 10) {
            throw new IllegalArgumentException("soak: --size must be >= 8 and --messages >= 10");
        }
        reportEvery = reportEveryOption != null ? reportEveryOption : Math.max(1, messages / 20);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("messages", messages);
        params.put("message_bytes", size);
        params.put("loss_percent", loss);
        params.put("duplicate_percent", duplicate);
        params.put("reorder_percent", reorder);
        params.put("jitter_ms", jitter);
        params.put("latency_ms", latency);
        params.put("window", window);
        params.put("report_every", reportEvery);
        params.put("seed", seed);
        params.put("network", "loopback sockets + link conditioner on both nodes");
        params.put("congestion_avoidance", false);
        params.put("max_datagram_budget", MessageConfig.defaults().datagramBudget());
        Report report = new Report(NAME, params);
        Map<String, Object> figures = report.run("reliable-udp", 1);
        double load = LoadAverage.oneMinute();
        System.out.printf(Locale.ROOT, "soak: %,d reliable-ordered messages of %d B over loopback, each way %.0f%% loss, %.0f%% duplicates,"
                        + " %.0f%% reordered, %.0f ms latency + %.0f ms jitter; window %d; %s%n",
                messages, size, loss, duplicate, reorder, latency, jitter, window, LoadAverage.describe(load));

        // the conditioner is not a congested link: congestion avoidance would send one packet per tick at 30% loss;
        // the datagram budget stays the base one: its growth towards a loopback peer (after a size probe, which
        // 30% loss may delay by seconds) would be a one-time step of the conditioner's pooled slots in the heap
        // series, at a time that varies from run to run (growth under loss: GrownBudgetTest)
        MessageConfig message = MessageConfig.defaults().toBuilder().congestionAvoidance(false).maxDatagramBudget(0).build();
        NodeConfig.Builder cfg = Loopback.node().message(message).sendRateHz(1000)
                .timeout(java.time.Duration.ofSeconds(30));
        Checker check = new Checker(size);
        checker = check;
        NodeListener serverListener = (peer, channel, id, payload) -> check.accept(payload);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        List<double[]> heapSeries = new ArrayList<>();
        List<double[]> rateSeries = new ArrayList<>();
        double heapAt10 = Double.NaN;
        double heapAt100;
        long sent = 0;
        long start;
        double elapsed;
        boolean timedOut = false;
        String disconnect = "";
        PeerStats stats;
        NodeStats clientNode;
        try (ReliableUdpNode server = ReliableUdpNode.start(cfg.linkConditioner(conditioner(seed)).build(), serverListener);
             ReliableUdpNode client = ReliableUdpNode.start(cfg.acceptIncoming(false).linkConditioner(conditioner(seed + 1)).build(),
                     (p, c, i, d) -> { })) {
            Peer peer = client.connect(Loopback.address(server.localAddress().getPort()))
                    .get(30, TimeUnit.SECONDS);
            byte[] payload = null;
            start = System.nanoTime();
            long deadline = start + (long) (limitSeconds * 1e9);
            long lastReport = start;
            long lastReportCount = 0;
            long nextReport = reportEvery;
            long tenPercent = Math.max(1, messages / 10);
            while (sent < messages) {
                if (System.nanoTime() > deadline) {
                    timedOut = true;
                    break;
                }
                if (peer.state() == io.reliableudp.transport.PeerState.DISCONNECTED) {
                    disconnect = String.valueOf(peer.disconnectReason());
                    break;
                }
                if (sent - checker.received() >= window) {
                    peer.flush();
                    LockSupport.parkNanos(200_000);
                    continue;
                }
                if (payload == null) {
                    payload = encode(sent, size); // the message layer keeps the array until acknowledged: one per message
                }
                if (!peer.offer(0, payload)) {
                    peer.flush();
                    LockSupport.parkNanos(200_000);
                    continue;
                }
                sent++;
                payload = null;
                if ((sent & 63) == 0) {
                    peer.flush();
                }
                // progress, measured on what arrived: wait for the receiver to reach the mark
                if (checker.received() >= nextReport || (sent == messages && nextReport <= messages)) {
                    long now = System.nanoTime();
                    long got = checker.received();
                    double heap = heapAfterGc(memory);
                    double rate = (got - lastReportCount) / ((now - lastReport) / 1e9);
                    heapSeries.add(new double[] {got, heap / (1 << 20)});
                    rateSeries.add(new double[] {got, rate});
                    if (Double.isNaN(heapAt10) && got >= tenPercent) {
                        heapAt10 = heap;
                    }
                    PeerStats ps = peer.stats();
                    System.out.printf(Locale.ROOT, "  %,13d received  %,9.0f msg/s  heap after GC %7.2f MiB  (%.0f s)"
                                    + "  rtt %.1f ms  resent %,d  duplicated %d  out of order %d%n",
                            got, rate, heap / (1 << 20), (now - start) / 1e9, ps.rttMillis(),
                            ps.channels().get(0).messagesResent(), checker.duplicated(), checker.outOfOrder());
                    lastReport = now;
                    lastReportCount = got;
                    nextReport = (got / reportEvery + 1) * reportEvery;
                }
            }
            peer.flush();
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (checker.received() < sent && System.nanoTime() < waitUntil && peer.state() != io.reliableudp.transport.PeerState.DISCONNECTED) {
                peer.flush();
                LockSupport.parkNanos(1_000_000);
            }
            elapsed = (System.nanoTime() - start) / 1e9;
            heapAt100 = heapAfterGc(memory);
            heapSeries.add(new double[] {checker.received(), heapAt100 / (1 << 20)});
            if (Double.isNaN(heapAt10)) {
                heapAt10 = heapAt100;
            }
            stats = peer.stats();
            clientNode = client.stats();
        }
        long lost = sent - checker.received();
        double growth = 100 * (heapAt100 - heapAt10) / heapAt10;
        boolean heapFlat = Math.abs(growth) <= heapTolerance;
        boolean passed = !timedOut && disconnect.isEmpty() && sent == messages && lost == 0 && checker.duplicated() == 0
                && checker.outOfOrder() == 0 && checker.corrupted() == 0 && heapFlat;
        figures.put("sent", sent);
        figures.put("received", checker.received());
        figures.put("lost", lost);
        figures.put("duplicated", checker.duplicated());
        figures.put("out_of_order", checker.outOfOrder());
        figures.put("corrupted", checker.corrupted());
        figures.put("seconds", elapsed);
        figures.put("msg_per_s", checker.received() / elapsed);
        figures.put("heap_after_gc_10pct_mib", heapAt10 / (1 << 20));
        figures.put("heap_after_gc_100pct_mib", heapAt100 / (1 << 20));
        figures.put("heap_growth_percent", growth);
        figures.put("heap_flat", heapFlat ? 1 : 0);
        figures.put("resent", stats.channels().get(0).messagesResent());
        figures.put("datagrams_sent_client", clientNode.datagramsSent());
        figures.put("load_average", load);
        figures.put("passed", passed ? 1 : 0);
        this.passed = passed;
        if (timedOut) {
            figures.put("error", "stopped at the --seconds limit after " + sent + " messages");
        } else if (!disconnect.isEmpty()) {
            figures.put("error", "the connection ended: " + disconnect);
        }

        new Table("sent", "received", "lost", "duplicated", "out of order", "msg/s", "heap 10% MiB", "heap 100% MiB", "growth %", "passed")
                .row(sent, checker.received(), lost, checker.duplicated(), checker.outOfOrder(), Table.number(checker.received() / elapsed),
                        Table.number(heapAt10 / (1 << 20)), Table.number(heapAt100 / (1 << 20)), Table.number(growth), passed)
                .print(System.out, "soak result (" + (passed ? "passed" : "FAILED") + ")");
        try {
            Plot.write(out().resolve(NAME + ".png"), String.format(Locale.ROOT, "Soak: %,d messages, %.0f%% loss, %.0f%% dup, %.0f%% reorder",
                    messages, loss, duplicate, reorder), "messages received",
                    List.of(new Plot.Panel("heap after GC (MiB)", false, Map.of("heap", heapSeries)),
                            new Plot.Panel("rate (msg/s)", false, Map.of("rate", rateSeries))), 900, 700);
        } catch (IOException | RuntimeException | Error e) { // headless AWT without fonts fails with an Error
            System.out.println("could not draw the plot: " + e);
        }
        return finish(report);
    }

    /**
     * The receiver's check, on the server's I/O thread: every message must carry the next sequence
     * number. A smaller one is a duplicate (or a late one after a gap, counted as such: either way the
     * order broke); a larger one is a gap (something before it lost or late), after which the check
     * resynchronises so one fault is counted once.
     */
    static final class Checker {
        private final int size;
        private final AtomicLong expected = new AtomicLong();
        private final AtomicLong received = new AtomicLong();
        private final AtomicLong duplicated = new AtomicLong();
        private final AtomicLong outOfOrder = new AtomicLong();
        private final AtomicLong corrupted = new AtomicLong();

        Checker(int size) {
            this.size = size;
        }

        void accept(byte[] payload) {
            if (payload.length != size) {
                corrupted.incrementAndGet();
                return;
            }
            long n = getLong(payload);
            long want = expected.get();
            if (n == want) {
                expected.set(want + 1);
                received.incrementAndGet();
            } else if (n < want) {
                duplicated.incrementAndGet();
            } else {
                outOfOrder.incrementAndGet();
                expected.set(n + 1);
                received.incrementAndGet();
            }
        }

        long received() {
            return received.get();
        }

        long duplicated() {
            return duplicated.get();
        }

        long outOfOrder() {
            return outOfOrder.get();
        }

        long corrupted() {
            return corrupted.get();
        }
    }

    /** A message of {@code size} bytes carrying sequence number {@code n} (big-endian, first 8 bytes). */
    static byte[] encode(long n, int size) {
        byte[] b = new byte[size];
        putLong(b, n);
        return b;
    }

    private static double heapAfterGc(MemoryMXBean memory) {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    private static void putLong(byte[] b, long v) {
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    private static long getLong(byte[] b) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[i] & 0xFF);
        }
        return v;
    }
}
