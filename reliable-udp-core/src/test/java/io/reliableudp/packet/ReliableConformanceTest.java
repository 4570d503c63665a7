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
        Path dir = resolveDirectory();
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".jsonl") && Files.isRegularFile(p)).sorted().toList();
        }
        if (files.isEmpty()) {
            String message = "no *.jsonl conformance file in " + dir;
            if (isCi()) {
                fail(message);
            }
            assumeTrue(false, message);
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

    private static Path resolveDirectory() {
        String configured = System.getProperty(PROPERTY, "").strip();
        String requested = configured.isEmpty() ? DEFAULT_DIR : configured;
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
        for (Path candidate : candidates) {
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        String message = "conformance vectors not found: " + PROPERTY + "=" + requested + " (looked in " + candidates
                + "); set -D" + PROPERTY + "=DIR to the folder of the recorded *.jsonl files";
        if (isCi()) {
            fail(message + " (CI=true: a missing folder fails the build)");
        }
        assumeTrue(false, message);
        throw new IllegalStateException("unreachable");
    }

    private static boolean isCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }
}
