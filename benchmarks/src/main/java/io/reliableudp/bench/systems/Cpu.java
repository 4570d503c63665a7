package io.reliableudp.bench.systems;

import java.lang.management.ManagementFactory;

/** The process CPU time of this JVM, for the CPU figures of the benchmarks. */
public final class Cpu {

    private Cpu() {
    }

    /** CPU time of all threads of this process so far, in nanoseconds. */
    public static long processNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
