package io.reliableudp.bench.pingpong;

import io.reliableudp.bench.systems.RawUdp;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * A diagnostic, not a benchmark of record: the JDK's own loopback ping-pong of a 32-byte datagram, with
 * either a blocking {@code receive} (the ping-pong benchmark's raw baseline, {@link RawUdp#measure(int, double)})
 * or a {@link Selector} wait and non-blocking receives (the wait this library's I/O loop uses), one echo thread and one pinging thread, no library code. It shows the two
 * regimes of a 2-vCPU VM that every ping-pong runs in (threads sharing a vCPU or not) and the cost of the
 * selector wait itself; run it unpinned and under {@code taskset -c 0} (docs/benchmarks.md, "The
 * machine, and what load does to the figures").
 *
 * <pre>java -cp benchmarks.jar io.reliableudp.bench.pingpong.RawLoops block|select SECONDS [RUNS]</pre>
 */
public final class RawLoops {

    private RawLoops() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || !(args[0].equals("block") || args[0].equals("select"))) {
            System.err.println("usage: RawLoops block|select SECONDS [RUNS]");
            System.exit(2);
        }
        boolean select = args[0].equals("select");
        double seconds = Double.parseDouble(args[1]);
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        for (int r = 1; r <= runs; r++) {
            System.out.println(run(select, seconds, r));
        }
    }

    private static String run(boolean select, double seconds, int run) throws Exception {
        if (!select) {
            // the blocking loop is the ping-pong benchmark's own raw baseline
            Histogram h = new RawUdp().measure(32, seconds);
            return format("block", run, h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                    h.getValueAtPercentile(99));
        }
        try (DatagramChannel server = DatagramChannel.open(); DatagramChannel client = DatagramChannel.open();
             Selector serverSelector = Selector.open(); Selector clientSelector = Selector.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            client.bind(new InetSocketAddress("127.0.0.1", 0));
            SocketAddress serverAddress = server.getLocalAddress();
            client.connect(serverAddress);
            server.configureBlocking(false);
            client.configureBlocking(false);
            server.register(serverSelector, SelectionKey.OP_READ);
            client.register(clientSelector, SelectionKey.OP_READ);
            Thread echo = Thread.ofPlatform().daemon().name("raw-loops-echo").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(2048);
                try {
                    while (!Thread.currentThread().isInterrupted()) {
                        SocketAddress from = receive(server, serverSelector, b);
                        b.flip();
                        server.send(b, from);
                    }
                } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                    // closed: the end of the run
                }
            });
            ByteBuffer out = ByteBuffer.allocateDirect(32);
            ByteBuffer in = ByteBuffer.allocateDirect(2048);
            long[] rtt = new long[1 << 21];
            int n = 0;
            long end = System.nanoTime() + (long) (seconds * 1e9);
            while (System.nanoTime() - end < 0 && n < rtt.length) {
                long t0 = System.nanoTime();
                out.clear();
                client.write(out);
                receive(client, clientSelector, in);
                rtt[n++] = System.nanoTime() - t0;
            }
            echo.interrupt();
            echo.join(1000); // before the channels and selectors close
            Arrays.sort(rtt, 0, n);
            return format("select", run, n, rtt[n / 2], rtt[(int) (n * 0.9)], rtt[(int) (n * 0.99)]);
        }
    }

    private static String format(String wait, int run, long n, long p50, long p90, long p99) {
        return String.format(Locale.ROOT, "%s run %d: %d round trips, p50 %.1f us, p90 %.1f us, p99 %.1f us, cores %d",
                wait, run, n, p50 / 1e3, p90 / 1e3, p99 / 1e3, Runtime.getRuntime().availableProcessors());
    }

    /** One datagram: non-blocking receives with a selector wait (5 ms at most) in between. */
    private static SocketAddress receive(DatagramChannel channel, Selector selector, ByteBuffer b) throws IOException {
        b.clear();
        while (true) {
            SocketAddress from = channel.receive(b);
            if (from != null) {
                return from;
            }
            selector.select(5);
            selector.selectedKeys().clear();
        }
    }
}
