package io.reliableudp.bench.loss;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The measured process of {@code outage}: a sender and a receiver node (defaults, channel 0 reliable-ordered,
 * the default queue) on loopback in this JVM; the sender {@code Peer.send}s one 64-byte message every
 * 1/RATE s from the start for {@code before + blackhole + after} seconds. At {@code before} it cuts the path
 * for {@code blackhole} seconds: with {@code nft} (run inside the network namespace it was started in: drop
 * every packet at input) or, with {@code conditioner}, a 100% loss link conditioner on both nodes. Per 100 ms
 * bin it counts sends offered, refused with QUEUE_FULL and otherwise refused, and messages delivered, and
 * prints them as {@code BIN t_ms offered queue_full refused delivered} lines, then {@code DONE ...}; before them
 * {@code CUT} and {@code BACK} with the times (ms from the start) before and after the path changed.
 */
public final class OutagePeer {

    static final int BIN_MS = 100;

    private OutagePeer() {
    }

    /** {@code OutagePeer nft|conditioner RATE BEFORE_S BLACKHOLE_S AFTER_S}. */
    public static void main(String[] args) throws Exception {
        boolean nft = args[0].equals("nft");
        double rate = Double.parseDouble(args[1]);
        double before = Double.parseDouble(args[2]);
        double blackhole = Double.parseDouble(args[3]);
        double after = Double.parseDouble(args[4]);
        double total = before + blackhole + after;
        int bins = (int) Math.ceil(total * 1000 / BIN_MS) + 1;
        AtomicLongArray offered = new AtomicLongArray(bins);
        AtomicLongArray queueFull = new AtomicLongArray(bins);
        AtomicLongArray refused = new AtomicLongArray(bins);
        AtomicLongArray delivered = new AtomicLongArray(bins);
        long[] start = new long[1];
        InetAddress lo = InetAddress.getLoopbackAddress();
        NodeConfig.Builder cfg = NodeConfig.builder().bindAddress(new InetSocketAddress(lo, 0));
        try (ReliableUdpNode receiver = ReliableUdpNode.start(cfg.build(), (p, c, id, data) -> delivered.incrementAndGet(bin(start[0], bins)));
             ReliableUdpNode sender = ReliableUdpNode.start(cfg.acceptIncoming(false).build(), (p, c, id, data) -> { })) {
            Peer peer = sender.connect(new InetSocketAddress(lo, receiver.localAddress().getPort())).get(10, TimeUnit.SECONDS);
            byte[] payload = new byte[64];
            long interval = (long) (1e9 / rate);
            start[0] = System.nanoTime();
            long cutAt = start[0] + (long) (before * 1e9);
            long backAt = cutAt + (long) (blackhole * 1e9);
            long end = start[0] + (long) (total * 1e9);
            boolean cut = false;
            boolean back = false;
            long next = start[0];
            while (true) {
                long now = System.nanoTime();
                if (now - end >= 0) {
                    break;
                }
                // each printed with the time before and after the change: nft is a process (milliseconds; more
                // on a loaded machine) and the rule changes somewhere in between
                if (!cut && now - cutAt >= 0) {
                    cut = true;
                    double t0 = (System.nanoTime() - start[0]) / 1e6;
                    path(false, nft, sender, receiver);
                    System.out.printf(Locale.ROOT, "CUT %.1f %.1f%n", t0, (System.nanoTime() - start[0]) / 1e6);
                }
                if (cut && !back && now - backAt >= 0) {
                    back = true;
                    double t0 = (System.nanoTime() - start[0]) / 1e6;
                    path(true, nft, sender, receiver);
                    System.out.printf(Locale.ROOT, "BACK %.1f %.1f%n", t0, (System.nanoTime() - start[0]) / 1e6);
                }
                if (now - next < 0) {
                    LockSupport.parkNanos(Math.min(next - now, 200_000));
                    continue;
                }
                next += interval;
                int b = bin(start[0], bins);
                offered.incrementAndGet(b);
                CompletableFuture<Delivery> f = peer.send(0, payload);
                if (f.isCompletedExceptionally()) {
                    Throwable why = f.exceptionNow();
                    if (why instanceof DeliveryException d && d.reason() == DeliveryFailure.QUEUE_FULL) {
                        queueFull.incrementAndGet(b);
                    } else {
                        refused.incrementAndGet(b);
                    }
                }
            }
            Thread.sleep(500); // the last deliveries
            for (int b = 0; b < bins; b++) {
                System.out.printf(Locale.ROOT, "BIN %d %d %d %d %d%n", b * BIN_MS, offered.get(b), queueFull.get(b), refused.get(b), delivered.get(b));
            }
            System.out.println("DONE peer=" + peer.state() + " stats=" + peer.stats());
        } finally {
            if (nft) {
                path(true, true, null, null);
            }
        }
    }

    private static int bin(long start, int bins) {
        return (int) Math.min(bins - 1, Math.max(0, (System.nanoTime() - start) / 1_000_000 / BIN_MS));
    }

    /** Opens ({@code open}) or cuts the path. */
    private static void path(boolean open, boolean nft, ReliableUdpNode a, ReliableUdpNode b) throws IOException, InterruptedException {
        if (nft) {
            String rules = open ? "flush ruleset\n"
                    : "flush ruleset\ntable inet rudp_outage {\n  chain in {\n    type filter hook input priority 0; policy drop;\n  }\n}\n";
            Process p = new ProcessBuilder("nft", "-f", "-").redirectErrorStream(true).start();
            p.getOutputStream().write(rules.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException("nft failed: " + out);
            }
        } else if (a != null) {
            LinkConditionerConfig drop = open ? null
                    : new LinkConditionerConfig(0, 0, 1.0, 0, 1, 0, 0, 0, 0, 0, 1 << 20, 1);
            a.setLinkConditioner(drop);
            b.setLinkConditioner(drop);
        }
    }
}
