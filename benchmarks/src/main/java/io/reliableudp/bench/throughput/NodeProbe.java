package io.reliableudp.bench.throughput;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.transport.DatagramPort;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReceiveThreadMode;
import io.reliableudp.transport.ReliableUdpNode;
import io.reliableudp.transport.UdpDatagramPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A counting probe of one node-to-node stream (a diagnostic for profiling, not a benchmark of record):
 * one sender thread ({@code offer} or {@code send} one message at a time, {@code flush} every 64, a window
 * of 3,840 undelivered) over two nodes whose UDP
 * ports are wrapped to count what the I/O loops do: waits, wake-ups asked for, receives that found
 * nothing, datagrams each way, sends refused by a full socket buffer. It prints the rate and every
 * count <b>per delivered message</b>, which load does not distort the way it distorts the rate; run it
 * under JFR or {@code perf stat -e 'syscalls:sys_enter_*'} for the rest.
 *
 * <pre>java -cp benchmarks.jar io.reliableudp.bench.throughput.NodeProbe --size 256 --seconds 5 --offer --mode platform</pre>
 */
public final class NodeProbe {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    private NodeProbe() {
    }

    /** A {@link UdpDatagramPort} that counts what its I/O loop asks of it. */
    static final class CountingPort implements DatagramPort {
        final DatagramPort port;
        final LongAdder waits = new LongAdder();
        final LongAdder zeroWaits = new LongAdder();
        final LongAdder wakeups = new LongAdder();
        final LongAdder received = new LongAdder();
        final LongAdder emptyReceives = new LongAdder();
        final LongAdder sent = new LongAdder();
        final LongAdder refused = new LongAdder();

        CountingPort(DatagramPort port) {
            this.port = port;
        }

        @Override
        public InetSocketAddress receive(ByteBuffer into) throws IOException {
            InetSocketAddress from = port.receive(into);
            (from == null ? emptyReceives : received).increment();
            return from;
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
            boolean ok = port.send(datagram, to);
            (ok ? sent : refused).increment();
            return ok;
        }

        @Override
        public void awaitReadable(long timeoutNanos) throws IOException {
            (timeoutNanos <= 0 ? zeroWaits : waits).increment();
            port.awaitReadable(timeoutNanos);
        }

        @Override
        public void wakeup() {
            wakeups.increment();
            port.wakeup();
        }

        @Override
        public InetSocketAddress localAddress() {
            return port.localAddress();
        }

        @Override
        public boolean isOpen() {
            return port.isOpen();
        }

        @Override
        public void close() {
            port.close();
        }

        long[] snapshot() {
            return new long[] {waits.sum(), zeroWaits.sum(), wakeups.sum(), received.sum(), emptyReceives.sum(), sent.sum(), refused.sum()};
        }
    }

    private static final String[] COUNTS = {"waits (blocking)", "waits (selectNow)", "wake-ups asked", "datagrams received",
        "receives finding nothing", "datagrams sent", "sends refused (buffer full)"};

    /** The probe's options (picocli: {@code --name value}, {@code --help}, enum values in any case). */
    @Command(name = "NodeProbe", mixinStandardHelpOptions = false, showDefaultValues = true,
            description = "counts what the I/O loops do per delivered message of one stream")
    static final class Options {
        @Option(names = "--help", usageHelp = true, description = "this list of options")
        boolean help;
        @Option(names = "--size", defaultValue = "32", description = "message size in bytes")
        int size;
        @Option(names = "--seconds", defaultValue = "5", description = "length of the measured stream")
        double seconds;
        @Option(names = "--offer", description = "Peer.offer instead of Peer.send")
        boolean offer;
        @Option(names = "--mode", defaultValue = "PLATFORM", description = "I/O thread: platform or virtual")
        ReceiveThreadMode mode;
        @Option(names = "--flush-every", defaultValue = "64", description = "a flush after this many sends")
        int flushEvery;
        @Option(names = "--congestion", defaultValue = "DELIVERY_RATE", description = "delivery_rate, gaffer or none")
        MessageConfig.CongestionControl congestion;
        @Option(names = "--budget", defaultValue = "0", description = "datagram budget in bytes (0: the default)")
        int budget;
        @Option(names = "--queue", defaultValue = "" + ChannelConfig.DEFAULT_MAX_QUEUED_MESSAGES, description = "queued messages per channel")
        int queue;
        @Option(names = "--receive-window", defaultValue = "0", description = "receive window in messages (0: the default)")
        int receiveWindow;
    }

    public static void main(String[] args) throws Exception {
        Options o = new Options();
        CommandLine cl = new CommandLine(o).setCaseInsensitiveEnumValuesAllowed(true);
        if (CommandLine.printHelpIfRequested(cl.parseArgs(args))) {
            return;
        }
        int size = o.size;
        double seconds = o.seconds;
        boolean offer = o.offer;
        ReceiveThreadMode mode = o.mode;
        int flushEvery = o.flushEvery;
        MessageConfig.CongestionControl congestion = o.congestion;
        int budget = o.budget;
        int queue = o.queue;
        int receiveWindow = o.receiveWindow;
        MessageConfig.Builder message = MessageConfig.builder()
                .channels(List.of(new ChannelConfig(DeliveryMode.RELIABLE_ORDERED, queue, ChannelConfig.DEFAULT_MAX_QUEUED_BYTES),
                        ChannelConfig.of(DeliveryMode.UNRELIABLE)))
                .congestionControl(congestion);
        if (budget > 0) {
            message.datagramBudget(budget);
        }
        if (receiveWindow > 0) {
            message.receiveWindow(receiveWindow);
        }
        NodeConfig config = config(mode, message.build());
        run(config, size, 1, offer, flushEvery); // warm-up
        run(config, size, seconds, offer, flushEvery);
    }

