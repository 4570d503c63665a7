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
}
