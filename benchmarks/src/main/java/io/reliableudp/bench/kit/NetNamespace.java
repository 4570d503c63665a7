package io.reliableudp.bench.kit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * The lossy loopback of the {@code loss} and {@code outage} benchmarks (the benchmarks' one network-namespace
 * helper; the core's tests have theirs in their test sources): a network namespace of its own ({@code rudp-loss-PID}, so
 * parallel runs never share one) with {@code lo} up and one nftables table: the input hook drops N% of all packets
 * at random ({@code numgen random mod 100 < N drop}: each packet crosses input once, so each direction loses N%),
 * the output hook counts every IP packet's bytes before the drop (bytes on the wire, both directions), and apart
 * the bytes to and from the receiver's port. With {@code --delay-ms} a {@link DelayRelay} in the namespace delays
 * and drops instead ({@link #install(int, int, int)}). Deleted on {@link #close()} and, should the harness be killed, by a
 * shutdown hook.
 */
public final class NetNamespace implements AutoCloseable {

    private static final String TABLE = "rudp_bench";
    private static final Pattern COUNTER = Pattern.compile("counter (\\w+) \\{\\s*packets (\\d+) bytes (\\d+)");

    private final String name;
    private final Thread cleanup;

    /** The bytes counted since {@link #install}: all IP packets, and those to and from the receiver's port. */
    public record Counters(long wireBytes, long wirePackets, long toReceiverBytes, long fromReceiverBytes,
            long toReceiverPackets, long fromReceiverPackets) {
    }

    private NetNamespace(String name) {
        this.name = name;
        this.cleanup = new Thread(() -> quietly("ip", "netns", "del", name), "netns-cleanup");
    }

    /** Why no namespace can be made here (not root, no {@code ip}, no {@code nft}), or empty when it can. */
    public static Optional<String> unavailable() {
        if (!isRoot()) {
            return Optional.of("not root: network namespaces and nftables need root");
        }
        if (!onPath("ip")) {
            return Optional.of("iproute2 ('ip') is not installed");
        }
        if (!onPath("nft")) {
            return Optional.of("nftables ('nft') is not installed (apt-get install nftables)");
        }
        return Optional.empty();
    }

    /** {@code --network}: auto (a namespace when one can be made, else the link conditioner), netns or conditioner. */
    public static final class NetworkOption {

        @Option(names = "--network", defaultValue = "auto", description = "auto (netns when root, else the link conditioner), netns or conditioner")
        private String network;

        /** The value given. */
        public String value() {
            return network;
        }
    }

    /**
     * Whether a run of {@code command} with {@code --network network} uses a namespace: {@code netns} must
     * (and fails when none can be made), {@code conditioner} must not, {@code auto} does when it can.
     */
    public static boolean useNamespace(String command, String network) {
        Optional<String> noNamespace = unavailable();
        return switch (network) {
            case "netns" -> {
                if (noNamespace.isPresent()) {
                    throw new IllegalStateException(command + ": --network netns impossible: " + noNamespace.get());
                }
                yield true;
            }
            case "conditioner" -> false;
            case "auto" -> noNamespace.isEmpty();
            default -> throw new IllegalArgumentException(command + ": --network must be auto, netns or conditioner");
        };
    }

    /** Creates the namespace and brings its loopback up. */
    public static NetNamespace create() throws IOException, InterruptedException {
        NetNamespace ns = new NetNamespace("rudp-loss-" + ProcessHandle.current().pid());
        quietly("ip", "netns", "del", ns.name); // a leftover of a killed run with the same pid
        run(null, "ip", "netns", "add", ns.name);
        Runtime.getRuntime().addShutdownHook(ns.cleanup);
        run(null, "ip", "-n", ns.name, "link", "set", "lo", "up");
        return ns;
    }

    /** The namespace's name. */
    public String name() {
        return name;
    }

    /** The command run inside the namespace. */
    public List<String> exec(List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", name));
        c.addAll(command);
        return c;
    }

    /** Removes the loss and the counters: a lossless, uncounted loopback (for the peers' start and warm-up). */
    public void clear() throws IOException, InterruptedException {
        run(null, exec(List.of("nft", "flush", "ruleset")).toArray(String[]::new));
    }

    /** Replaces the rules: drop {@code lossPercent}% at input, counters from zero; {@code port} is the receiver's. */
    public void install(int lossPercent, int port) throws IOException, InterruptedException {
        install(lossPercent, port, 0);
    }

    /**
     * Replaces the rules, counters from zero; {@code port} is the receiver's. Without a relay
     * ({@code relayPort} 0) the input hook drops {@code lossPercent}% and the wire counter counts every IP packet
     * at output. With a {@link DelayRelay} on {@code relayPort} (which drops the loss itself, so nothing is dropped
     * here) every datagram crosses the loopback twice: the counters count what the two ends send (to the relay's
     * port and from the receiver's), before the relay's drop, as the wire counter does without one.
     */
    public void install(int lossPercent, int port, int relayPort) throws IOException, InterruptedException {
        String drop = lossPercent > 0 && relayPort == 0 ? "numgen random mod 100 < " + lossPercent + " drop" : "";
        String toReceiver = "th dport " + (relayPort == 0 ? port : relayPort);
        String wire = relayPort == 0 ? "counter name \"wire\"\n"
                : "meta l4proto udp th dport " + relayPort + " counter name \"wire\"\n"
                + "    meta l4proto udp th sport " + port + " counter name \"wire\"\n";
        String rules = "flush ruleset\n"
                + "table inet " + TABLE + " {\n"
                + "  counter wire {}\n  counter to_receiver {}\n  counter from_receiver {}\n"
                + "  chain out {\n    type filter hook output priority 0; policy accept;\n"
                + "    " + wire
                + "    meta l4proto { tcp, udp } " + toReceiver + " counter name \"to_receiver\"\n"
                + "    meta l4proto { tcp, udp } th sport " + port + " counter name \"from_receiver\"\n  }\n"
                + "  chain in {\n    type filter hook input priority 0; policy accept;\n    " + drop + "\n  }\n"
                + "}\n";
        run(rules, exec(List.of("nft", "-f", "-")).toArray(String[]::new));
    }

    /** The counters now. */
    public Counters counters() throws IOException, InterruptedException {
        String out = run(null, exec(List.of("nft", "list", "counters", "table", "inet", TABLE)).toArray(String[]::new));
        long[] v = new long[6];
        Matcher m = COUNTER.matcher(out);
        while (m.find()) {
            switch (m.group(1)) {
                case "wire" -> {
                    v[0] = Long.parseLong(m.group(3));
                    v[1] = Long.parseLong(m.group(2));
                }
                case "to_receiver" -> {
                    v[2] = Long.parseLong(m.group(3));
                    v[4] = Long.parseLong(m.group(2));
                }
                case "from_receiver" -> {
                    v[3] = Long.parseLong(m.group(3));
                    v[5] = Long.parseLong(m.group(2));
                }
                default -> { }
            }
        }
        return new Counters(v[0], v[1], v[2], v[3], v[4], v[5]);
    }

    /** Deletes the namespace. */
    @Override
    public void close() {
        quietly("ip", "netns", "del", name);
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private static String run(String stdin, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + " did not finish within 30 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out.trim());
        }
        return out;
    }

    private static void quietly(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            // best effort
        }
    }

    /** Whether this process runs as root. */
    public static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor(10, TimeUnit.SECONDS) && out.equals("0");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Whether {@code command} is an executable on the PATH or in the sbin folders. */
    public static boolean onPath(String command) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        return dirs.stream().anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, command)));
    }
}
