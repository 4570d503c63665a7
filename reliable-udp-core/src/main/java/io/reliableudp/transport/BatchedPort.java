package io.reliableudp.transport;

/** What the batched port ({@link BatchedIo}) shows besides a {@link DatagramPort}: its counters (tests, diagnostics). */
interface BatchedPort extends DatagramPort {

    /**
     * Receive system calls, send system calls, datagrams handed out, GSO sends, GRO buffers split,
     * errors; monotonic since the port opened.
     */
    long[] counters();

    /** Whether the kernel coalesces this port's received segments (UDP_GRO). */
    boolean gro();

    /**
     * Sets an int option on the socket as {@code setsockopt(2)} takes it (level, option, value): how an
     * option the plain port sets through {@link java.net.StandardSocketOptions} is mirrored here.
     *
     * @return false when the kernel refuses it or the port is closed
     */
    boolean setOption(int level, int option, int value);
}
