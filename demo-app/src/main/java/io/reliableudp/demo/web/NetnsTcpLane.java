package io.reliableudp.demo.web;

import io.reliableudp.demo.node.Ledger;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The TCP lane with real loss: both TCP ends run in a child JVM ({@link TcpLanePeer}) inside a network
 * namespace of the demo's own ({@code rudp-demo-<pid>}, loopback up) whose nftables output hook drops
 * TCP packets at random, {@code numgen random mod 1000 < N} for rover-1's loss (both directions, so
 * acks too); Linux's own TCP recovers them (fast retransmit, RTO). The kernel has no netem here, so
 * rover-1's one-way latency is added by the receiving end (it holds each event until its send time
 * plus the latency), which leaves TCP's own round trip at loopback speed: its retransmission timer
 * keeps the 200 ms minimum either way. Events go to the child on its stdin, latencies come back on its
 * stdout. Needs root, iproute2 and nftables; the namespace is deleted on close.
 */
final class NetnsTcpLane implements TcpLane {

    private final String namespace;
    private final Process child;
    private final PrintStream toChild;
    private final Ledger.Latencies latencies;
    private volatile long sent;
    private int lossPerMille = -1;
    private long latencyMicros = -1;
    private volatile boolean open = true;

    private NetnsTcpLane(String namespace, Process child, Ledger.Latencies latencies) {
        this.namespace = namespace;
        this.child = child;
        this.toChild = new PrintStream(child.getOutputStream(), false, StandardCharsets.US_ASCII);
        this.latencies = latencies;
    }

    /** Builds the namespace and starts the peer; null (with the reason in {@code why}) when it cannot. */
    static @Nullable NetnsTcpLane tryOpen(Ledger ledger, StringBuilder why) {
        if (!isRoot()) {
            why.append("not root");
            return null;
        }
        for (String tool : new String[] { "ip", "nft" }) {
            if (!onPath(tool)) {
                why.append(tool).append(" not installed");
                return null;
            }
        }
        String ns = "rudp-demo-" + ProcessHandle.current().pid();
        try {
            run(List.of("ip", "netns", "add", ns));
            run(List.of("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"));
            run(List.of("ip", "netns", "exec", ns, "nft", "add", "table", "inet", "rudpdemo"));
            run(List.of("ip", "netns", "exec", ns, "nft", "add", "chain", "inet", "rudpdemo", "out",
                    "{ type filter hook output priority 0; policy accept; }"));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder("ip", "netns", "exec", ns, java, "-Xmx64m", "-XX:TieredStopAtLevel=1",
                    "-cp", System.getProperty("java.class.path"), TcpLanePeer.class.getName())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            NetnsTcpLane lane = new NetnsTcpLane(ns, p, ledger.lane("tcp-netns"));
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
            String first = in.readLine();
            if (!"ready".equals(first)) {
                lane.close();
                why.append("the peer in the namespace did not start (").append(first).append(")");
                return null;
            }
            Thread.ofPlatform().daemon().name("demo-tcp-netns").start(() -> lane.read(in));
            lane.follow(0, 0);
            System.out.println("  tcp lane: real loss in network namespace " + ns + " (nftables), peer pid " + p.pid());
            return lane;
        } catch (IOException | RuntimeException e) {
            deleteQuietly(ns);
            why.append("could not build namespace ").append(ns).append(": ").append(e.getMessage());
            return null;
        }
    }

    private void read(BufferedReader in) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                int space = line.indexOf(' ');
                if (space > 0) {
                    latencies.record(System.nanoTime(), Long.parseLong(line.substring(space + 1)) * 1_000);
                }
            }
        } catch (IOException | NumberFormatException e) {
            if (open) {
                System.out.println("  tcp lane: reading the peer failed (" + e.getMessage() + ")");
            }
        }
    }

    @Override
    public synchronized void follow(double lossProbability, double latencyMillis) {
        int perMille = (int) Math.round(Math.max(0, Math.min(1, lossProbability)) * 1000);
        if (perMille != lossPerMille && open) {
            try {
                run(List.of("ip", "netns", "exec", namespace, "nft", "flush", "chain", "inet", "rudpdemo", "out"));
                if (perMille > 0) {
                    run(List.of("ip", "netns", "exec", namespace, "nft", "add", "rule", "inet", "rudpdemo", "out",
                            "meta", "l4proto", "tcp", "numgen", "random", "mod", "1000", "<", String.valueOf(perMille), "drop"));
                }
                lossPerMille = perMille;
            } catch (IOException | RuntimeException e) {
                System.out.println("  tcp lane: could not set the loss rule (" + e.getMessage() + ")");
            }
        }
        long micros = (long) (latencyMillis * 1000);
        if (micros != latencyMicros) {
            toChild.println("l " + micros);
            toChild.flush();
            latencyMicros = micros;
        }
    }

    @Override
    public synchronized void send(long seq, long nowNanos) {
        if (open) {
            toChild.println("e " + seq);
            toChild.flush();
            sent++;
        }
    }

    @Override
    public long sent() {
        return sent;
    }

    @Override
    public long delivered() {
        return latencies.count();
    }

    @Override
    public String name() {
        return "tcp-netns";
    }

    @Override
    public String mode() {
        return "real loss (network namespace)";
    }

    @Override
    public String description() {
        return "the same events as rover-1 over Linux TCP between two sockets in network namespace " + namespace
                + ", whose nftables drop TCP packets at random with rover-1's loss probability (both directions);"
                + " rover-1's one-way latency is added at the receiving end, but TCP's own round trip stays loopback's"
                + " (no netem in this kernel), so Linux recovers a loss within about one event interval (docs/demo.md)";
    }

    @Override
    public void close() {
        open = false;
        toChild.close();
        child.destroy();
        try {
            child.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        deleteQuietly(namespace);
    }

    private static void deleteQuietly(String ns) {
        try {
            run(List.of("ip", "netns", "del", ns));
        } catch (IOException | RuntimeException ignored) {
            // it was never made, or is gone
        }
    }

    private static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return false;
    }

    private static boolean onPath(String tool) {
        for (String dir : new String[] { "/usr/sbin", "/sbin", "/usr/bin", "/bin" }) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }

    private static void run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed" + (out.isEmpty() ? "" : ": " + out));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "NetnsTcpLane[%s]", namespace);
    }
}
