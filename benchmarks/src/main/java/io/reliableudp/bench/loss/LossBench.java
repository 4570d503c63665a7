package io.reliableudp.bench.loss;

import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.ChildProcess;
import io.reliableudp.bench.kit.DelayRelay;
import io.reliableudp.bench.kit.JavaCommand;
import io.reliableudp.bench.kit.Latency;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.NetNamespace;
import io.reliableudp.bench.kit.Plot;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import io.reliableudp.bench.systems.ChildPeers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The {@code loss} subcommand: delivery latency (avg, p50, p90, p99, p99.9, max) and bytes on the wire per
 * delivered event of a stream of small timestamped events (60 Hz, 64 bytes by default) through a loopback that
 * drops N% of the packets, for each loss rate and each system in the same run, sender and receiver in separate
 * processes. Systems: this library with its defaults ({@link RudpTransport}), TCP with {@code TCP_NODELAY}
 * ({@link TcpTransport}), KCP in fast mode ({@link KcpTransport}, a child JVM with Netty 4.1.68) and ENet
 * ({@link EnetPeer}, a C peer) when libenet-dev is installed.
 *
 * <p>The link is a network namespace with nftables ({@link NetNamespace}); bytes on the wire are all IP bytes
 * of both directions counted there, divided by the events delivered. Without root it says so and measures this
 * library alone over its own link conditioner (labelled {@value #CONDITIONER_SYSTEM}).
 *
 * <p>Bounded: every wait has a deadline; a peer that does not answer in time is killed and its run reported as
 * an error; events not delivered within {@code --grace} seconds after the last one was sent count as lost.
 */
@Command(name = LossBench.NAME, description = "delivery latency and bytes per event through N%% packet loss, beside TCP, KCP and ENet")
public final class LossBench extends BenchCommand {

    static final String NAME = "loss";
    static final String CONDITIONER_SYSTEM = "reliable-udp/link-conditioner";
    static final String BASELINE_SYSTEM = "reliable-udp-baseline";
    /** Every system, as {@code --systems} takes them. */
    static final String SYSTEM_NAMES = "reliable-udp,tcp,kcp,enet";
    static final List<String> SYSTEMS = List.of(SYSTEM_NAMES.split(","));
    /**
     * The default {@code --settle-seconds}: with the burst warm-up on the measured connection, the one-event path
     * is compiled by C2 and its last deoptimizations are behind it after this long at 60 Hz
     * (docs/benchmarks.md, "Clean link at 60 Hz").
     */
    static final int DEFAULT_SETTLE_SECONDS = 20;
    private static final long SECOND = 1_000_000_000L;
    private static final Pattern DONE = Pattern.compile("DONE delivered=(\\d+) duplicates=(\\d+)");
    private static final Pattern WARM = Pattern.compile(" warm=(\\d+)");
    private static final Pattern FIRST = Pattern.compile("first=(\\d+)");
    /** How long past the settle a sender keeps its cadence waiting for GO (bounds the events before the measured ones). */
    private static final double GO_WAIT_SECONDS = 120;
    private static final Pattern SENT = Pattern.compile("SENT (\\d+) refused=(\\d+)");
    private static final Pattern BYTES = Pattern.compile("bytes=(\\d+)");

    @Option(names = "--loss", split = ",", defaultValue = "0,1,5,10,20", description = "loss rates in percent, each direction")
    private List<Integer> lossRates;
    @Option(names = "--seconds", defaultValue = "30", converter = Seconds.class, description = SECONDS)
    private double seconds;
    @Option(names = "--runs", defaultValue = "3", converter = Runs.class, description = RUNS)
    private int runs;
    @Option(names = "--rate", defaultValue = "60", description = "events per second")
    private double rate;
    @Option(names = "--size", defaultValue = "64", description = "bytes per event (>= 16: sequence number and send time)")
    private int size;
    @Option(names = "--grace", defaultValue = "20", description = "seconds after the last send within which an event must arrive")
    private double grace;
    @Option(names = "--warmup", defaultValue = "" + LossPeer.DEFAULT_WARMUP_EVENTS,
            description = "events each Java sender sends in bursts over the measured connection before the settle")
    private int warmup;
    @Option(names = "--settle-seconds", defaultValue = "" + DEFAULT_SETTLE_SECONDS,
            description = "seconds every sender sends at --rate on the measured connection, through the loss, before recording")
    private double settleSeconds;
    @Option(names = "--peer-jvm-option", paramLabel = "OPTION",
            description = "an extra option for every Java peer's JVM (repeatable), e.g. -XX:+PrintCompilation: the logs show the JIT's work")
    private List<String> peerJvmOptions = List.of();
    @Option(names = "--systems", split = ",", paramLabel = "SYSTEM", defaultValue = SYSTEM_NAMES, description = "systems to measure: " + SYSTEM_NAMES)
    private List<String> requestedSystems;
    @Option(names = "--delay-ms", split = ",", defaultValue = "0",
            description = "one-way delays in milliseconds through a UDP delay line (0: the direct loopback)")
    private List<Double> delays;
    @Option(names = "--jitter-percent", defaultValue = "10", description = "jitter of the delay line, percent of the delay (uniform in +-that)")
    private double jitterPercent;
    @Option(names = "--baseline-jar", description = "a benchmarks jar (say of the main branch) whose reliable-udp runs beside this one's as "
            + BASELINE_SYSTEM + " (an A/B in the same run)")
    private Path baselineJar;
    @Mixin
    private NetNamespace.NetworkOption network = new NetNamespace.NetworkOption();
    @Mixin
    private ChildPeers.KcpJarOption kcp = new ChildPeers.KcpJarOption();
    private int events;
    private Path kcpJar;
    private NetNamespace namespace;
    /** The one-way delay of the measurement under way (0: direct). */
    private double delay;
    private Path enetBinary;
    private final Map<String, String> description = new LinkedHashMap<>();

    /**
     * Runs the benchmark and prints its tables and, last, its JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new LossBench(), args);
    }

    @Override
    public String call() throws Exception {
        List<String> requested = systems(requestedSystems, SYSTEMS);
        String network = this.network.value();
        kcpJar = kcp.kcpJar();
        events = (int) Math.round(seconds * rate);
        for (int l : lossRates) {
            if (l < 0 || l > 100) {
                throw new IllegalArgumentException("loss: --loss values must be 0..100, was " + l);
            }
        }
        for (double d : delays) {
            if (d < 0 || d > 10_000) {
                throw new IllegalArgumentException("loss: --delay-ms values must be 0..10000, was " + d);
            }
        }
        if (jitterPercent < 0 || jitterPercent > 100) {
            throw new IllegalArgumentException("loss: --jitter-percent must be 0..100");
        }
        if (baselineJar != null && !Files.isReadable(baselineJar)) {
            throw new IllegalArgumentException("loss: --baseline-jar " + baselineJar + " is not readable");
        }
        if (!(settleSeconds >= 0) || settleSeconds > 3600) {
            throw new IllegalArgumentException("loss: --settle-seconds must be 0..3600, was " + settleSeconds);
        }
        if (size < 16 || rate <= 0 || events < 1) {
            throw new IllegalArgumentException("loss: need --size >= 16, --rate > 0 and at least one event");
        }
        Path out = out();
        Files.createDirectories(out.resolve("logs"));
        Optional<String> noNamespace = NetNamespace.unavailable();
        boolean useNamespace = NetNamespace.useNamespace(NAME, network);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("loss_percent", lossRates);
        params.put("seconds", seconds);
        params.put("rate_hz", rate);
        params.put("events", events);
        params.put("event_bytes", size);
        params.put("runs", runs);
        params.put("grace_seconds", grace);
        params.put("warmup_events", warmup);
        params.put("settle_seconds", settleSeconds);
        params.put("network", useNamespace ? "netns+nftables" : "link-conditioner");
        boolean delayed = delays.stream().anyMatch(d -> d > 0);
        if (delayed && !useNamespace) {
            throw new IllegalArgumentException("loss: --delay-ms needs a network namespace (root, ip, nft)");
        }
        params.put("delay_ms", delays);
        params.put("jitter_percent", jitterPercent);
        Report report = new Report(NAME, params);

        List<String> systems = new ArrayList<>();
        if (useNamespace) {
            if (baselineJar != null) {
                requested = new ArrayList<>(requested);
                requested.add(requested.indexOf("reliable-udp") + 1, BASELINE_SYSTEM);
            }
            for (String s : requested) {
                Optional<String> why = s.equals("tcp") && delays.stream().allMatch(d -> d > 0)
                        ? Optional.of(TCP_NOT_DELAYED) : unavailable(s);
                if (why.isPresent()) {
                    System.out.println("skipping " + s + ": " + why.get());
                    report.skip(s, why.get());
                } else {
                    systems.add(s);
                }
            }
        } else {
            System.out.println("loss: " + (network.equals("auto") ? noNamespace.orElse("") + "; " : "")
                    + "no network namespace: measuring only reliable-udp over its own link conditioner "
                    + "(both nodes drop N% of their outgoing datagrams), labelled " + CONDITIONER_SYSTEM
                    + "; bytes = the nodes' datagram bytes + 28 per datagram (IPv4 + UDP headers)");
            systems.add(CONDITIONER_SYSTEM);
            for (String s : requested) {
                if (!s.equals("reliable-udp")) {
                    report.skip(s, noNamespace.map(why -> "needs a network namespace: " + why)
                            .orElse("not run over the link conditioner (--network conditioner)"));
                }
            }
        }
        params.put("systems", systems);
        describeSystems();
        System.out.printf(Locale.ROOT, "loss benchmark: %d events of %d B at %.0f Hz (%.0f s), loss %s %%, %d run(s), systems %s, out %s%n",
                events, size, rate, seconds, lossRates, runs, systems, out);
        systems.forEach(s -> System.out.println("  " + s + ": " + description.getOrDefault(s, description.get("reliable-udp"))));

        try {
            if (useNamespace) {
                namespace = NetNamespace.create();
                System.out.println("network namespace " + namespace.name() + ": nftables drops N% at input, counts all IP bytes at output");
            }
            for (double d : delays) {
                delay = d;
                for (int run = 1; run <= runs; run++) {
                    for (int loss : lossRates) {
                        for (String system : systems) {
                            if (d > 0 && system.equals("tcp")) {
                                continue; // see TCP_NOT_DELAYED
                            }
                            Map<String, Object> f = measure(system, loss, run);
                            Map<String, Object> figures = report.run(system, run);
                            f.forEach((k, v) -> figures.put(cell(d, loss) + k, v));
                            System.out.println(oneLine(system, loss, run, f));
                        }
                    }
                }
            }
            if (delayed && systems.contains("tcp")) {
                System.out.println("tcp: " + TCP_NOT_DELAYED);
            }
        } finally {
            if (namespace != null) {
                namespace.close();
            }
        }
        printTables(report, systems);
        Path png = out.resolve(NAME + ".png");
        try {
            plot(report, systems, png);
        } catch (IOException | RuntimeException | Error e) { // headless AWT without fonts fails with an Error
            System.out.println("could not draw " + png + ": " + e + " (install fontconfig and a font)");
        }
        return finish(report);
    }

    /**
     * Why TCP is not run at a delay: a user-space relay terminates TCP, so TCP's retransmissions would repair
     * losses over the relay's 50 us legs and never see the delay; delaying TCP needs the delay in the kernel's
     * IP path (netem or fq with departure times), which this machine's kernel lacks.
     */
    static final String TCP_NOT_DELAYED = "not run at --delay-ms > 0: a user-space delay line terminates TCP, whose "
            + "repairs would then cross only the relay's loopback legs";

    /** The report's key prefix of a cell: {@code lossL/} on the direct path, {@code delayDms/lossL/} through the relay. */
    static String cell(double delayMillis, int loss) {
        return (delayMillis > 0 ? "delay" + millis(delayMillis) + "ms/" : "") + "loss" + loss + "/";
    }

    /** A delay as the keys and tables write it: {@code 50}, {@code 0.5}. */
    static String millis(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    private Optional<String> unavailable(String system) {
        return switch (system) {
            case "kcp" -> ChildPeers.kcpUnavailable(kcpJar);
            case "enet" -> EnetPeer.unavailable();
            default -> Optional.empty();
        };
    }

    private void describeSystems() {
        description.put("reliable-udp", "this library, defaults: NodeConfig.builder() with only the port, channel 0 "
                + "(reliable-ordered), Peer.send per event, no flush");
        description.put("tcp", "TCP, TCP_NODELAY on both ends, kernel defaults otherwise");
        description.put("kcp", "KCP (kcp-netty 1.5.2, Netty 4.1.68, child JVM): fast mode nodelay 1, interval 10, "
                + "resend 2, nc 1; other settings kcp-netty's defaults");
        description.put("enet", "ENet (C, system libenet): one reliable channel, enet_host_flush after each send");
        description.put(BASELINE_SYSTEM, "reliable-udp as in " + baselineJar + ", the same settings");
    }

    // ----------------------------------------------------------------------------- one measurement

    private List<String> peerCommand(String system, int loss, List<String> roleArgs) throws IOException, InterruptedException {
        List<String> command;
        if (system.equals("enet")) {
            if (enetBinary == null) {
                enetBinary = EnetPeer.build(JavaCommand.benchmarksTarget().resolve("native"));
            }
            command = new ArrayList<>(List.of(enetBinary.toString()));
            command.addAll(roleArgs);
        } else {
            List<String> classPath = new ArrayList<>(JavaCommand.harnessClassPath());
            List<String> jvm = new ArrayList<>(List.of("-Dloss.warmup=" + warmup));
            jvm.addAll(peerJvmOptions);
            if (delay > 0) {
                jvm.add("-Dloss.burst=local"); // a burst would queue behind the delay line's round trip
            }
            String peerSystem = system;
            if (system.equals("kcp")) {
                classPath.add(kcpJar.toString());
                if (JavaCommand.currentMajor() >= 23) {
                    jvm.add("--sun-misc-unsafe-memory-access=allow"); // Netty 4.1 uses sun.misc.Unsafe; no warnings in the log
                }
            } else if (system.equals(BASELINE_SYSTEM)) {
                classPath = new ArrayList<>(List.of(baselineJar.toAbsolutePath().toString()));
                peerSystem = "reliable-udp";
            } else if (system.equals(CONDITIONER_SYSTEM)) {
                peerSystem = "reliable-udp";
                jvm.add("-Dloss.conditioner=" + loss / 100.0);
            }
            List<String> args = new ArrayList<>(List.of(peerSystem));
            args.addAll(roleArgs);
            command = JavaCommand.command(JavaCommand.currentJava(), classPath, jvm, LossPeer.class.getName(), args);
        }
        return namespace == null ? command : namespace.exec(command);
    }

    private Map<String, Object> measure(String system, int loss, int run) throws Exception {
        Map<String, Object> f = new LinkedHashMap<>();
        String tag = system.replace('/', '-') + (delay > 0 ? "-delay" + millis(delay) + "ms" : "") + "-loss" + loss + "-run" + run;
        Path record = out().resolve("records").resolve(tag + ".txt");
        Files.createDirectories(record.getParent());
        Files.deleteIfExists(record);
        double lifetime = seconds + settleSeconds + GO_WAIT_SECONDS + grace + 180;
        String warmCap = String.valueOf(warmup + (long) Math.ceil((settleSeconds + GO_WAIT_SECONDS) * rate));
        String life = String.format(Locale.ROOT, "%.0f", lifetime);
        if (namespace != null) {
            namespace.clear();
        }
        try (ChildProcess rx = ChildProcess.start(system + " receiver",
                peerCommand(system, loss, List.of("receive", "0", String.valueOf(events), String.valueOf(size), record.toString(), life, warmCap)),
                out().resolve("logs").resolve(tag + "-receiver.log"))) {
            String ready = rx.awaitLine("READY", System.nanoTime() + 120 * SECOND);
            if (ready == null) {
                return error(f, "receiver not ready within 120 s (see " + rx.log() + ")");
            }
            int port = Integer.parseInt(ready.replaceAll(".*port=(\\d+).*", "$1"));
            try (ChildProcess relay = delay > 0 ? startRelay(port, loss, run, tag) : null;
                 ChildProcess tx = ChildProcess.start(system + " sender",
                    peerCommand(system, loss, List.of("send", "127.0.0.1", String.valueOf(relay == null ? port : relayPort), String.valueOf(events),
                            String.valueOf(rate), String.valueOf(size), life, String.valueOf(settleSeconds), warmCap)),
                    out().resolve("logs").resolve(tag + "-sender.log"))) {
                // The sender connects, warms up in bursts, then settles at the cadence through the loss (installed
                // as the settle starts) and says READY; GO zeroes the counters and starts the measured events.
                String phase = awaitSettling(tx, rx, System.nanoTime() + 600 * SECOND);
                if (phase == null) {
                    return error(f, "sender did not connect and warm up within 600 s (see " + tx.log() + ")");
                }
                if (namespace != null) {
                    namespace.install(loss, port, relay == null ? 0 : relayPort);
                }
                if (!phase.startsWith("READY")
                        && tx.awaitLine("READY", System.nanoTime() + (long) ((settleSeconds + 60) * SECOND)) == null) {
                    return error(f, "sender did not settle in time (see " + tx.log() + ")");
                }
                double load = LoadAverage.oneMinute();
                System.out.printf(Locale.ROOT, "[run %d/%d] %sloss %d%% %s: %s%n", run, runs, delayTag(), loss, system, LoadAverage.describe(load));
                f.put("load1", load);
                if (namespace != null) {
                    namespace.install(loss, port, relay == null ? 0 : relayPort); // counters from zero
                }
                tx.send("GO");
                String connected = tx.awaitLine("CONNECTED", System.nanoTime() + 60 * SECOND);
                if (connected == null) {
                    return error(f, "sender did not start measuring within 60 s (see " + tx.log() + ")");
                }
                Matcher first = FIRST.matcher(connected);
                if (first.find()) {
                    rx.send("FIRST " + first.group(1));
                }
                String sent = tx.awaitLine("SENT", System.nanoTime() + (long) ((seconds * 2 + 30) * SECOND));
                if (sent == null) {
                    return error(f, "sender did not finish its stream in time: killed (see " + tx.log() + ")");
                }
                Matcher s = SENT.matcher(sent);
                if (s.find()) {
                    f.put("refused", Long.parseLong(s.group(2)));
                }
                String done = rx.awaitLine("DONE", System.nanoTime() + (long) (grace * SECOND));
                if (done == null) {
                    rx.send("STOP");
                    done = rx.awaitLine("DONE", System.nanoTime() + 10 * SECOND);
                }
                if (done == null) {
                    return error(f, "receiver hung: no result 10 s after STOP, killed (see " + rx.log() + ")");
                }
                NetNamespace.Counters counters = namespace == null ? null : namespace.counters();
                if (relay != null) {
                    relay.send("STOP");
                }
                tx.send("STOP");
                rx.send("STOP"); // a receiver keeps its connection until the counters are read
                String stats = tx.awaitLine("STATS", System.nanoTime() + 10 * SECOND);
                if (!tx.waitFor(System.nanoTime() + 10 * SECOND)) {
                    tx.kill();
                    f.put("note", "sender did not exit within 10 s after STOP: killed");
                }
                if (!rx.waitFor(System.nanoTime() + 10 * SECOND)) {
                    rx.kill();
                    f.put("note", "receiver did not exit within 10 s: killed");
                }
                Matcher d = DONE.matcher(done);
                if (!d.find()) {
                    return error(f, "unreadable receiver result: " + done);
                }
                long delivered = Long.parseLong(d.group(1));
                f.put("expected", events);
                f.put("delivered", delivered);
                f.put("lost", events - delivered);
                f.put("duplicates", Long.parseLong(d.group(2)));
                Matcher w = WARM.matcher(done);
                if (w.find()) {
                    f.put("warm_events", Long.parseLong(w.group(1)));
                }
                Latency latency = readRecord(record);
                f.putAll(latency.figuresMillis());
                long wire;
                if (counters != null) {
                    wire = counters.wireBytes();
                    f.put("wire_packets", counters.wirePackets());
                    f.put("bytes_to_receiver", counters.toReceiverBytes());
                    f.put("bytes_from_receiver", counters.fromReceiverBytes());
                    f.put("packets_to_receiver", counters.toReceiverPackets());
                    f.put("packets_from_receiver", counters.fromReceiverPackets());
                } else {
                    wire = bytes(done) + (stats == null ? 0 : bytes(stats));
                }
                f.put("wire_bytes", wire);
                f.put("bytes_per_event", delivered == 0 ? Double.NaN : (double) wire / delivered);
                return f;
            }
        }
    }

    /**
     * The sender's first {@code SETTLING} or {@code READY} line (a peer without a settle says only READY); after
     * its burst ({@code BURST n}) the settle starts only once the receiver has all n events.
     */
    private static String awaitSettling(ChildProcess tx, ChildProcess rx, long deadline) throws InterruptedException {
        for (String line; (line = tx.awaitLine("", deadline)) != null; ) {
            if (line.startsWith("BURST ")) {
                rx.send("AWAIT " + line.substring(6).trim());
                if (rx.awaitLine("WARMED", deadline) == null) {
                    return null;
                }
                tx.send("SETTLE");
            } else if (line.startsWith("SETTLING") || line.startsWith("READY")) {
                return line;
            }
        }
        return null;
    }

    /** The port of the relay started last. */
    private int relayPort;

    /** Starts the delay line in the namespace towards the receiver's {@code port}; drops {@code loss}% each way. */
    private ChildProcess startRelay(int port, int loss, int run, String tag) throws IOException, InterruptedException {
        // niced ahead of the peers: the line's timing should not depend on the machine's other load
        List<String> relay = new ArrayList<>(List.of("nice", "-n", "-10"));
        relay.addAll(JavaCommand.command(JavaCommand.currentJava(), JavaCommand.harnessClassPath(),
                List.of("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), DelayRelay.class.getName(),
                List.of(String.valueOf(port), String.valueOf(delay), String.valueOf(jitterPercent), String.valueOf(loss),
                        String.valueOf(31L * run + loss))));
        List<String> command = namespace.exec(relay);
        ChildProcess line = ChildProcess.start("delay relay", command, out().resolve("logs").resolve(tag + "-relay.log"));
        String ready = line.awaitLine("READY", System.nanoTime() + 60 * SECOND);
        if (ready == null) {
            line.close();
            throw new IOException("delay relay not ready within 60 s (see " + line.log() + ")");
        }
        relayPort = Integer.parseInt(ready.replaceAll(".*port=(\\d+).*", "$1"));
        return line;
    }

    private static long bytes(String line) {
        Matcher m = BYTES.matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static Map<String, Object> error(Map<String, Object> f, String message) {
        f.put("error", message);
        return f;
    }

    private static Latency readRecord(Path record) throws IOException {
        Latency latency = new Latency();
        if (Files.exists(record)) {
            for (String line : Files.readAllLines(record)) {
                int sp = line.indexOf(' ');
                if (sp > 0) {
                    latency.record(Long.parseLong(line.substring(sp + 1).trim()));
                }
            }
        }
        return latency;
    }

    // ----------------------------------------------------------------------------- output

    private String oneLine(String system, int loss, int run, Map<String, Object> f) {
        if (f.containsKey("error")) {
            return String.format(Locale.ROOT, "[run %d/%d] %sloss %d%% %s: ERROR %s", run, runs, delayTag(), loss, system, f.get("error"));
        }
        return String.format(Locale.ROOT, "[run %d/%d] %sloss %d%% %-14s delivered %s/%s  p50 %s  p99 %s  max %s ms  %s B/event",
                run, runs, delayTag(), loss, system, f.get("delivered"), f.get("expected"), num(f.get("p50_ms")), num(f.get("p99_ms")),
                num(f.get("max_ms")), num(f.get("bytes_per_event")));
    }

    private String delayTag() {
        return delay > 0 ? "delay " + millis(delay) + " ms " : "";
    }

    private static String num(Object v) {
        return v instanceof Number n ? Table.number(n.doubleValue()) : "-";
    }

    private void printTables(Report report, List<String> systems) {
        for (double d : delays) {
            printTable(report, systems, d);
        }
        for (String system : systems) {
            for (int r = 1; r <= runs; r++) {
                Map<String, Object> f = report.run(system, r);
                f.forEach((k, v) -> {
                    if (k.endsWith("/error") || k.endsWith("/note")) {
                        System.out.println("run " + f.get("run") + " " + system + " " + k + ": " + v);
                    }
                });
            }
        }
    }

    private void printTable(Report report, List<String> systems, double d) {
        Table t = new Table("loss %", "system", "delivered", "avg ms", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms",
                "B/event", "runs: p99 / max ms", "load");
        for (int loss : lossRates) {
            for (String system : systems) {
                if (d > 0 && system.equals("tcp")) {
                    continue;
                }
                String k = cell(d, loss);
                StringBuilder perRun = new StringBuilder();
                StringBuilder loads = new StringBuilder();
                for (int r = 1; r <= runs; r++) {
                    Map<String, Object> f = report.run(system, r);
                    perRun.append(perRun.isEmpty() ? "" : ", ").append(f.containsKey(k + "error") ? "error"
                            : num(f.get(k + "p99_ms")) + " / " + num(f.get(k + "max_ms")));
                    loads.append(loads.isEmpty() ? "" : ", ").append(num(f.get(k + "load1")));
                }
                double delivered = report.median(system, k + "delivered");
                t.row(String.valueOf(loss), system, Double.isNaN(delivered) ? "-" : String.format(Locale.ROOT, "%.0f/%d", delivered, events),
                        report.median(system, k + "avg_ms"), report.median(system, k + "p50_ms"), report.median(system, k + "p90_ms"),
                        report.median(system, k + "p99_ms"), report.median(system, k + "p99_9_ms"), report.median(system, k + "max_ms"),
                        report.median(system, k + "bytes_per_event"), perRun.toString(), loads.toString());
            }
        }
        t.print(System.out, String.format(Locale.ROOT, "%sdelivery latency and bytes on the wire per delivered event, median of %d run(s)"
                + " (%d events of %d B at %.0f Hz; load = 1-minute load average before each run)",
                d > 0 ? String.format(Locale.ROOT, "%s ms one way (+-%s %% jitter): ", millis(d), millis(jitterPercent)) : "",
                runs, events, size, rate));
    }

    private void plot(Report report, List<String> systems, Path png) throws IOException {
        List<Plot.Panel> panels = new ArrayList<>();
        for (String[] figure : new String[][] {{"p50_ms", "p50 latency (ms)"}, {"p99_ms", "p99 latency (ms)"}, {"max_ms", "max latency (ms)"}}) {
            Map<String, List<double[]>> series = new LinkedHashMap<>();
            for (double d : delays) {
                for (String system : systems) {
                    if (d > 0 && system.equals("tcp")) {
                        continue;
                    }
                    List<double[]> points = new ArrayList<>();
                    for (int loss : lossRates) {
                        points.add(new double[] {loss, report.median(system, cell(d, loss) + figure[0])});
                    }
                    series.put(system + (d > 0 ? " " + millis(d) + " ms" : ""), points);
                }
            }
            panels.add(new Plot.Panel(figure[1], true, series));
        }
        Plot.write(png, String.format(Locale.ROOT, "Delivery latency vs loss: %d events of %d B at %.0f Hz, median of %d run(s)",
                events, size, rate, runs), "packet loss (% each direction)", panels, 900, 1000);
    }
}
