package io.reliableudp.bench.kit;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What every subcommand shares. A subcommand is a picocli {@code @Command} whose options are {@code @Option}
 * fields with their defaults and help; picocli parses {@code --name value} and {@code --name=value}, refuses
 * unknown options and bad values, and answers {@code --help}. This class adds {@code --help}, {@code --out}
 * (the folder of the JSON result and the plot), the checks of {@code --seconds} and {@code --runs}
 * ({@link Seconds}, {@link Runs}), the check of {@code --systems} ({@link #systems}) and the end every
 * subcommand has ({@link #finish}: write the JSON, print it as the last line).
 */
public abstract class BenchCommand implements Callable<String> {

    /** The help of {@code --seconds} (each subcommand gives its own default). */
    public static final String SECONDS = "length of one measurement, in seconds";
    /** The help of {@code --runs} (each subcommand gives its own default). */
    public static final String RUNS = "runs of every measurement; the median is reported beside each run";

    @Spec
    private CommandSpec spec;

    @Option(names = "--help", usageHelp = true, description = "this list of options")
    private boolean help;

    @Option(names = "--out", paramLabel = "DIR",
            description = "folder for the JSON result and the PNG plot (default benchmarks/target/results/NAME-<timestamp>)")
    private Path out;

    /** The subcommand's name (its {@code @Command} name). */
    protected final String name() {
        return spec.name();
    }

    /** {@code --out}, or {@code benchmarks/target/results/NAME-<timestamp>} (fixed on first use). */
    protected final Path out() {
        if (out == null) {
            String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
            out = JavaCommand.benchmarksTarget().resolve("results").resolve(name() + "-" + stamp);
        }
        return out;
    }

    /**
     * {@code --systems} checked against the systems the subcommand knows.
     *
     * @throws ParameterException naming the first unknown one
     */
    protected final List<String> systems(List<String> requested, List<String> known) {
        for (String s : requested) {
            if (!known.contains(s)) {
                throw new ParameterException(spec.commandLine(), name() + ": unknown system " + s + " (known: " + String.join(", ", known) + ")");
            }
        }
        return requested;
    }

    /**
     * The end of every subcommand: writes {@code NAME.json} into {@link #out()}, prints where, and prints the
     * JSON line as the last line.
     *
     * @return the JSON line
     */
    protected final String finish(Report report) throws IOException {
        Path json = report.writeJson(out());
        System.out.println("wrote " + json + " (logs and plot, if any, beside it)");
        String line = report.jsonLine();
        System.out.println(line);
        return line;
    }

    /**
     * Parses {@code args} into {@code command} and runs it: the entry the tests use (the jar's entry is
     * {@code Bench}).
     *
     * @return the JSON line, or null after {@code --help}
     * @throws ParameterException on an unknown option or a bad value, before anything runs
     */
    public static String run(BenchCommand command, String... args) throws Exception {
        CommandLine cl = commandLine(command);
        if (CommandLine.printHelpIfRequested(cl.parseArgs(args))) {
            return null;
        }
        return command.call();
    }

    /** A command line for a subcommand (or the jar's entry) with the defaults shown in the help. */
    public static CommandLine commandLine(Object command) {
        CommandLine cl = new CommandLine(command);
        showDefaults(cl);
        return cl;
    }

    private static void showDefaults(CommandLine cl) {
        cl.getCommandSpec().usageMessage().showDefaultValues(true);
        cl.getSubcommands().values().forEach(BenchCommand::showDefaults);
    }

    /** {@code --seconds}: a number of seconds greater than 0. */
    public static final class Seconds implements CommandLine.ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double s = Double.parseDouble(value);
            if (!(s > 0)) {
                throw new CommandLine.TypeConversionException("must be > 0, was " + value);
            }
            return s;
        }
    }

    /** {@code --runs}: a whole number of at least 1. */
    public static final class Runs implements CommandLine.ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int r = Integer.parseInt(value);
            if (r < 1) {
                throw new CommandLine.TypeConversionException("must be >= 1, was " + value);
            }
            return r;
        }
    }
}
