package io.reliableudp.bench.kit;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * The command-line options of one subcommand ({@code --name value}, {@code --flag}): each getter declares an
 * option with its default and help, {@link #finish()} rejects unknown ones and answers {@code --help}.
 * Every subcommand takes {@code --seconds}, {@code --runs} and {@code --out} ({@link #seconds},
 * {@link #runs}, {@link #outDir}); those that compare systems take {@code --systems} ({@link #systems}).
 * {@link #run} is every subcommand's entry: parse, declare, finish, then run.
 */
public final class Options {

    private final String command;
    private final Map<String, String> given = new HashMap<>();
    private final Map<String, String> help = new LinkedHashMap<>();
    /** The systems asked for with {@code --systems} and the known ones, checked by {@link #finish}. */
    private List<String> requestedSystems = List.of();
    private List<String> knownSystems = List.of();

    private Options(String command) {
        this.command = command;
    }

    /**
     * Every subcommand's entry: parses {@code args}, lets {@code setup} declare the options and build
     * the run, then ends the declarations ({@link #finish}) and runs it.
     *
     * @return what the run returned (the JSON line), or null after {@code --help}
     */
    public static String run(String command, String[] args, Function<Options, Callable<String>> setup) throws Exception {
        Options o = parse(command, args);
        Callable<String> run = setup.apply(o);
        if (!o.finish()) {
            return null;
        }
        return run.call();
    }

    /**
     * Parses the arguments of a subcommand.
     *
     * @throws IllegalArgumentException on an argument that is not an option
     */
    public static Options parse(String command, String... args) {
        Options o = new Options(command);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || a.length() < 3) {
                throw new IllegalArgumentException(command + ": expected an option (--name), got '" + a + "'");
            }
            String name = a.substring(2);
            int eq = name.indexOf('=');
            if (eq > 0) {
                o.given.put(name.substring(0, eq), name.substring(eq + 1));
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                o.given.put(name, args[++i]);
            } else {
                o.given.put(name, "true");
            }
        }
        return o;
    }

    /** A text option. */
    public String string(String name, String defaultValue, String description) {
        help.put(name, description + " (default " + defaultValue + ")");
        return given.getOrDefault(name, defaultValue);
    }

    /** A number option. */
    public double number(String name, double defaultValue, String description) {
        String v = string(name, trim(defaultValue), description);
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(command + ": --" + name + " must be a number, was '" + v + "'");
        }
    }

    /** A whole-number option. */
    public int integer(String name, int defaultValue, String description) {
        double v = number(name, defaultValue, description);
        if (v != Math.rint(v)) {
            throw new IllegalArgumentException(command + ": --" + name + " must be a whole number, was " + v);
        }
        return (int) v;
    }

    /** A comma-separated list of numbers. */
    public List<Double> numbers(String name, String defaultValue, String description) {
        String v = string(name, defaultValue, description);
        List<Double> out = new ArrayList<>();
        for (String part : v.split(",")) {
            try {
                out.add(Double.parseDouble(part.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(command + ": --" + name + " must be numbers separated by commas, was '" + v + "'");
            }
        }
        return out;
    }

    /** A comma-separated list of names. */
    public List<String> names(String name, String defaultValue, String description) {
        return Arrays.stream(string(name, defaultValue, description).split(",")).map(String::trim)
                .filter(s -> !s.isEmpty()).toList();
    }

    /**
     * {@code --systems}: which of {@code known} to measure, all by default; {@link #finish} rejects a
     * name that is not one of them.
     */
    public List<String> systems(List<String> known) {
        knownSystems = List.copyOf(known);
        requestedSystems = names("systems", String.join(",", known), "systems to measure: " + String.join(", ", known));
        return requestedSystems;
    }

    /** A flag (present or not). */
    public boolean flag(String name, String description) {
        help.put(name, description);
        return Boolean.parseBoolean(given.getOrDefault(name, "false"));
    }

    /** {@code --seconds}: the length of one measurement. */
    public double seconds(double defaultValue) {
        double s = number("seconds", defaultValue, "length of one measurement, in seconds");
        if (!(s > 0)) {
            throw new IllegalArgumentException(command + ": --seconds must be > 0, was " + s);
        }
        return s;
    }

    /** {@code --runs}: how many times each measurement is repeated (the median is reported beside every run). */
    public int runs(int defaultValue) {
        int r = integer("runs", defaultValue, "runs of every measurement; the median is reported beside each run");
        if (r < 1) {
            throw new IllegalArgumentException(command + ": --runs must be >= 1, was " + r);
        }
        return r;
    }

    /** {@code --out}: the folder for the JSON and the plot, by default {@code benchmarks/target/results/NAME-<timestamp>}. */
    public Path outDir(String benchmark) {
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        String def = JavaCommand.benchmarksTarget().resolve("results").resolve(benchmark + "-" + stamp).toString();
        return Path.of(string("out", def, "folder for the JSON result and the PNG plot"));
    }

    /**
     * Ends the declarations: prints the help and returns false on {@code --help}; rejects unknown options
     * and unknown systems.
     *
     * @return true when the subcommand should run
     */
    public boolean finish() {
        if (given.containsKey("help")) {
            System.out.println("options of " + command + ":");
            help.forEach((name, text) -> System.out.printf("  --%-14s %s%n", name, text));
            return false;
        }
        for (String name : given.keySet()) {
            if (!help.containsKey(name)) {
                throw new IllegalArgumentException(command + ": unknown option --" + name + " (known: "
                        + String.join(", ", help.keySet().stream().map(n -> "--" + n).toList()) + ")");
            }
        }
        for (String s : requestedSystems) {
            if (!knownSystems.contains(s)) {
                throw new IllegalArgumentException(command + ": unknown system " + s + " (known: " + String.join(", ", knownSystems) + ")");
            }
        }
        return true;
    }

    /** A default number as typed on a command line: 30, not 30.0. */
    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
    }
}
