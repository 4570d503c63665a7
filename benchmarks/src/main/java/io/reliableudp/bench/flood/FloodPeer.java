package io.reliableudp.bench.flood;

import io.reliableudp.bench.kit.Latency;
import io.reliableudp.bench.kit.Loopback;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.ReliableUdpNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One child process of the {@code flood} benchmark: the server, the client or a flooder. Contract
 * (lines on stdin and stdout):
 * <pre>
 * server DEDICATED_SOCKETS IO_THREADS RCVBUF LIFETIME_S  prints READY port=P; on STOP prints DONE [figures]
 * client PORT RATE_HZ LIFETIME_S                      prints READY; on GO connects, prints CONNECTED and sends
 *                                                     RATE_HZ messages/s; PHASE n stamps n on the next ones;
 *                                                     on STOP prints SENT [figures]
 * flood  PORT RATE_HZ SECONDS SIZE SOCKETS SEED       prints READY; on GO sends SIZE-byte garbage at RATE_HZ for
 *                                                     SECONDS from SOCKETS source ports, prints SENT n=N seconds=S
 * </pre>
 * A client message is 24 bytes: its sequence number, its send time ({@code System.nanoTime()}: Linux's
 * CLOCK_MONOTONIC, the same in every process of the machine) and its phase (0 warm-up, 1 quiet, 2
 * flooded, 3 after), big-endian. The server records each message's one-way latency by phase. On STOP the
 * client shuts its node down with a drain of up to 60 s (every reliable message acknowledged, or the
 * time is up) before it reports. Every peer gives up by itself after its lifetime.
 */
public final class FloodPeer {

    private static final LinkedBlockingQueue<String> STDIN = new LinkedBlockingQueue<>();
    private static final String END = "\u0000end";
    static final int MESSAGE_BYTES = 24;
    static final int PHASES = 4;

    private FloodPeer() {
    }

