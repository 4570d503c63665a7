package io.reliableudp.bench.kit;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The CPU time of another process (a child JVM), from Linux's {@code /proc}. */
public final class ProcessCpu {

    private static long clockTicks = -1;

    private ProcessCpu() {
    }

    /** User plus system CPU time of a process, in clock ticks ({@code /proc/PID/stat} fields 14 and 15). */
    public static long ticks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        // the command name (field 2) is in parentheses and may hold spaces: count from after it;
        // rest[0] is field 3 (state), so utime (14) and stime (15) are rest[11] and rest[12]
        String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(rest[11]) + Long.parseLong(rest[12]);
    }

    /** {@code getconf CLK_TCK}: the unit of {@link #ticks} (100 on Linux unless configured otherwise). */
    public static synchronized long ticksPerSecond() {
        if (clockTicks < 0) {
            clockTicks = 100;
            try {
                Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
                String v = new String(p.getInputStream().readAllBytes()).trim();
                if (p.waitFor() == 0) {
                    clockTicks = Long.parseLong(v);
                }
            } catch (IOException | NumberFormatException e) {
                // keep 100
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return clockTicks;
    }

    /**
     * Nanoseconds on the CPU of the live threads of a process ({@code /proc/PID/task/TID/schedstat}, first
     * field) whose name ({@code comm}, at most 15 characters) starts with {@code prefix} (null: every thread).
     */
    public static long schedstatNanos(long pid, String prefix) throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    if (prefix != null && !Files.readString(task.resolve("comm")).startsWith(prefix)) {
                        continue;
                    }
                    String text = Files.readString(task.resolve("schedstat")).trim();
                    sum += Long.parseLong(text.substring(0, text.indexOf(' ')));
                } catch (IOException | RuntimeException gone) {
                    // the thread ended between the listing and the read
                }
            }
        }
        return sum;
    }
}
