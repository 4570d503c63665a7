package io.reliableudp.docs;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.DefaultValue;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration reference of {@code docs/configuration.md}, rendered from the Spring configuration
 * metadata: every {@code META-INF/spring-configuration-metadata.json} on the classpath (the annotation
 * processor's output, with {@code additional-spring-configuration-metadata.json} merged in), of which
 * the properties of this project are kept: {@code reliable-udp.*} and the actuator switches
 * {@code management.endpoint.reliableudp.*}, {@code management.health.reliable-udp.*}. One table per
 * group (the metadata's groups, and one per map of records such as {@code reliable-udp.channels}),
 * one row per property with its type, default and description, as the metadata has them.
 *
 * <p>The processor cannot see inside map values (spring-projects/spring-boot#9945), so the entries of a
 * {@code Map<String, SomeRecord>} property are described in the additional metadata under the
 * map's name with {@code *} for the key ({@code reliable-udp.channels.*.index}) and shown as
 * {@code <name>}; {@link #mapEntryProblems()} checks them against the record's components.
 */
final class ConfigurationReference {

    static final String BEGIN = "<!-- generated: configuration -->";
    static final String END = "<!-- end generated -->";

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";
    private static final List<String> OWN_PREFIXES = List.of("reliable-udp.", "management.endpoint.reliableudp.",
            "management.health.reliable-udp.");
    private static final Pattern MAP_TYPE = Pattern.compile("java\\.util\\.Map<java\\.lang\\.String,(.+)>");
    private static final Pattern ROW_NAME = Pattern.compile("^\\| `([^`]+)` \\|");

    /** One property as the metadata has it. */
    record Property(String name, String type, String defaultValue, String description) {
    }

    private final Map<String, Property> properties;
    private final List<String> groups;

    private ConfigurationReference(Map<String, Property> properties, List<String> groups) {
        this.properties = properties;
        this.groups = groups;
    }

    /** Reads every metadata file on the class path of this class. */
    static ConfigurationReference fromClasspath() throws IOException {
        JsonMapper json = JsonMapper.builder().build();
        Map<String, Property> properties = new TreeMap<>();
        TreeSet<String> groups = new TreeSet<>();
        Enumeration<URL> files = ConfigurationReference.class.getClassLoader().getResources(METADATA);
        for (URL url : Collections.list(files)) {
            JsonNode root;
            try (InputStream in = url.openStream()) {
                root = json.readTree(in);
            }
            for (JsonNode g : root.path("groups")) {
                String name = g.path("name").asString();
                if (own(name + ".")) {
                    groups.add(name);
                }
            }
            for (JsonNode p : root.path("properties")) {
                String name = p.path("name").asString();
                if (!own(name) || p.has("deprecation")) {
                    continue;
                }
                JsonNode d = p.get("defaultValue");
                String def = d == null || d.isNull() ? "" : d.isArray() ? join(d) : d.isString() ? d.asString() : d.toString();
                properties.put(name, new Property(name, p.path("type").asString(), def, p.path("description").asString("").strip()));
            }
        }
        if (properties.isEmpty()) {
            throw new IllegalStateException("no reliable-udp property in any " + METADATA + " on the class path");
        }
        // a map of records is a group of its own: its entries are listed under it
        for (Property p : properties.values()) {
            if (recordOfMap(p.type()) != null) {
                groups.add(p.name());
            }
        }
        // a property of the additional metadata may have no group: its parent is one
        for (String name : properties.keySet()) {
            if (groups.stream().noneMatch(g -> name.startsWith(g + "."))) {
                groups.add(name.substring(0, name.lastIndexOf('.')));
            }
        }
        return new ConfigurationReference(properties, new ArrayList<>(groups));
    }

    private static String join(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asString()));
        return String.join(",", values);
    }

    private static boolean own(String name) {
        return OWN_PREFIXES.stream().anyMatch(name::startsWith);
    }

    Map<String, Property> properties() {
        return properties;
    }

    /** Properties whose metadata has no description (the javadoc or the additional metadata needs one). */
    List<String> withoutDescription() {
        return properties.values().stream().filter(p -> p.description().isBlank()).map(Property::name).toList();
    }

    /**
     * Checks the additional metadata of map entries against the records they bind to: every component
     * of the value record of a {@code Map<String, Record>} property has an entry {@code map.*.component}
     * with the component's type and {@code @DefaultValue}, and no entry names a component that is not there.
     *
     * @return one sentence per problem; empty when the metadata matches the classes
     */
    List<String> mapEntryProblems() {
        List<String> problems = new ArrayList<>();
        for (Property map : properties.values()) {
            Class<?> record = recordOfMap(map.type());
            if (record == null) {
                continue;
            }
            TreeSet<String> expected = new TreeSet<>();
            RecordComponent[] components = record.getRecordComponents();
            Parameter[] parameters = canonicalConstructor(record, components).getParameters();
            for (int i = 0; i < components.length; i++) {
                RecordComponent c = components[i];
                String name = map.name() + ".*." + dashed(c.getName());
                expected.add(name);
                Property entry = properties.get(name);
                String type = boxed(c.getType()).getName();
                // @DefaultValue targets parameters: on a record it lands on the canonical constructor's
                DefaultValue dv = parameters[i].getAnnotation(DefaultValue.class);
                String def = dv == null || dv.value().length == 0 ? "" : String.join(",", dv.value());
                if (entry == null) {
                    problems.add(name + " (" + record.getSimpleName() + "." + c.getName() + ") is not in the metadata: add it, with type "
                            + type + (def.isEmpty() ? "" : ", defaultValue " + def)
                            + " and a description, to additional-spring-configuration-metadata.json");
                    continue;
                }
                if (!entry.type().equals(type)) {
                    problems.add(name + ": the metadata says type " + entry.type() + ", the record " + type);
                }
                if (!entry.defaultValue().equals(def)) {
                    problems.add(name + ": the metadata says default '" + entry.defaultValue() + "', @DefaultValue '" + def + "'");
                }
            }
            for (String name : properties.keySet()) {
                if (name.startsWith(map.name() + ".*.") && !expected.contains(name)) {
                    problems.add(name + " is in the metadata but " + record.getSimpleName() + " has no such component");
                }
            }
        }
        return problems;
    }

    private static Constructor<?> canonicalConstructor(Class<?> record, RecordComponent[] components) {
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
        }
        try {
            return record.getDeclaredConstructor(types);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(record + " has no canonical constructor", e);
        }
    }

    private static Class<?> recordOfMap(String type) {
        Matcher m = MAP_TYPE.matcher(type);
        if (!m.matches() || !m.group(1).startsWith("io.reliableudp.")) {
            return null;
        }
        try {
            Class<?> c = Class.forName(m.group(1), false, ConfigurationReference.class.getClassLoader());
            return c.isRecord() ? c : null;
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("the metadata names " + m.group(1) + ", which is not on the class path", e);
        }
    }

    private static Class<?> boxed(Class<?> c) {
        if (!c.isPrimitive()) {
            return c;
        }
        return switch (c.getName()) {
            case "boolean" -> Boolean.class;
            case "int" -> Integer.class;
            case "long" -> Long.class;
            case "double" -> Double.class;
            case "float" -> Float.class;
            case "short" -> Short.class;
            case "byte" -> Byte.class;
            default -> Character.class;
        };
    }

    private static String dashed(String camel) {
        return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** The generated part of the page, from {@link #BEGIN} to {@link #END} inclusive. */
    String render() {
        Map<String, List<Property>> byGroup = new LinkedHashMap<>();
        for (String g : groups.stream().sorted(Comparator.comparing(ConfigurationReference::groupOrder)).toList()) {
            byGroup.put(g, new ArrayList<>());
        }
        for (Property p : properties.values()) {
            byGroup.get(groupOf(p.name())).add(p);
        }
        StringBuilder out = new StringBuilder(BEGIN).append('\n');
        for (Map.Entry<String, List<Property>> e : byGroup.entrySet()) {
            if (e.getValue().isEmpty()) {
                continue;
            }
            out.append("\n### `").append(shown(e.getKey())).append(recordOfMap(typeOf(e.getKey())) != null ? ".<name>.*" : ".*")
                    .append("`\n\n");
            if (e.getKey().equals("reliable-udp")) {
                out.append("The node: socket, connections, timing, threads; the maps of channels and named peers.\n\n");
            }
            out.append("| property | type | default | description |\n|---|---|---|---|\n");
            for (Property p : e.getValue()) {
                String type = recordOfMap(p.type()) != null ? "map: `" + shown(p.name()) + ".<name>.*` below" : typeName(p.type());
                out.append("| `").append(shown(p.name())).append("` | ").append(cell(type)).append(" | ")
                        .append(p.defaultValue().isEmpty() ? "" : "`" + p.defaultValue() + "`").append(" | ")
                        .append(cell(p.description())).append(" |\n");
            }
        }
        return out.append('\n').append(END).toString();
    }

    private String typeOf(String name) {
        Property p = properties.get(name);
        return p == null ? "" : p.type();
    }

    /** Top-level first, then the groups by name; the actuator switches last. */
    private static String groupOrder(String group) {
        return (group.startsWith("management.") ? "2" : group.equals("reliable-udp") ? "0" : "1") + group;
    }

    /** The longest group that is a prefix of the name (a map of records owns its entries, not the map itself). */
    private String groupOf(String name) {
        String best = null;
        for (String g : groups) {
            if (name.startsWith(g + ".") && (best == null || g.length() > best.length())) {
                best = g;
            }
        }
        if (best == null) {
            throw new IllegalStateException(name + " belongs to no group of the metadata");
        }
        return best;
    }

    private static String shown(String name) {
        return name.replace(".*.", ".<name>.");
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /**
     * A reader's name for a metadata type, as Markdown: Java's simple names in code spans, an enum as
     * its values written as in properties.
     */
    static String typeName(String type) {
        Matcher map = MAP_TYPE.matcher(type);
        if (map.matches()) {
            return "`Map<String, " + simple(map.group(1)) + ">`";
        }
        if (type.startsWith("java.util.List<")) {
            return "`List<" + simple(type.substring("java.util.List<".length(), type.length() - 1)) + ">`";
        }
        switch (type) {
            case "java.lang.Boolean": return "`boolean`";
            case "java.lang.Integer": return "`int`";
            case "java.lang.Long": return "`long`";
            case "java.lang.Double": return "`double`";
            case "java.time.Duration": return "`Duration`";
            case "org.springframework.util.unit.DataSize": return "`DataSize`";
            default: break;
        }
        try {
            Class<?> c = Class.forName(type, false, ConfigurationReference.class.getClassLoader());
            if (c.isEnum()) {
                List<String> values = new ArrayList<>();
                for (Object v : c.getEnumConstants()) {
                    values.add("`" + ((Enum<?>) v).name().toLowerCase(Locale.ROOT).replace('_', '-') + "`");
                }
                return String.join(", ", values);
            }
        } catch (ClassNotFoundException e) {
            // a type of a library not on this class path: its simple name
        }
        return "`" + simple(type) + "`";
    }

    private static String simple(String type) {
        String s = type.substring(type.lastIndexOf('.') + 1);
        return s.substring(s.lastIndexOf('$') + 1);
    }

    /**
     * The generated part of a page.
     *
     * @throws IllegalArgumentException when the page has not exactly one pair of markers
     */
    static String region(String page) {
        int begin = page.indexOf(BEGIN);
        int end = page.indexOf(END, Math.max(begin, 0));
        if (begin < 0 || end < 0 || page.indexOf(BEGIN, begin + 1) >= 0) {
            throw new IllegalArgumentException("the page needs one '" + BEGIN + "' ... '" + END + "' region");
        }
        return page.substring(begin, end + END.length());
    }

    /** The page with its generated part replaced by {@code region}. */
    static String replaceRegion(String page, String region) {
        String old = region(page);
        int begin = page.indexOf(old);
        return page.substring(0, begin) + region + page.substring(begin + old.length());
    }

    /** The rows of a generated part by property name (as shown, {@code <name>} for a map key). */
    static Map<String, String> rows(String region) {
        Map<String, String> rows = new TreeMap<>();
        for (String line : region.lines().toList()) {
            Matcher m = ROW_NAME.matcher(line);
            if (m.find()) {
                rows.put(m.group(1), line);
            }
        }
        return rows;
    }

    /**
     * What differs between a page's generated part and the metadata, property by property.
     *
     * @return sentences naming the properties missing from the page, on the page but not in the metadata,
     *     and shown with another type, default or description; empty when only the layout differs
     */
    static List<String> staleProperties(String pageRegion, String expectedRegion) {
        Map<String, String> page = rows(pageRegion);
        Map<String, String> expected = rows(expectedRegion);
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        for (Map.Entry<String, String> e : expected.entrySet()) {
            String row = page.get(e.getKey());
            if (row == null) {
                missing.add(e.getKey());
            } else if (!row.equals(e.getValue())) {
                changed.add(e.getKey());
            }
        }
        for (String name : page.keySet()) {
            if (!expected.containsKey(name)) {
                extra.add(name);
            }
        }
        List<String> out = new ArrayList<>();
        if (!missing.isEmpty()) {
            out.add("not on the page: " + missing);
        }
        if (!extra.isEmpty()) {
            out.add("on the page but not in the metadata: " + extra);
        }
        if (!changed.isEmpty()) {
            out.add("type, default or description changed: " + changed);
        }
        return out;
    }
}
