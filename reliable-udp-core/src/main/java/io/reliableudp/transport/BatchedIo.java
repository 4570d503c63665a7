package io.reliableudp.transport;

/**
 * Whether a node reads and writes its socket in batches ({@link NodeConfig#batchedIo()}): on Linux with
 * Java 22 or later, a port that reads up to 32 datagrams per {@code recvmmsg}, sends the datagrams its
 * I/O thread writes in one pass by one {@code sendmmsg} (same-size runs to one peer as one UDP GSO
 * send) and takes UDP GRO's coalesced segments, through the Foreign Function &amp; Memory API (no native
 * library); elsewhere the {@link UdpDatagramPort} over a {@link java.nio.channels.DatagramChannel}.
 * See docs/operations.md, "Batched socket I/O".
 */
public enum BatchedIo {
    /**
     * The batched port where it is available (Linux x86-64 or AArch64, Java 22+) and the application
     * grants native access ({@code --enable-native-access=ALL-UNNAMED}, or the library's module, so the
     * JVM prints no warning for it), and the node uses platform I/O threads and no dedicated sockets;
     * else the plain port.
     */
    AUTO,
    /**
     * The batched port wherever it is available, also with virtual I/O threads (a blocked wait then holds
     * its carrier thread) and with {@link NodeConfig#dedicatedSockets()} (which it refuses: every peer
     * shares the node's socket); where it is not available, the plain port and a warning.
     */
    ON,
    /** Always the plain port. */
    OFF
}
