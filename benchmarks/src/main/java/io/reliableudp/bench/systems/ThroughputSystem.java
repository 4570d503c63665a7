package io.reliableudp.bench.systems;

/**
 * One system measured by the {@code throughput} benchmark (this library in one of its send modes, or a
 * baseline): given a message size and a number of connections, it streams messages from one side to
 * the other over loopback for a while and says how many were delivered per second, and whether every
 * message it sent arrived. Implementations open their sockets (or child JVM) per measurement, except
 * where {@link #close()} says otherwise.
 */
public interface ThroughputSystem extends BenchSystem {

    /** Whether the system promises delivery (reliable-ordered table) or not (unreliable table). */
    boolean reliable();

    /**
     * Streams {@code size}-byte messages over {@code connections} connections for {@code seconds}
     * (after a short ramp-up that is not counted), then stops sending and, for a reliable system, waits
     * (bounded) until everything sent arrived.
     */
    ThroughputRun measure(int size, int connections, double seconds) throws Exception;
}
