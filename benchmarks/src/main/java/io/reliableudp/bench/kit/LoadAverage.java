package io.reliableudp.bench.kit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The 1-minute load average of the machine, printed before each measurement and kept with its figures:
 * a figure taken above 0.5 is not a quiet-machine figure.
 */
public final class LoadAverage {

    private static final Path PROC_LOADAVG = Path.of("/proc/loadavg");

    private LoadAverage() {
    }

    /** The 1-minute load average from {@code /proc/loadavg}, or NaN where there is none (not Linux). */
    public static double oneMinute() {
        try {
            String text = Files.readString(PROC_LOADAVG).trim();
            return Double.parseDouble(text.substring(0, text.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** {@link #oneMinute()} as a line to print before a measurement. */
    public static String describe(double load) {
        if (Double.isNaN(load)) {
            return "load average: unknown (no /proc/loadavg)";
        }
        return String.format(java.util.Locale.ROOT, "load average (1 min): %.2f%s", load,
                load < 0.5 ? "" : "  [not a quiet machine: figures are for checking, not for publishing]");
    }
}
