package io.reliableudp.bench.systems;

/**
 * What every measured system has, whatever the benchmark: a name, and resources that may outlive one
 * measurement (a child JVM).
 */
public interface BenchSystem extends AutoCloseable {

    /** The system's key in the JSON results and its row in the tables, e.g. {@code raw-udp}. */
    String name();

    /** Releases what outlives a measurement (a child JVM); nothing by default. Never throws. */
    @Override
    default void close() {
    }
}
