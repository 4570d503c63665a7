package io.reliableudp.transport;

import io.reliableudp.TrafficClass;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * Sends marked datagrams through both send paths of the batched port, for {@link DscpMarkingTest}'s
 * nftables counters: a port bound to {@code args[0]} (the socket's own class CS6) sends {@code args[1]}
 * datagrams of class EF to port {@value #TARGET_PORT} from a thread that is not the port's loop (each
 * at once, by a {@code sendmmsg} of one), then from its loop thread (the thread that received first:
 * queued, and flushed by {@code sendmmsg}) as many of class AF41, each longer than the one before (no
 * two in one GSO send), as many of class AF31 of one size (a GSO run: one packet before the loopback
 * splits it, as nftables' output hook counts it) and as many of the socket's own class (a GSO run too).
 * Prints {@code RESULT kind=...} and exits 0.
 */
public final class BatchedMarkMain {

    static final int TARGET_PORT = 41_002;
    static final int SOURCE_PORT = 41_003;

    private BatchedMarkMain() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress host = InetAddress.getByName(args[0]);
        int count = Integer.parseInt(args[1]);
        InetSocketAddress to = new InetSocketAddress(host, TARGET_PORT);
        DatagramPort port = BatchedPorts.openBatched(new InetSocketAddress(host, SOURCE_PORT), 1 << 20, 1 << 20, false,
                1_500, false, TrafficClass.CS6.tos());
        if (port == null) {
            System.out.println("RESULT unavailable: " + BatchedPorts.unavailable());
            System.exit(2);
            return;
        }
        try (port) {
            for (int i = 0; i < count; i++) {
                port.send(ByteBuffer.allocate(100), to, TrafficClass.EF.tos()); // main: not the loop
            }
            Thread loop = new Thread(() -> {
                try {
                    port.receive(ByteBuffer.allocate(2_048)); // makes this thread the port's loop
                    for (int i = 0; i < count; i++) {
                        port.send(ByteBuffer.allocate(100 + i), to, TrafficClass.AF41.tos());
                    }
                    for (int i = 0; i < count; i++) {
                        port.send(ByteBuffer.allocate(100), to, TrafficClass.AF31.tos());
                    }
                    for (int i = 0; i < count; i++) {
                        port.send(ByteBuffer.allocate(100), to);
                    }
                    port.flush();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            loop.start();
            loop.join();
            System.out.println("RESULT kind=" + port.kind().replace(' ', '_'));
        }
    }
}
