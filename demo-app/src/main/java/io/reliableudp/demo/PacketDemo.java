package io.reliableudp.demo;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Locale;
import java.util.SplittableRandom;

import io.reliableudp.packet.PacketCounter;
import io.reliableudp.packet.ReliableConfig;
import io.reliableudp.packet.ReliableEndpoint;

/**
 * Packet-layer demo: two {@link ReliableEndpoint}s, each on its own UDP socket on 127.0.0.1, exchange
 * packets for about two seconds (every tenth one 3000 bytes, so sent as 3 fragments), with 5% of the
 * datagrams dropped on purpose at the receiving side so that loss and ack recovery show. Prints the
 * acks as they arrive and the statistics at the end, then exits 0.
 *
 * <p>Run: {@code ./mvnw -q -pl demo-app -am verify -DskipTests -Ddemo}. Arguments: seconds to run
 * (default 2), drop percentage (default 5).
 */
public final class PacketDemo {

    private static final double TICK_SECONDS = 0.01;
    private static final int PACKETS_PER_TICK = 4;

    private PacketDemo() {
    }

    /** One side: a socket, its endpoint, where its datagrams go. */
    private static final class Side {
        final String name;
        final DatagramChannel channel;
        final ByteBuffer out = ByteBuffer.allocate(20_000);
        final ByteBuffer in = ByteBuffer.allocate(20_000);
        SocketAddress peer;
        ReliableEndpoint endpoint;
        long payloadsReceived;
        long acksSeen;

        Side(String name) throws IOException {
            this.name = name;
            this.channel = DatagramChannel.open(StandardProtocolFamily.INET);
            channel.bind(new InetSocketAddress("127.0.0.1", 0));
            channel.configureBlocking(false);
        }

        void transmit(byte[] data, int offset, int length) {
            out.clear();
            out.put(data, offset, length).flip();
            try {
                channel.send(out, peer);
            } catch (IOException e) {
                System.err.println(name + ": send failed: " + e);
            }
        }
    }

    /**
     * Runs the demo.
     *
     * @param args optional: seconds to run, drop percentage
     * @throws IOException when a socket cannot be opened
     */
    public static void main(String[] args) throws IOException {
        double seconds = args.length > 0 && !args[0].isBlank() ? Double.parseDouble(args[0]) : 2.0;
        int dropPercent = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        SplittableRandom random = new SplittableRandom(42);
        ReliableConfig config = ReliableConfig.defaults();

        Side a = new Side("A");
        Side b = new Side("B");
        a.peer = b.channel.getLocalAddress();
        b.peer = a.channel.getLocalAddress();
        double start = System.nanoTime() / 1e9;
        for (Side side : new Side[] {a, b}) {
            Side self = side;
            side.endpoint = new ReliableEndpoint(config.toBuilder().name(side.name).build(), 0.0,
                    (sequence, data, offset, length) -> self.transmit(data, offset, length),
                    (sequence, data, offset, length) -> {
                        self.payloadsReceived++;
                        return true;
                    });
        }
        System.out.printf(Locale.ROOT, "A on %s, B on %s; %d%% of datagrams dropped on arrival; %.1f s%n",
                a.channel.getLocalAddress(), b.channel.getLocalAddress(), dropPercent, seconds);

        byte[] payload = new byte[3000];
        int tick = 0;
        double now = 0.0;
        while (now < seconds) {
            now = System.nanoTime() / 1e9 - start;
            for (Side side : new Side[] {a, b}) {
                side.endpoint.update(now);
                for (int k = 0; k < PACKETS_PER_TICK; k++) {
                    int n = tick * PACKETS_PER_TICK + k;
                    int length = n % 10 == 0 ? 3000 : 100 + n % 200;
                    for (int i = 0; i < length; i++) {
                        payload[i] = (byte) (n + i);
                    }
                    side.endpoint.sendPacket(payload, 0, length);
                }
            }
            for (Side side : new Side[] {a, b}) {
                receiveAll(side, dropPercent, random);
                side.acksSeen += side.endpoint.ackCount();
                if (tick % 25 == 0 && side.endpoint.ackCount() > 0) {
                    StringBuilder acks = new StringBuilder();
                    for (int i = 0; i < side.endpoint.ackCount(); i++) {
                        acks.append(i == 0 ? "" : " ").append(side.endpoint.ack(i));
                    }
                    System.out.printf(Locale.ROOT, "t=%.2fs %s acked [%s]  rtt %.2f ms%n", now, side.name, acks,
                            side.endpoint.rtt());
                }
                side.endpoint.clearAcks();
            }
            tick++;
            sleep(TICK_SECONDS);
        }

        for (Side side : new Side[] {a, b}) {
            ReliableEndpoint e = side.endpoint;
            System.out.printf(Locale.ROOT,
                    "%s: sent %d packets (%d fragments), received %d payloads, %d acks; rtt %.2f ms "
                            + "(min %.2f, max %.2f, avg %.2f), jitter %.2f ms, loss %.1f %%, "
                            + "bandwidth sent %.1f / received %.1f / acked %.1f kbps%n",
                    side.name, e.counter(PacketCounter.NUM_PACKETS_SENT), e.counter(PacketCounter.NUM_FRAGMENTS_SENT),
                    side.payloadsReceived, side.acksSeen, e.rtt(), e.rttMin(), e.rttMax(), e.rttAvg(),
                    e.jitterAvgVsMinRtt(), e.packetLoss(), e.sentBandwidthKbps(), e.receivedBandwidthKbps(),
                    e.ackedBandwidthKbps());
        }
        a.channel.close();
        b.channel.close();
    }

    private static void receiveAll(Side side, int dropPercent, SplittableRandom random) {
        while (true) {
            side.in.clear();
            SocketAddress from;
            try {
                from = side.channel.receive(side.in);
            } catch (IOException e) {
                System.err.println(side.name + ": receive failed: " + e);
                return;
            }
            if (from == null) {
                return;
            }
            if (random.nextInt(100) < dropPercent) {
                continue;
            }
            side.in.flip();
            side.endpoint.receivePacket(side.in.array(), 0, side.in.limit());
        }
    }

    private static void sleep(double seconds) {
        try {
            Thread.sleep((long) (seconds * 1000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
