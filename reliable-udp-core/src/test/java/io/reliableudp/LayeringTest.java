package io.reliableudp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layers' dependencies point down only (transport -> connection -> message -> packet; link on its
 * own) and the core never names Spring. Checked on the sources, so a wrong import fails the build.
 */
class LayeringTest {

    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "packet", Set.of(),
            "link", Set.of(),
            "message", Set.of("packet"),
            "connection", Set.of("message", "packet"),
            "transport", Set.of("connection", "message", "packet", "link"));

    private static final Pattern REFERENCE = Pattern.compile("\\bio\\.reliableudp\\.([a-z]+)\\.");

    @Test
    void layersDependDownwardOnlyAndTheCoreNeverNamesSpring() throws IOException {
        Path root = Path.of("src/main/java/io/reliableudp");
        assertThat(root).isDirectory();
        List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> sources = Files.walk(root)) {
            for (Path file : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                Path relative = root.relativize(file);
                String layer = relative.getNameCount() > 1 ? relative.getName(0).toString() : "";
                String text = Files.readString(file);
                if (text.contains("org.springframework")) {
                    violations.add(relative + " names Spring");
                }
                if (layer.isEmpty()) {
                    continue;
                }
                Set<String> allowed = ALLOWED.get(layer);
                assertThat(allowed).as("unknown layer package %s: add it to LayeringTest", layer).isNotNull();
                Matcher m = REFERENCE.matcher(text);
                while (m.find()) {
                    String target = m.group(1);
                    if (!target.equals(layer) && !allowed.contains(target)) {
                        violations.add(relative + " (" + layer + ") uses " + target);
                    }
                }
            }
        }
        assertThat(files).isGreaterThan(40);
        assertThat(violations).isEmpty();
    }
}
