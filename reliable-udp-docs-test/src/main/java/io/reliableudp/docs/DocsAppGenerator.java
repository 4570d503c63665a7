package io.reliableudp.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the docs-only app: every fenced code block of a Markdown file that follows a marker
 * {@code <!-- docs-app: relative/path -->} becomes that file of a new project, as written in the doc
 * (no template, no substitution), so the project is exactly what a reader copying the doc gets. The
 * generator fails, naming the line, when a marker has no code block, a path repeats or leaves the
 * project, the project has no {@code pom.xml} or no test, or the pom does not name the version being
 * built (the doc's dependency snippet must be the release it documents). On the getting-started page
 * every Java, XML, YAML and properties block must be marked ({@link #unmarkedSourceBlocks}): a snippet
 * of that page that is not part of the project would be one the build never compiles.
 */
public final class DocsAppGenerator {

    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*docs-app:\\s*(\\S+)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*```.*$");
    private static final Pattern EXCERPT = Pattern.compile("^\\s*<!--\\s*excerpt-of:\\s*(\\S+)\\s*-->\\s*$");
    private static final Pattern OPENING_FENCE = Pattern.compile("^\\s*```\\s*(\\S*).*$");
    /** Info strings of the blocks that are source of the project (shell commands and output are not). */
    private static final Set<String> SOURCE_LANGUAGES = Set.of("java", "xml", "yaml", "yml", "properties");

    private DocsAppGenerator() {
    }

    /**
     * Extracts the marked snippets.
     *
     * @param markdown the document's text
     * @return relative path to file content, in document order
     * @throws IllegalArgumentException naming the line of a malformed or repeated marker
     */
    public static Map<String, String> extract(String markdown) {
        List<String> lines = markdown.lines().toList();
        Map<String, String> files = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = MARKER.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            String path = m.group(1);
            if (path.startsWith("/") || path.contains("..") || path.contains("\\")) {
                throw new IllegalArgumentException("line " + (i + 1) + ": '" + path + "' must be a relative path inside the project");
            }
            int open = i + 1;
            while (open < lines.size() && lines.get(open).isBlank()) {
                open++;
            }
            if (open >= lines.size() || !FENCE.matcher(lines.get(open)).matches()) {
                throw new IllegalArgumentException("line " + (i + 1) + ": the marker for '" + path + "' is not followed by a code block");
            }
            List<String> body = new ArrayList<>();
            int close = open + 1;
            while (close < lines.size() && !FENCE.matcher(lines.get(close)).matches()) {
                body.add(lines.get(close));
                close++;
            }
            if (close >= lines.size()) {
                throw new IllegalArgumentException("line " + (open + 1) + ": the code block of '" + path + "' is not closed");
            }
            if (files.put(path, String.join("\n", body) + "\n") != null) {
                throw new IllegalArgumentException("line " + (i + 1) + ": '" + path + "' is marked twice");
            }
            i = close;
        }
        return files;
    }

    /**
     * Finds the source blocks (Java, XML, YAML, properties) that no marker names.
     *
     * @param markdown the document's text
     * @return a description per unmarked block ("line N (java)"), in document order; empty when all are marked
     */
    public static List<String> unmarkedSourceBlocks(String markdown) {
        List<String> lines = markdown.lines().toList();
        List<String> unmarked = new ArrayList<>();
        boolean marked = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (MARKER.matcher(line).matches()) {
                marked = true;
                continue;
            }
            Matcher open = OPENING_FENCE.matcher(line);
            if (open.matches()) {
                String language = open.group(1).toLowerCase(java.util.Locale.ROOT);
                if (!marked && SOURCE_LANGUAGES.contains(language)) {
                    unmarked.add("line " + (i + 1) + " (" + language + ")");
                }
                int close = i + 1;
                while (close < lines.size() && !FENCE.matcher(lines.get(close)).matches()) {
                    close++;
                }
                i = close;
                marked = false;
            } else if (!line.isBlank()) {
                marked = false;
            }
        }
        return unmarked;
    }

    /**
     * Checks the excerpts of another page (the README) against the project: every block after a marker
     * {@code <!-- excerpt-of: docs/getting-started.md -->} must consist of lines of the project's files,
     * in their order (compared without leading and trailing blanks; lines may be left out between
     * them, as an excerpt does). So a shortened example elsewhere cannot say what the compiled project
     * does not.
     *
     * @param page the text of the page with the excerpts
     * @param files the project's files, in document order ({@link #extract})
     * @return one sentence per excerpt line that the project does not have at that point; empty when all match
     */
    public static List<String> excerptProblems(String page, Map<String, String> files) {
        List<String> source = new ArrayList<>();
        for (String content : files.values()) {
            content.lines().map(String::strip).forEach(source::add);
        }
        List<String> lines = page.lines().toList();
        List<String> problems = new ArrayList<>();
        int excerpts = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (!EXCERPT.matcher(lines.get(i)).matches()) {
                continue;
            }
            excerpts++;
            int open = i + 1;
            while (open < lines.size() && lines.get(open).isBlank()) {
                open++;
            }
            if (open >= lines.size() || !FENCE.matcher(lines.get(open)).matches()) {
                problems.add("line " + (i + 1) + ": the excerpt marker is not followed by a code block");
                continue;
            }
            int at = 0;
            int close = open + 1;
            for (; close < lines.size() && !FENCE.matcher(lines.get(close)).matches(); close++) {
                String line = lines.get(close).strip();
                if (line.isEmpty()) {
                    continue;
                }
                int found = source.subList(at, source.size()).indexOf(line);
                if (found < 0) {
                    problems.add("line " + (close + 1) + ": '" + line + "' is not in the project"
                            + (source.contains(line) ? " after the excerpt's previous line" : ""));
                } else {
                    at += found + 1;
                }
            }
            i = close;
        }
        if (excerpts == 0) {
            problems.add("the page has no <!-- excerpt-of: ... --> marker");
        }
        return problems;
    }

    /**
     * Checks that the snippets make a project of the given version with a test.
     *
     * @param files the extracted files
     * @param version the version being built, which the pom must name
     * @throws IllegalArgumentException saying what is missing
     */
    public static void check(Map<String, String> files, String version) {
        String pom = files.get("pom.xml");
        if (pom == null) {
            throw new IllegalArgumentException("the doc marks no pom.xml (<!-- docs-app: pom.xml -->)");
        }
        if (!pom.contains("<version>" + version + "</version>")) {
            throw new IllegalArgumentException("the doc's pom.xml does not name version " + version + " of the starter");
        }
        if (files.keySet().stream().noneMatch(p -> p.startsWith("src/test/java/") && p.endsWith(".java"))) {
            throw new IllegalArgumentException("the doc marks no test (src/test/java/...)");
        }
    }

    /**
     * Generates the project.
     *
     * @param args the Markdown file, the output directory, the version being built
     * @throws IOException when a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: DocsAppGenerator <doc.md> <output dir> <version>");
        }
        Path doc = Path.of(args[0]);
        Path out = Path.of(args[1]);
        String markdown = Files.readString(doc, StandardCharsets.UTF_8);
        Map<String, String> files = extract(markdown);
        check(files, args[2]);
        List<String> unmarked = unmarkedSourceBlocks(markdown);
        if (!unmarked.isEmpty()) {
            throw new IllegalArgumentException(doc + ": source blocks without a <!-- docs-app: path --> marker, so never compiled: "
                    + unmarked + " (mark them as files of the project, or move them to a reference page)");
        }
        if (Files.exists(out)) {
            try (var walk = Files.walk(out)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        for (Map.Entry<String, String> e : files.entrySet()) {
            Path target = out.resolve(e.getKey()).normalize();
            if (!target.startsWith(out.normalize())) {
                throw new IllegalArgumentException("'" + e.getKey() + "' leaves the project");
            }
            Files.createDirectories(target.getParent());
            Files.writeString(target, e.getValue(), StandardCharsets.UTF_8);
        }
        System.out.println("docs-app: wrote " + files.size() + " files from " + doc + " to " + out + ": " + files.keySet());
    }
}
