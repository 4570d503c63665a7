package io.reliableudp.bench.kit;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Builds the command lines of child JVMs: which {@code java} (this JVM's, or an installed JDK of a given
 * major version, e.g. 17 for peers that fail on newer ones), which class path (this harness's, plus extra
 * jars such as a baseline's own), and where the harness itself lives ({@link #benchmarksTarget()}).
 */
public final class JavaCommand {

    private static final Path JVM_DIR = Path.of("/usr/lib/jvm");

    private JavaCommand() {
    }

    /** The {@code java} launcher of the running JVM. */
    public static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** The feature version of the running JVM (21, 25, ...). */
    public static int currentMajor() {
        return Runtime.version().feature();
    }

    /**
     * An installed JDK of the given major version under {@code /usr/lib/jvm} (its {@code release} file
     * decides), or empty.
     */
    public static Optional<Path> jdk(int major) {
        if (!Files.isDirectory(JVM_DIR)) {
            return Optional.empty();
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(JVM_DIR)) {
            for (Path dir : dirs) {
                Path java = dir.resolve("bin/java");
                Path release = dir.resolve("release");
                if (!Files.isExecutable(java) || !Files.isReadable(release)) {
                    continue;
                }
                Properties p = new Properties();
                try (var in = Files.newInputStream(release)) {
                    p.load(in);
                }
                String v = p.getProperty("JAVA_VERSION", "").replace("\"", "");
                if (v.equals(String.valueOf(major)) || v.startsWith(major + ".")) {
                    return Optional.of(java);
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** The class path of the running harness (the benchmarks jar, or the module's classes and dependencies in tests). */
    public static List<String> harnessClassPath() {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toString()).toList();
    }

    /**
     * Where the harness's code lives: the benchmarks jar, or {@code benchmarks/target/classes} when run from
     * the build (tests).
     */
    public static Path codeLocation() {
        try {
            return Path.of(JavaCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of("benchmarks/target/classes").toAbsolutePath();
        }
    }

    /** {@code benchmarks/target}: the folder of the jar or of the classes folder; results and built peers go there. */
    public static Path benchmarksTarget() {
        Path parent = codeLocation().toAbsolutePath().getParent();
        return parent == null ? Path.of(".").toAbsolutePath() : parent;
    }

    /**
     * A child JVM command line.
     *
     * @param java the launcher ({@link #currentJava()} or {@link #jdk})
     * @param classPath class path entries
     * @param jvmArgs JVM options (heap, GC, system properties)
     * @param mainClass the main class
     * @param args its arguments
     */
    public static List<String> command(Path java, List<String> classPath, List<String> jvmArgs, String mainClass, List<String> args) {
        List<String> c = new ArrayList<>();
        c.add(java.toString());
        c.addAll(jvmArgs);
        c.add("-cp");
        c.add(String.join(File.pathSeparator, classPath));
        c.add(mainClass);
        c.addAll(args);
        return c;
    }
}
