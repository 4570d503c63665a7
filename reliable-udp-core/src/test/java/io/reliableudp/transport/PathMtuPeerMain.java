package io.reliableudp.transport;

import io.reliableudp.connection.Session;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One end of the path-MTU test ({@link PathMtuNetworkTest}), started in its own network namespace.
 *
 * <p>{@code server <ip> <port>}: a node that receives numbered reliable-ordered messages, prints
 * {@code READY}, and on a line from stdin prints {@code RECEIVED n ordered=...} and exits.
 *
 * <p>{@code client <server-ip> <port> <seconds> [<command to run mid-stream>...]}: streams numbered
 * messages (200 bytes; every 500th one 5,000, sliced) for that long, at most 256 unacknowledged;
 * samples the datagram budget and the resend interval every 5 ms; runs the command (if any) a third
 * of the way in; prints one {@code RESULT key=value ...} line: the budget before the command and at
 * the end, when it first reached its final value, the longest time without an acknowledgement while
 * messages waited (after the command, if any), the resend interval, messages that failed, fall-backs.
 */
public final class PathMtuPeerMain {

    private PathMtuPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("server")) {
            server(InetAddress.getByName(args[1]), Integer.parseInt(args[2]));
        } else {
            client(InetAddress.getByName(args[1]), Integer.parseInt(args[2]), Double.parseDouble(args[3]),
                    List.of(args).subList(4, args.length));
        }
    }

    private static NodeConfig.Builder config(InetSocketAddress bind) {
        return NodeConfig.builder().bindAddress(bind).timeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(10));
    }

    private static void server(InetAddress ip, int port) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicReference<String> error = new AtomicReference<>();
        NodeListener listener = (peer, channel, id, payload) -> {
            int v = ByteBuffer.wrap(payload).getInt();
            if (v != next.getAndIncrement()) {
                error.compareAndSet(null, "expected " + (next.get() - 1) + " got " + v);
            }
        };
        try (ReliableUdpNode server = ReliableUdpNode.start(config(new InetSocketAddress(ip, port)).build(), listener)) {
            System.out.println("READY " + server.localAddress());
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            System.out.println("RECEIVED " + next.get() + " ordered=" + (error.get() == null) + " "
                    + (error.get() == null ? "" : error.get()) + " dropped=" + server.stats().datagramsDropped());
            System.out.flush();
        }
    }

    private static void client(InetAddress server, int port, double seconds, List<String> midStream) throws Exception {
        try (ReliableUdpNode client = ReliableUdpNode.start(
                config(new InetSocketAddress(0)).acceptIncoming(false).build(), (p, c, i, d) -> { })) {
            Peer peer = client.connect(new InetSocketAddress(server, port)).get(20, TimeUnit.SECONDS);
            PeerDriver driver = ((PeerHandle) peer).driver();
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long commandAt = midStream.isEmpty() ? Long.MAX_VALUE : start + (long) (seconds * 1e9 / 3);
            Semaphore window = new Semaphore(256);
            AtomicLong lastAck = new AtomicLong(System.nanoTime());
            AtomicLong longestGap = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicLong gapsFrom = new AtomicLong(midStream.isEmpty() ? start : Long.MAX_VALUE);
            List<CompletableFuture<Delivery>> last = new ArrayList<>();
            int budgetBefore = 0;
            int budget = 0;
            List<long[]> changes = new ArrayList<>(); // (time, budget) of each change seen
            long commandTime = start;
            List<String> trace = new ArrayList<>();
            double resendInterval = 0;
            long nextSample = start;
            int n = 0;
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                if (now >= commandAt) {
                    budgetBefore = peer.stats().datagramBudget();
                    NetworkNamespaceCommand.run(midStream);
                    commandAt = Long.MAX_VALUE;
                    commandTime = System.nanoTime();
                    gapsFrom.set(commandTime);
                    lastAck.set(System.nanoTime());
                }
                if (now >= nextSample) {
                    nextSample = now + 5_000_000;
                    int b = peer.stats().datagramBudget();
                    if (b != budget) {
                        budget = b;
                        changes.add(new long[] {now, b});
                        if (trace.size() < 40) {
                            trace.add(String.format("%.2f:%d", (now - start) / 1e9, b));
                        }
                    }
                    resendInterval = Math.max(resendInterval, resendInterval(driver));
                }
                if (!window.tryAcquire(1, TimeUnit.MILLISECONDS)) {
                    // the window is full: no acknowledgement for a while shows as a gap
                    long quiet = System.nanoTime() - lastAck.get();
                    if (System.nanoTime() >= gapsFrom.get()) {
                        longestGap.accumulateAndGet(quiet, Math::max);
                    }
                    continue;
                }
                byte[] payload = new byte[n % 500 == 499 ? 5_000 : 200];
                ByteBuffer.wrap(payload).putInt(n++);
                CompletableFuture<Delivery> f = peer.send(0, payload);
                f.whenComplete((d, e) -> {
                    long t = System.nanoTime();
                    long quiet = t - lastAck.getAndSet(t);
                    if (t >= gapsFrom.get()) {
                        longestGap.accumulateAndGet(quiet, Math::max);
                    }
                    if (e != null) {
                        failed.incrementAndGet();
                    }
                    window.release();
                });
                if (n % 1000 == 0) {
                    last.add(f);
                }
            }
            // every message acknowledged (or failed); a stream that never recovers shows as unfinished
            boolean finished = window.tryAcquire(256, 60, TimeUnit.SECONDS);
            long fallbacks;
            String resends;
            driver.lock.lock();
            try {
                fallbacks = driver.connection().datagramBudgetFallbacks();
                io.reliableudp.message.MessageStats m = driver.connection().session().stats();
                resends = "fastResends=" + m.fastResends() + " timerResends=" + m.timerResends() + " declaredLost="
                        + m.packetsDeclaredLost() + " spurious=" + m.spuriousLossDetections();
            } finally {
                driver.lock.unlock();
            }
            int finalBudget = peer.stats().datagramBudget();
            long settledAt = start; // when the final size was first seen (after the command, if any)
            for (long[] c : changes) {
                if (c[0] >= commandTime && c[1] == finalBudget) {
                    settledAt = c[0];
                    break;
                }
            }
            System.out.printf("RESULT finished=%s sent=%d failed=%d budgetBefore=%d budget=%d settled=%.2f longestGapMs=%.1f"
                            + " resendIntervalMs=%.1f rttMs=%.1f fallbacks=%d %s trace=%s%n",
                    finished, n, failed.get(), budgetBefore, finalBudget, (settledAt - start) / 1e9,
                    longestGap.get() / 1e6, resendInterval * 1e3, peer.stats().rttMillis(), fallbacks, resends,
                    String.join(",", trace));
            System.out.flush();
        }
    }

    /** The connection's resend interval now (under the peer's lock). */
    private static double resendInterval(PeerDriver driver) {
        driver.lock.lock();
        try {
            Session s = driver.connection().session();
            return s == null || s.stats() == null ? 0 : s.stats().resendIntervalSeconds();
        } finally {
            driver.lock.unlock();
        }
    }

    /** Runs a command and waits for it (the mid-stream change of the path). */
    private static final class NetworkNamespaceCommand {
        static void run(List<String> command) throws Exception {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException(command + " failed: " + out);
            }
        }
    }
}
