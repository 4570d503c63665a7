package io.reliableudp.bench.loss;

import io.reliableudp.bench.kit.NetNamespace;
import io.reliableudp.bench.kit.BenchCommand;
import io.reliableudp.bench.kit.ChildProcess;
import io.reliableudp.bench.kit.JavaCommand;
import io.reliableudp.bench.kit.LoadAverage;
import io.reliableudp.bench.kit.Report;
import io.reliableudp.bench.kit.Table;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The {@code outage} subcommand (a 2 s blackhole at 2,000 msg/s with the default queue): a child
 * JVM ({@link OutagePeer}) sends 64-byte reliable-ordered messages at {@code --rate} from one default node to
 * another over loopback and cuts the path for {@code --blackhole} seconds after {@code --before}: inside a
 * network namespace of its own with an nftables input policy of drop (root), or else with a 100% loss link
 * conditioner on both nodes. From its 100 ms bins it reports when the last QUEUE_FULL came after the path
 * returned, when the full rate was back (from then on every send accepted and at most 100 ms worth of the rate
 * accepted but not yet delivered at the end of every bin), and when the backlog was delivered. Times count
 * from just before the {@code nft} call that reopens the path (it takes milliseconds, more under load), so
 * they err long. Targets: no QUEUE_FULL later than 1 s after
 * the path returns; full rate back within 1 s.
 */
@Command(name = OutageBench.NAME, description = "a 2 s blackhole at 2,000 msg/s: the last QUEUE_FULL and the full rate after the path returns")
public final class OutageBench extends BenchCommand {

    /** The subcommand's name. */
    public static final String NAME = "outage";

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Option(names = "--rate", defaultValue = "2000", description = "messages per second, 64 B each, reliable-ordered, Peer.send")
    private double rate;
    @Option(names = "--before", defaultValue = "3", description = "seconds of normal traffic before the blackhole")
    private double before;
    @Option(names = "--blackhole", defaultValue = "2", description = "seconds the path drops every packet")
    private double blackhole;
    @Option(names = "--after", defaultValue = "5", description = "seconds of traffic after the path returned")
    private double after;
    @Option(names = "--runs", defaultValue = "1", converter = Runs.class, description = RUNS)
    private int runs;
    @Mixin
    private NetNamespace.NetworkOption networkOption = new NetNamespace.NetworkOption();

    /**
     * Runs the measurement, prints a table and, last, the JSON line.
     *
     * @return the JSON line, or null after {@code --help}
     */
    public static String run(String... args) throws Exception {
        return run(new OutageBench(), args);
    }