    /** Runs one peer (see the class comment). */
    public static void main(String[] args) throws Exception {
        int status = 0;
        try {
            readStdin();
            switch (args[0]) {
                case "server" -> server(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), deadline(args[4]));
                case "client" -> client(Integer.parseInt(args[1]), Double.parseDouble(args[2]), deadline(args[3]));
                case "flood" -> flood(Integer.parseInt(args[1]), Double.parseDouble(args[2]), Double.parseDouble(args[3]),
                        Integer.parseInt(args[4]), Integer.parseInt(args[5]), Long.parseLong(args[6]));
                default -> throw new IllegalArgumentException("role must be server, client or flood, was " + args[0]);
            }
        } catch (Exception e) {
            System.out.println("ERROR " + e);
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    private static long deadline(String lifetimeSeconds) {
        return System.nanoTime() + (long) (Double.parseDouble(lifetimeSeconds) * 1e9);
    }

    private static void readStdin() {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    STDIN.add(line.trim());
                }
            } catch (java.io.IOException e) {
                // the harness went away: treated as the end of stdin
            }
            STDIN.add(END);
        }, "stdin");
        t.setDaemon(true);
        t.start();
    }

    /** The next stdin line, or null when none came before {@code deadline}; END at the end of stdin. */
    private static String nextLine(long deadline) throws InterruptedException {
        long wait = deadline - System.nanoTime();
        return wait <= 0 ? STDIN.poll() : STDIN.poll(wait, TimeUnit.NANOSECONDS);
    }

    // ------------------------------------------------------------------------------------------ server

    private static void server(int dedicated, int ioThreads, int receiveBuffer, long deadline) throws Exception {
        Latency[] latency = new Latency[PHASES];
        for (int i = 0; i < PHASES; i++) {
            latency[i] = new Latency();
        }
        long[] received = new long[PHASES];
        long[] malformedAtPhase = new long[PHASES];
        NodeListener listener = (peer, channel, id, payload) -> {
            long now = System.nanoTime();
            if (payload.length != MESSAGE_BYTES) {
                return;
            }
            ByteBuffer b = ByteBuffer.wrap(payload);
            b.getLong();
            long sentAt = b.getLong();
            int phase = Math.min(PHASES - 1, Math.max(0, (int) b.getLong()));
            synchronized (latency) {
                latency[phase].record(now - sentAt);
                received[phase]++;
            }
        };
        NodeConfig config = Loopback.node().dedicatedSockets(dedicated).ioThreads(ioThreads)
                .socketReceiveBufferSize(receiveBuffer).timeout(Duration.ofSeconds(10)).build();
        try (ReliableUdpNode node = ReliableUdpNode.start(config, listener)) {
            System.out.println("READY port=" + node.localAddress().getPort());
            String line;
            while ((line = nextLine(deadline)) != null && !line.equals("STOP") && !line.equals(END)) {
                if (line.startsWith("PHASE ")) {
                    int phase = Integer.parseInt(line.substring(6).trim());
                    malformedAtPhase[Math.min(PHASES - 1, phase)] = foreign(node.stats());
                }
            }
            NodeStats s = node.stats();
            StringBuilder out = new StringBuilder("DONE");
            synchronized (latency) {
                for (int p = 0; p < PHASES; p++) {
                    out.append(" received").append(p).append('=').append(received[p]);
                    for (Map.Entry<String, Double> e : latency[p].figuresMillis().entrySet()) {
                        out.append(' ').append(e.getKey().replace("_ms", "")).append(p).append('=')
                                .append(String.format(Locale.ROOT, "%.3f", e.getValue()));
                    }
                }
            }
            out.append(" garbage_rejected=").append(foreign(s));
            out.append(" garbage_rejected_flood=").append(foreign(s) - malformedAtPhase[2]);
            out.append(" datagrams_received=").append(s.datagramsReceived());
            out.append(" dropped=").append(s.datagramsDropped().toString().replace(' ', '_'));
            System.out.println(out);
        }
    }

    /** Datagrams the server rejected as not ours. */
    private static long foreign(NodeStats s) {
        long n = 0;
        for (String k : new String[] {"malformed", "unknown_sender", "too_large", "rate_limited"}) {
            n += s.datagramsDropped().getOrDefault(k, 0L);
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------ client

    private static void client(int port, double rate, long deadline) throws Exception {
        NodeConfig config = Loopback.client().timeout(Duration.ofSeconds(10)).build();
        try (ReliableUdpNode node = ReliableUdpNode.start(config, (p, c, i, d) -> { })) {
            System.out.println("READY");
            String line = nextLine(deadline);
            if (!"GO".equals(line)) {
                System.out.println("ERROR no GO: " + line);
                return;
            }
            Peer peer = node.connect(Loopback.address(port)).get(30, TimeUnit.SECONDS);
            System.out.println("CONNECTED");
            long[] sent = new long[PHASES];
            long[] refused = new long[PHASES];
            int phase = 0;
            long seq = 0;
            long start = System.nanoTime();
            long period = (long) (1e9 / rate);
            boolean stop = false;
            while (!stop && System.nanoTime() < deadline && peer.state() != PeerState.DISCONNECTED) {
                long due = start + seq * period;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(Math.min(wait, 1_000_000));
                    continue;
                }
                String cmd;
                while ((cmd = STDIN.poll()) != null) {
                    if (cmd.startsWith("PHASE ")) {
                        phase = Math.min(PHASES - 1, Integer.parseInt(cmd.substring(6).trim()));
                    } else if (cmd.equals("STOP") || cmd.equals(END)) {
                        stop = true;
                    }
                }
                byte[] m = ByteBuffer.allocate(MESSAGE_BYTES).putLong(seq).putLong(System.nanoTime()).putLong(phase).array();
                seq++;
                if (peer.offer(0, m)) {
                    sent[phase]++;
                } else {
                    refused[phase]++; // QUEUE_FULL (or a closing connection): the message was not taken
                }
            }
            PeerState before = peer.state();
            long datagrams = node.stats().datagramsSent();
            // drain: the node closes once every reliable message is acknowledged (or after 60 s)
            long drainStart = System.nanoTime();
            node.shutdown(Duration.ofSeconds(60)).get(90, TimeUnit.SECONDS);
            double drained = (System.nanoTime() - drainStart) / 1e9;
            StringBuilder out = new StringBuilder("SENT");
            for (int p = 0; p < PHASES; p++) {
                out.append(" sent").append(p).append('=').append(sent[p]).append(" refused").append(p).append('=').append(refused[p]);
            }
            out.append(" state=").append(before).append(" datagrams_sent=").append(datagrams)
                    .append(String.format(Locale.ROOT, " drain_seconds=%.3f", drained));
            System.out.println(out);
        }
    }

    // ------------------------------------------------------------------------------------------ flooder

    private static void flood(int port, double rate, double seconds, int size, int sockets, long seed) throws Exception {
        DatagramChannel[] out = new DatagramChannel[sockets];
        for (int i = 0; i < sockets; i++) {
            out[i] = DatagramChannel.open();
            out[i].bind(Loopback.address(0));
            out[i].configureBlocking(false);
        }
        InetSocketAddress to = Loopback.address(port);
        // 256 random datagrams, sent in turn: garbage without a random number generator in the paced loop
        SplittableRandom random = new SplittableRandom(seed);
        ByteBuffer[] pool = new ByteBuffer[256];
        for (int i = 0; i < pool.length; i++) {
            byte[] bytes = new byte[size];
            random.nextBytes(bytes);
            bytes[0] = (byte) (0x40 | bytes[0] & 0x3f); // never a type of ours: pure garbage, no handshake
            pool[i] = ByteBuffer.allocateDirect(size).put(bytes).flip();
        }
        System.out.println("READY");
        if (!"GO".equals(nextLine(System.nanoTime() + TimeUnit.SECONDS.toNanos(300)))) {
            System.out.println("ERROR no GO");
            return;
        }
        long n = 0;
        long dropped = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        double perNano = rate / 1e9;
        while (true) {
            long now = System.nanoTime();
            if (now >= end) {
                break;
            }
            long due = (long) ((now - start) * perNano); // datagrams due by now: paced, bursts of whatever is due
            if (n >= due) {
                LockSupport.parkNanos(50_000);
                continue;
            }
            while (n < due) {
                ByteBuffer buffer = pool[(int) (n & 255)];
                buffer.rewind();
                if (out[(int) (n % sockets)].send(buffer, to) == 0) {
                    dropped++; // our own send buffer was full: not sent
                }
                n++;
            }
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "SENT n=%d not_sent=%d seconds=%.3f%n", n - dropped, dropped, elapsed);
        for (DatagramChannel c : out) {
            c.close();
        }
    }
}
