package io.reliableudp.transport;

/** Which kind of thread runs a node's I/O loop (receive, timers, queued sends). */
public enum ReceiveThreadMode {
    /**
     * A virtual thread: no OS thread per node (thousands of nodes per JVM), but each wake-up from
     * the selector goes through the JDK's poller and a carrier thread, tens of microseconds per
     * round trip.
     */
    VIRTUAL,
    /** A dedicated platform (daemon) thread (default): the lowest latency per wake-up. */
    PLATFORM
}
