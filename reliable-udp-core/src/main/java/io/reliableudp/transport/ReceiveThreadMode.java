package io.reliableudp.transport;

/** Which kind of thread runs a node's receive loop. */
public enum ReceiveThreadMode {
    /** A virtual thread (default). */
    VIRTUAL,
    /** A dedicated platform (daemon) thread. */
    PLATFORM
}
