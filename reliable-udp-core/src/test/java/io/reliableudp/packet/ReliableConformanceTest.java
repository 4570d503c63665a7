package io.reliableudp.packet;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Replays every {@code *.jsonl} conformance file recorded from the reference C library {@code reliable}
 * 1.4.0 (folder: system property {@code reliable.conformance.dir}, default
 * {@code ../shared/conformance/reliable} beside the project) and checks every emitted byte, receive
 * outcome, counter delta, processed payload, new ack and state record, statistics as float32 exactly.
 *
 * <p>Run alone: {@code ./mvnw -B -pl reliable-udp-core test -Dtest=ReliableConformanceTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dreliable.conformance.dir=DIR}. A relative {@code DIR} is
 * resolved against the working directory and, since surefire runs in the module folder, against its
 * parent (the project root). A missing folder skips the test, or fails it when {@code CI=true}.
 */
class ReliableConformanceTest {

    static final String PROPERTY = "reliable.conformance.dir";
    static final String DEFAULT_DIR = "../shared/conformance/reliable";

    @TestFactory
    Stream<DynamicNode> conformanceVectors() throws IOException {
        Path dir = vectorDir();
        if (dir == null) {
            return missing(missingMessage());
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".jsonl") && Files.isRegularFile(p)).sorted().toList();
        }
        if (files.isEmpty()) {
            return missing("no *.jsonl conformance file in " + dir);
        }
        List<DynamicNode> nodes = new ArrayList<>();
        for (Path file : files) {
            List<DynamicTest> tests = ConformanceReplay.cases(file).stream()
                    .map(c -> DynamicTest.dynamicTest(c.name(), c.executable()))
                    .toList();
            nodes.add(DynamicContainer.dynamicContainer(file.getFileName().toString(), tests.stream()));
        }
        return nodes.stream();
    }

    /** One test that is skipped with the message, or fails when {@code CI=true}. */
    private static Stream<DynamicNode> missing(String message) {
        System.err.println("ReliableConformanceTest: " + message + (isCi() ? " (CI=true: failing)" : " (skipped)"));
        return Stream.of(DynamicTest.dynamicTest("conformance vectors", () -> {
            if (isCi()) {
                fail(message + " (CI=true: a missing folder fails the build)");
            }
            assumeTrue(false, message);
        }));
    }

    /** The vector folder named by the system property (or the default), or null when it does not exist. */
    static Path vectorDir() {
        return candidates(requested()).stream().filter(Files::isDirectory).findFirst().orElse(null);
    }

    static String missingMessage() {
        String requested = requested();
        return "conformance vectors not found: " + PROPERTY + "=" + requested + " (looked in " + candidates(requested)
                + "); set -D" + PROPERTY + "=DIR to the folder of the recorded *.jsonl files";
    }

    private static String requested() {
        String configured = System.getProperty(PROPERTY, "").strip();
        return configured.isEmpty() ? DEFAULT_DIR : configured;
    }

    private static List<Path> candidates(String requested) {
        Path path = Path.of(requested);
        List<Path> candidates = new ArrayList<>();
        if (path.isAbsolute()) {
            candidates.add(path);
        } else {
            Path cwd = Path.of("").toAbsolutePath();
            candidates.add(cwd.resolve(path).normalize());
            if (cwd.getParent() != null) {
                candidates.add(cwd.getParent().resolve(path).normalize());
            }
        }
        return candidates;
    }

    static boolean isCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }
}