    @Override
    public String call() throws Exception {
        String network = networkOption.value();
        boolean netns = NetNamespace.useNamespace(NAME, network);
        if (!netns && network.equals("auto")) {
            System.out.println(NAME + ": " + NetNamespace.unavailable().orElse("") + "; cutting the path with the link conditioner instead");
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("rate_per_s", rate);
        params.put("before_s", before);
        params.put("blackhole_s", blackhole);
        params.put("after_s", after);
        params.put("message_bytes", 64);
        params.put("network", netns ? "netns+nftables (input policy drop)" : "link conditioner, 100% loss both ways");
        params.put("bin_ms", OutagePeer.BIN_MS);
        Report report = new Report(NAME, params);
        Table table = new Table("run", "QUEUE_FULL during", "QUEUE_FULL after", "last QUEUE_FULL after return (ms)",
                "full rate back after (ms)", "backlog delivered after (ms)", "targets", "load");
        for (int run = 1; run <= runs; run++) {
            double load = LoadAverage.oneMinute();
            System.out.println(LoadAverage.describe(load));
            Map<String, Object> f = report.run("reliable-udp", run);
            f.put("load1", load);
            try {
                measure(netns, run, f);
                double lastQf = (double) f.get("last_queue_full_after_return_ms");
                double fullRate = (double) f.get("full_rate_after_return_ms");
                boolean met = lastQf <= 1000 && fullRate <= 1000;
                table.row(run, Table.number((double) f.get("queue_full_during")), Table.number((double) f.get("queue_full_after")),
                        lastQf < 0 ? "none" : Table.number(lastQf), fullRate < 0 ? "never" : Table.number(fullRate),
                        Table.number((double) f.get("backlog_delivered_after_return_ms")), met ? "met" : "MISSED", Table.number(load));
            } catch (Exception e) {
                f.put("error", String.valueOf(e.getMessage()));
                table.row(run, "error: " + e.getMessage(), "", "", "", "", "", Table.number(load));
            }
        }
        table.print(System.out, String.format(Locale.ROOT, "%.0f s blackhole at %.0f msg/s, default node and queue"
                + " (targets: last QUEUE_FULL <= 1000 ms and full rate <= 1000 ms after the path returns)", blackhole, rate));
        return finish(report);
    }

    private void measure(boolean netns, int run, Map<String, Object> f) throws Exception {
        List<String> command = JavaCommand.command(JavaCommand.currentJava(), JavaCommand.harnessClassPath(), List.of("-Xmx512m"),
                OutagePeer.class.getName(), List.of(netns ? "nft" : "conditioner", String.valueOf(rate), String.valueOf(before),
                        String.valueOf(blackhole), String.valueOf(after)));
        NetNamespace ns = netns ? NetNamespace.create() : null;
        try (ChildProcess child = ChildProcess.start("outage", ns == null ? command : ns.exec(command),
                out().resolve("outage-" + run + ".log"))) {
            long deadline = System.nanoTime() + (long) ((before + blackhole + after + 60) * SECOND);
            String back = child.awaitLine("BACK ", deadline);
            if (back == null) {
                throw new IllegalStateException("the peer never reopened the path (see " + child.log() + ")");
            }
            // the path returned between the two times: measured from the first, so figures err long, never short
            String[] times = back.substring(5).trim().split(" ");
            double backMs = Double.parseDouble(times[0]);
            f.put("back_change_ms", Double.parseDouble(times[1]) - backMs);
            List<long[]> bins = new ArrayList<>();
            for (String line; (line = child.awaitLine("", deadline)) != null && !line.startsWith("DONE"); ) {
                if (line.startsWith("BIN ")) {
                    String[] p = line.substring(4).trim().split(" ");
                    long[] b = new long[p.length];
                    for (int i = 0; i < p.length; i++) {
                        b[i] = Long.parseLong(p[i]);
                    }
                    bins.add(b); // t_ms offered queue_full refused delivered
                }
            }
            if (bins.isEmpty()) {
                throw new IllegalStateException("no bins from the peer (see " + child.log() + ")");
            }
            analyse(bins, backMs, f);
            f.put("back_at_ms", backMs);
        } finally {
            if (ns != null) {
                ns.close();
            }
        }
    }

    /** The offered rate per second before the blackhole (the bins before the return, from the second on). */
    private static double rate(List<long[]> bins, double backMs) {
        long offered = 0;
        int n = 0;
        for (int i = 1; i < bins.size() && bins.get(i)[0] + OutagePeer.BIN_MS < backMs; i++) {
            offered += bins.get(i)[1];
            n++;
        }
        return n == 0 ? 0 : offered * 1000.0 / (n * OutagePeer.BIN_MS);
    }

    /** The figures from the bins ({@code t_ms offered queue_full refused delivered}). */
    static void analyse(List<long[]> bins, double backMs, Map<String, Object> f) {
        long qfDuring = 0;
        long qfAfter = 0;
        double lastQf = -1;
        int last = bins.size() - 2; // the final bin holds the deliveries of the 500 ms after the end: not a full bin
        for (int i = 0; i <= last; i++) {
            long[] b = bins.get(i);
            double binEnd = b[0] + OutagePeer.BIN_MS;
            if (binEnd <= backMs) {
                qfDuring += b[2];
            } else {
                qfAfter += b[2];
                if (b[2] > 0) {
                    lastQf = binEnd - backMs;
                }
            }
        }
        // full rate: from this bin on, every send accepted and no more than one bin's worth of the rate waiting
        // (accepted but not delivered) at the end of every bin; so the messages flow at the rate they come
        long[] waiting = new long[last + 1];
        long acc = 0;
        long del = 0;
        for (int i = 0; i <= last; i++) {
            long[] b = bins.get(i);
            acc += b[1] - b[2] - b[3];
            del += b[4];
            waiting[i] = acc - del;
        }
        double oneBin = rate(bins, backMs) * OutagePeer.BIN_MS / 1000.0;
        int fullFrom = -1;
        for (int i = last; i >= 0; i--) {
            long[] b = bins.get(i);
            if (b[0] + OutagePeer.BIN_MS <= backMs) {
                break;
            }
            boolean full = b[2] == 0 && b[3] == 0 && waiting[i] <= oneBin;
            if (!full) {
                break;
            }
            fullFrom = i;
        }
        double fullRate = fullFrom < 0 ? -1 : Math.max(0, bins.get(fullFrom)[0] - backMs);
        // the backlog: the first bin after the return by whose end everything accepted up to its start was delivered
        long accepted = 0;
        long delivered = 0;
        double backlog = -1;
        for (int i = 0; i <= last; i++) {
            long[] b = bins.get(i);
            long acceptedBefore = accepted;
            accepted += b[1] - b[2] - b[3];
            delivered += b[4];
            if (b[0] + OutagePeer.BIN_MS > backMs && delivered >= acceptedBefore) {
                backlog = Math.max(0, b[0] + OutagePeer.BIN_MS - backMs);
                break;
            }
        }
        f.put("queue_full_during", (double) qfDuring);
        f.put("queue_full_after", (double) qfAfter);
        f.put("last_queue_full_after_return_ms", lastQf);
        f.put("full_rate_after_return_ms", fullRate);
        f.put("backlog_delivered_after_return_ms", backlog);
    }
}
