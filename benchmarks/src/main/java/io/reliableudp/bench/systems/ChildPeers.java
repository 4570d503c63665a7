package io.reliableudp.bench.systems;

import io.reliableudp.bench.kit.JavaCommand;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the child-JVM baselines live and how they start: the Aeron peer (module
 * {@code benchmarks-aeron}: its jar or classes plus {@code target/lib}, on JDK 17 with the
 * {@code --add-opens} Aeron needs, its Aeron directory under {@code /dev/shm}) and the KCP peer
 * ({@link KcpPeer} on this harness's class path plus the {@code benchmarks-kcp} jar).
 */
public final class ChildPeers {

    /** The JDK the Aeron peer runs on: Aeron 1.47 fails on JDK 25. */
    public static final int AERON_JDK = 17;
    private static final String AERON_MAIN = "io.reliableudp.bench.aeron.AeronPeer";

    private ChildPeers() {
    }

    /** {@code benchmarks-aeron/target}, seen from this harness's target folder. */
    public static Path defaultAeronTarget() {
        return JavaCommand.benchmarksTarget().resolve("../../benchmarks-aeron/target").normalize();
    }

    /** {@code benchmarks-kcp/target/kcp-peer.jar}, seen from this harness's target folder. */
    public static Path defaultKcpJar() {
        return JavaCommand.benchmarksTarget().resolve("../../benchmarks-kcp/target/kcp-peer.jar").normalize();
    }

    /** The Aeron peer's class path: its jar (or classes folder) and every jar in {@code lib}; empty if not built. */
    public static List<String> aeronClassPath(Path target) {
        Path jar = target.resolve("benchmarks-aeron.jar");
        Path classes = target.resolve("classes/io/reliableudp/bench/aeron/AeronPeer.class");
        Path lib = target.resolve("lib");
        List<String> cp = new ArrayList<>();
        if (Files.isReadable(jar)) {
            cp.add(jar.toString());
        } else if (Files.isReadable(classes)) {
            cp.add(target.resolve("classes").toString());
        } else {
            return List.of();
        }
        if (!Files.isDirectory(lib)) {
            return List.of();
        }
        try (Stream<Path> jars = Files.list(lib)) {
            jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(p -> cp.add(p.toString()));
        } catch (IOException e) {
            return List.of();
        }
        return cp.size() > 1 ? cp : List.of();
    }

    /** {@code --kcp-jar}: the option of a subcommand whose only child-JVM peer is KCP's. */
    public static final class KcpJarOption {

        @Option(names = "--kcp-jar", paramLabel = "JAR", description = "the KCP peer jar (module benchmarks-kcp; default its target folder)")
        private Path kcpJar;

        /** The jar given, or {@link #defaultKcpJar()}. */
        public Path kcpJar() {
            return kcpJar != null ? kcpJar : defaultKcpJar();
        }
    }

    /** {@code --jdk17}, {@code --aeron-target} and {@code --kcp-jar}: where the child-JVM peers come from. */
    public static final class PeerOptions {

        @Option(names = "--jdk17", paramLabel = "JAVA", defaultValue = "auto",
                description = "the java launcher of a JDK " + AERON_JDK + " for the Aeron peer (auto: /usr/lib/jvm)")
        private String jdk17;

        @Option(names = "--aeron-target", paramLabel = "DIR",
                description = "the Aeron peer's build folder (module benchmarks-aeron; default its target folder)")
        private Path aeronTarget;

        @Mixin
        private KcpJarOption kcp = new KcpJarOption();

        /** The options as given. */
        public Setup setup() {
            Optional<Path> java17 = jdk17.equals("auto") ? JavaCommand.jdk(AERON_JDK) : Optional.of(Path.of(jdk17));
            return new Setup(java17, aeronTarget != null ? aeronTarget : defaultAeronTarget(), kcp.kcpJar());
        }
    }

    /**
     * Where the child-JVM peers come from ({@link PeerOptions}).
     *
     * @param java17 the java launcher of a JDK {@value #AERON_JDK} for the Aeron peer, if there is one
     * @param aeronTarget the Aeron peer's build folder
     * @param kcpJar the KCP peer's jar
     */
    public record Setup(Optional<Path> java17, Path aeronTarget, Path kcpJar) {

        /** Why {@code system} cannot run here: the Aeron ones ({@code aeron/...}) and {@code kcp}; empty for any other. */
        public Optional<String> unavailable(String system) {
            if (system.startsWith("aeron/")) {
                return aeronUnavailable(java17, aeronTarget);
            }
            return system.equals("kcp") ? kcpUnavailable(kcpJar) : Optional.empty();
        }

        /** The Aeron peer ({@code SHARED} or {@code DEDICATED} media driver), logging into {@code logDir}. */
        public PeerProcess aeron(String threading, Path logDir) {
            return ChildPeers.aeron(threading, java17.orElseThrow(), aeronTarget, logDir);
        }

        /** The KCP peer, logging into {@code logDir}. */
        public PeerProcess kcp(Path logDir) {
            return ChildPeers.kcp(kcpJar, logDir);
        }
    }

    /** Why the Aeron peer cannot run here, or empty when it can. */
    public static Optional<String> aeronUnavailable(Optional<Path> java17, Path target) {
        if (java17.isEmpty()) {
            return Optional.of("no JDK " + AERON_JDK + " under /usr/lib/jvm (Aeron 1.47.4 fails on JDK 25; give one with --jdk17)");
        }
        if (aeronClassPath(target).isEmpty()) {
            return Optional.of("Aeron peer not built in " + target + " (./mvnw -pl benchmarks -am package)");
        }
        return Optional.empty();
    }

    /** Why the KCP peer cannot run here, or empty when it can. */
    public static Optional<String> kcpUnavailable(Path kcpJar) {
        return Files.isReadable(kcpJar) ? Optional.empty()
                : Optional.of("KCP peer jar " + kcpJar + " not built (./mvnw -pl benchmarks -am package)");
    }

    /**
     * The Aeron peer with a media driver of the given threading mode.
     *
     * @param threading {@code SHARED} or {@code DEDICATED}
     */
    public static PeerProcess aeron(String threading, Path java17, Path target, Path logDir) {
        Path aeronDir = aeronDir(threading);
        List<String> jvm = List.of("-Xmx512m",
                "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/java.nio=ALL-UNNAMED",
                "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED");
        List<String> command = JavaCommand.command(java17, aeronClassPath(target), jvm, AERON_MAIN,
                List.of(threading.toUpperCase(Locale.ROOT), aeronDir.toString()));
        return new PeerProcess("aeron-" + threading.toLowerCase(Locale.ROOT), command, logDir);
    }

    /** The KCP peer: this harness's class path plus the KCP jar, on this JVM's {@code java}. */
    public static PeerProcess kcp(Path kcpJar, Path logDir) {
        List<String> classPath = new ArrayList<>(JavaCommand.harnessClassPath());
        classPath.add(kcpJar.toString());
        List<String> jvm = new ArrayList<>(List.of("-Xmx512m"));
        if (JavaCommand.currentMajor() >= 23) {
            jvm.add("--sun-misc-unsafe-memory-access=allow"); // Netty 4.1 uses sun.misc.Unsafe: no warnings in the log
        }
        return new PeerProcess("kcp", JavaCommand.command(JavaCommand.currentJava(), classPath, jvm, KcpPeer.class.getName(), List.of()),
                logDir);
    }

    /** The Aeron directory of one child: in /dev/shm when there is one, named after this process. */
    private static Path aeronDir(String threading) {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
        return base.resolve("rudp-bench-aeron-" + ProcessHandle.current().pid() + "-" + threading.toLowerCase(Locale.ROOT));
    }

    /** Deletes the Aeron directories this process's children may have left (a killed child cannot). */
    public static void deleteAeronDirs() {
        for (String threading : List.of("shared", "dedicated")) {
            Path dir = aeronDir(threading);
            if (!Files.exists(dir)) {
                continue;
            }
            try (Stream<Path> paths = Files.walk(dir)) {
                paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                System.err.println("could not delete " + dir + ": " + e);
            }
        }
    }
}
