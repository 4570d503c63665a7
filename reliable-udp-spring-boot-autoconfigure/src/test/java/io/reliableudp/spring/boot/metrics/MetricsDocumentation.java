package io.reliableudp.spring.boot.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the node meter tables of docs/metrics.md (the ones {@code MeterSpec} lists, before the listener
 * containers' section): Micrometer name to Prometheus name(s).
 */
final class MetricsDocumentation {

    private static final Pattern ROW = Pattern.compile("^\\| `(reliable\\.udp\\.[a-z.]+)` \\|([^|]*)\\|([^|]*)\\|([^|]*)\\|([^|]*)\\|");
    private static final Pattern CODE = Pattern.compile("`([a-z_]+)`");

    private MetricsDocumentation() {
    }

    /** Where the listener containers' meters start: they are not node meters. */
    private static final String LISTENER_SECTION = "### Listener containers";

    private static List<String> nodeMeterLines() throws IOException {
        List<String> lines = Files.readAllLines(docs());
        int end = lines.indexOf(LISTENER_SECTION);
        return end < 0 ? lines : lines.subList(0, end);
    }

    static Path docs() {
        Path p = Path.of("docs/metrics.md");
        return Files.exists(p) ? p : Path.of("../docs/metrics.md");
    }

    /** Micrometer name -> documented type column. */
    static Map<String, String> types() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : nodeMeterLines()) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                out.put(m.group(1), m.group(2).trim());
            }
        }
        return out;
    }

    /** Micrometer name -> Prometheus names documented (first one is the full name, suffixes expanded). */
    static Map<String, List<String>> prometheusNames() throws IOException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String line : nodeMeterLines()) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                List<String> names = new java.util.ArrayList<>();
                Matcher c = CODE.matcher(m.group(5));
                String base = null;
                while (c.find()) {
                    String n = c.group(1);
                    if (n.startsWith("_") && base != null) {
                        n = base.substring(0, base.lastIndexOf('_')) + n;
                    } else if (base == null) {
                        base = n;
                    }
                    names.add(n);
                }
                out.put(m.group(1), names);
            }
        }
        return out;
    }
}
