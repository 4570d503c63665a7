package io.reliableudp.bench.scale;

import io.reliableudp.DisconnectReason;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * The server of the {@code scale} benchmark, in a JVM of its own (so that its CPU time in
 * {@code /proc/<pid>/stat} and its heap are its own): one {@link ReliableUdpNode} built by
 * {@link ScaleBench#serverConfig}, counting the messages delivered to its listener and the connections
 * that ended. Prints {@code READY port=N}, then answers commands on stdin, one line each:
 * {@code STATUS} (connections, delivered, ended, timed out, datagrams and drops by reason), {@code HEAP} (heap used after a full GC,
 * with the connection count at that moment); end of input stops it.
 *
 * <p>Arguments: {@code IO_THREADS [PORT [CLIENTS]]} (PORT: plain, batched or auto, the default; CLIENTS:
 * above the default connection limit, the limit is raised to it).
 */
public final class ScaleServerMain {

    private ScaleServerMain() {
    }

    /** Runs the server until its stdin ends. */
    public static void main(String[] args) throws Exception {
        int ioThreads = Integer.parseInt(args[0]);
        String port = args.length > 1 ? args[1] : "auto";
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        LongAdder delivered = new LongAdder();
        LongAdder connections = new LongAdder();
        LongAdder ended = new LongAdder();
        LongAdder timedOut = new LongAdder();
        NodeListener listener = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                delivered.increment();
            }

            @Override
            public void onConnected(Peer peer) {
                connections.increment();
            }

            @Override
            public void onDisconnected(Peer peer, DisconnectReason reason) {
                connections.decrement();
                ended.increment();
                if (reason == DisconnectReason.TIMEOUT) {
                    timedOut.increment();
                }
            }
        };
        try (ReliableUdpNode node = ReliableUdpNode.start(ScaleBench.serverConfig(ioThreads, port, clients), listener);
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.println("READY port=" + node.localAddress().getPort() + " pid=" + ProcessHandle.current().pid()
                    + " kind=" + node.portKind().replace(' ', '_'));
            for (String line; (line = in.readLine()) != null; ) {
                switch (line.trim()) {
                    case "STATUS" -> {
                        var stats = node.stats();
                        StringBuilder drops = new StringBuilder();
                        stats.datagramsDropped().forEach((reason, n) -> drops.append(" drop_").append(reason).append('=').append(n));
                        System.out.printf(Locale.ROOT, "STATUS connections=%d delivered=%d ended=%d timedout=%d received=%d sent=%d%s%n",
                                connections.sum(), delivered.sum(), ended.sum(), timedOut.sum(), stats.datagramsReceived(),
                                stats.datagramsSent(), drops);
                    }
                    case "HEAP" -> {
                        long used = heapAfterGc();
                        System.out.printf(Locale.ROOT, "HEAP used=%d connections=%d peers=%d%n", used, connections.sum(),
                                node.peers().size());
                    }
                    default -> System.out.println("UNKNOWN " + line);
                }
            }
        }
    }

    /** Heap used after full collections (several, until the figure settles). */
    static long heapAfterGc() {
        var memory = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(last - used) < 64 * 1024) {
                return used;
            }
            last = used;
        }
        return last;
    }
}