    private static NodeConfig config(ReceiveThreadMode mode, MessageConfig message) {
        return NodeConfig.builder().bindAddress(new InetSocketAddress(LOOPBACK, 0)).receiveThreadMode(mode)
                .message(message).timeout(Duration.ofSeconds(10)).build();
    }

    private static final class Counter implements NodeListener {
        volatile long count;

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            count++; // one writer: the server's I/O thread
        }
    }

    private static void run(NodeConfig sc, int size, double seconds, boolean offer, int flushEvery) throws Exception {
        ReceiveThreadMode mode = sc.receiveThreadMode();
        NodeConfig cc = sc.toBuilder().acceptIncoming(false).build();
        CountingPort serverPort = new CountingPort(UdpDatagramPort.open(sc));
        CountingPort clientPort = new CountingPort(UdpDatagramPort.open(cc));
        Counter counter = new Counter();
        try (ReliableUdpNode server = ReliableUdpNode.start(sc, counter, serverPort);
             ReliableUdpNode client = ReliableUdpNode.start(cc, (p, c, i, d) -> { }, clientPort)) {
            Peer peer = client.connect(new InetSocketAddress(LOOPBACK, server.localAddress().getPort())).get(5, TimeUnit.SECONDS);
            byte[] payload = new byte[size];
            AtomicBoolean stop = new AtomicBoolean();
            int window = sc.message().channels().get(0).maxQueuedMessages() - 256;
            boolean useOffer = offer;
            long[] sentBox = new long[1];
            Thread sender = Thread.ofPlatform().name("probe-sender").start(() -> {
                long sent = 0;
                while (!stop.get()) {
                    if (sent - counter.count >= window) {
                        peer.flush();
                        Thread.yield();
                        continue;
                    }
                    boolean accepted = useOffer ? peer.offer(0, payload) : !peer.send(0, payload).isCompletedExceptionally();
                    if (!accepted) {
                        peer.flush();
                        Thread.yield();
                        continue;
                    }
                    sent++;
                    if (sent % flushEvery == 0) {
                        peer.flush();
                    }
                }
                sentBox[0] = sent;
            });
            Thread.sleep(300);
            long[] s0 = serverPort.snapshot();
            long[] c0 = clientPort.snapshot();
            PeerStats p0 = peer.stats();
            long before = counter.count;
            long start = System.nanoTime();
            // the controller's state, sampled every 10 ms: how often it holds the rate back (congested)
            int samples = 0;
            int congested = 0;
            long end = start + (long) (seconds * 1e9);
            while (System.nanoTime() - end < 0) {
                Thread.sleep(10);
                samples++;
                congested += peer.stats().congested() ? 1 : 0;
            }
            long after = counter.count;
            double elapsed = (System.nanoTime() - start) / 1e9;
            long[] s1 = serverPort.snapshot();
            long[] c1 = clientPort.snapshot();
            PeerStats p1 = peer.stats();
            stop.set(true);
            sender.join();
            long delivered = after - before;
            System.out.printf(Locale.ROOT, "%d B %s, %s I/O thread, flush every %d, %s, budget %d: %.0f msg/s over %.1f s (%d delivered)%n",
                    size, offer ? "offer" : "send", mode.name().toLowerCase(Locale.ROOT), flushEvery, sc.message().congestionControl(),
                    sc.message().datagramBudget(), delivered / elapsed, elapsed, delivered);
            if (seconds < 2) {
                return; // warm-up: the rate only
            }
            System.out.printf("%-30s %14s %14s%n", "per delivered message", "client", "server");
            for (int i = 0; i < COUNTS.length; i++) {
                System.out.printf(Locale.ROOT, "%-30s %14.4f %14.4f%n", COUNTS[i],
                        (c1[i] - c0[i]) / (double) delivered, (s1[i] - s0[i]) / (double) delivered);
            }
            ChannelStats ch0 = p0.channels().get(0);
            ChannelStats ch1 = p1.channels().get(0);
            System.out.printf(Locale.ROOT, "messages per data datagram (client): %.2f; resent per message: %.5f%n",
                    delivered / (double) (c1[5] - c0[5]), (ch1.messagesResent() - ch0.messagesResent()) / (double) delivered);
            System.out.printf(Locale.ROOT, "server datagrams (acks) per client datagram: %.3f; wake-ups per client datagram: %.3f%n",
                    (s1[5] - s0[5]) / (double) (c1[5] - c0[5]), (c1[2] - c0[2]) / (double) (c1[5] - c0[5]));
            System.out.printf(Locale.ROOT, "client peer: rtt %.3f ms, loss %.2f %%, congested in %d of %d samples (10 ms apart)%n",
                    p1.rttMillis(), p1.packetLossPercent(), congested, samples);
            System.out.println("client packet counters: " + p1.packetCounters());
            NodeStats ns = server.stats();
            System.out.println("server node: " + ns);
        }
    }
}
