package io.reliableudp.transport;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Harness, not a test (no assertion, never run by the build): the CPU an idle node costs. One server
 * node with {@code N} idle connections (default 100, from N client nodes in this JVM, default node
 * settings: keepalives every 1 s each way, timeout 5 s, nothing else) for {@code S} seconds (default 10); prints
 * the server I/O thread's CPU time (platform thread) and the whole process's, as fractions of one core.
 *
 * <pre>./mvnw -B -q -pl reliable-udp-core test-compile
 * java -cp reliable-udp-core/target/classes:reliable-udp-core/target/test-classes:JSPECIFY_JAR \
 *     io.reliableudp.transport.IdleNodeCpuMain [connections] [seconds] [platform|virtual] [keepalive-ms]</pre>
 * (a keepalive other than the default 1 s sets the timeout to 50 of them; {@code java -jar benchmarks.jar idle} measures the node in a JVM of its own)
 */
public final class IdleNodeCpuMain {

    private IdleNodeCpuMain() {
    }

    public static void main(String[] args) throws Exception {
        int connections = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        ReceiveThreadMode mode = args.length > 2 ? ReceiveThreadMode.valueOf(args[2].toUpperCase(Locale.ROOT))
                : ReceiveThreadMode.PLATFORM;
        InetAddress lo = InetAddress.getLoopbackAddress();
        java.time.Duration keepAlive = java.time.Duration.ofMillis(args.length > 3 ? Long.parseLong(args[3]) : 100);
        NodeConfig.Builder base = NodeConfig.builder().bindAddress(new InetSocketAddress(lo, 0)).receiveThreadMode(mode)
                .keepAliveInterval(keepAlive).timeout(keepAlive.multipliedBy(50));
        List<ReliableUdpNode> clients = new ArrayList<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(base.build(), (p, c, i, d) -> { })) {
            InetSocketAddress target = new InetSocketAddress(lo, server.localAddress().getPort());
            for (int i = 0; i < connections; i++) {
                ReliableUdpNode c = ReliableUdpNode.start(base.acceptIncoming(false).build(), (p, ch, id, d) -> { });
                clients.add(c);
                c.connect(target).get(10, TimeUnit.SECONDS);
            }
            Thread.sleep(1000); // settle
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            String ioName = "reliable-udp-io-" + server.localAddress().getPort();
            long ioThread = -1;
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().equals(ioName)) {
                    ioThread = t.threadId();
                }
            }
            com.sun.management.OperatingSystemMXBean os =
                    (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long io0 = ioThread < 0 ? -1 : threads.getThreadCpuTime(ioThread);
            long process0 = os.getProcessCpuTime();
            NodeStats stats0 = server.stats();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long elapsed = System.nanoTime() - start;
            long io1 = ioThread < 0 ? -1 : threads.getThreadCpuTime(ioThread);
            long process1 = os.getProcessCpuTime();
            NodeStats stats1 = server.stats();
            System.out.printf(Locale.ROOT, "idle node, %d connections, %s I/O threads, %.0f s: server I/O thread %s of a core;"
                            + " whole process (server + %d client nodes) %.4f cores = %.5f per node; server datagrams %d in, %d out per s%n",
                    connections, mode.name().toLowerCase(Locale.ROOT), seconds,
                    io0 < 0 ? "n/a (virtual)" : String.format(Locale.ROOT, "%.4f", (io1 - io0) / (double) elapsed),
                    connections, (process1 - process0) / (double) elapsed, (process1 - process0) / (double) elapsed / (connections + 1),
                    (long) ((stats1.datagramsReceived() - stats0.datagramsReceived()) / (elapsed / 1e9)),
                    (long) ((stats1.datagramsSent() - stats0.datagramsSent()) / (elapsed / 1e9)));
        } finally {
            for (ReliableUdpNode c : clients) {
                c.close();
            }
        }
    }
}
