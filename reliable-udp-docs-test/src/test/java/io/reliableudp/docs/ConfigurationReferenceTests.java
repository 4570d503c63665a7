package io.reliableudp.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/configuration.md} is the configuration metadata, rendered: the test fails, naming the
 * properties, when the page's generated table differs from what {@link ConfigurationReference} renders
 * from the metadata on the class path; with {@code -Dconfiguration.doc.write=true} it writes the table
 * into the page instead (the refresh command at the top of the page).
 */
class ConfigurationReferenceTests {

    static final String REFRESH = "./mvnw -B -q -pl reliable-udp-docs-test -am test -Dtest=ConfigurationReferenceTests"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dconfiguration.doc.write=true";

    private static Path page() {
        return Path.of(System.getProperty("configuration.doc", "../docs/configuration.md"));
    }

    @Test
    void thePageIsTheMetadata() throws Exception {
        String rendered = ConfigurationReference.fromClasspath().render();
        String page = Files.readString(page(), StandardCharsets.UTF_8);
        if (Boolean.getBoolean("configuration.doc.write")) {
            Files.writeString(page(), ConfigurationReference.replaceRegion(page, rendered), StandardCharsets.UTF_8);
            page = Files.readString(page(), StandardCharsets.UTF_8);
        }
        String onPage = ConfigurationReference.region(page);
        List<String> stale = ConfigurationReference.staleProperties(onPage, rendered);
        assertThat(stale).as("%s is stale against the configuration metadata; refresh it with%n  %s%n", page(), REFRESH).isEmpty();
        assertThat(onPage).as("%s: the generated table's layout differs; refresh it with%n  %s%n", page(), REFRESH).isEqualTo(rendered);
        assertThat(page).as("the page names its refresh command").contains(REFRESH);
    }

    @Test
    void everyPropertyHasADescription() throws Exception {
        assertThat(ConfigurationReference.fromClasspath().withoutDescription())
                .as("properties without a description in the metadata (javadoc @param of the properties record, or "
                        + "additional-spring-configuration-metadata.json)").isEmpty();
    }

    @Test
    void theEntriesOfMapsAreDescribedAsTheirRecordsHaveThem() throws Exception {
        assertThat(ConfigurationReference.fromClasspath().mapEntryProblems()).isEmpty();
    }

    @Test
    void theMetadataHasTheKnownPropertiesWithTheirDefaults() throws Exception {
        var properties = ConfigurationReference.fromClasspath().properties();
        assertThat(properties).containsKeys("reliable-udp.port", "reliable-udp.channels.*.index", "reliable-udp.peers.*.address",
                "reliable-udp.health.max-rtt", "reliable-udp.metrics.refresh-interval", "reliable-udp.types.mappings",
                "management.health.reliable-udp.enabled", "management.endpoint.reliableudp.access");
        assertThat(properties.get("reliable-udp.message.datagram-budget").defaultValue()).isEqualTo("1200");
        assertThat(properties.get("reliable-udp.timeout").defaultValue()).isEqualTo("5s");
        assertThat(properties.get("reliable-udp.channels.*.delivery-mode").defaultValue()).isEqualTo("reliable-ordered");
        assertThat(properties).noneSatisfy((name, p) -> assertThat(name).startsWith("spring."));
    }

    @Test
    void staleRowsAreNamed() {
        String expected = ConfigurationReference.BEGIN + "\n| `a.x` | int | `1` | X. |\n| `a.y` | int | `2` | Y. |\n" + ConfigurationReference.END;
        String page = ConfigurationReference.BEGIN + "\n| `a.x` | int | `3` | X. |\n| `a.z` | int | | Z. |\n" + ConfigurationReference.END;
        assertThat(ConfigurationReference.staleProperties(page, expected)).containsExactly(
                "not on the page: [a.y]", "on the page but not in the metadata: [a.z]", "type, default or description changed: [a.x]");
        assertThat(ConfigurationReference.staleProperties(expected, expected)).isEmpty();
        assertThat(ConfigurationReference.replaceRegion("intro\n" + page + "\nafter\n", expected)).isEqualTo("intro\n" + expected + "\nafter\n");
        assertThatIllegalArgumentException().isThrownBy(() -> ConfigurationReference.region("no markers"));
    }

    @Test
    void typesReadAsTheyAreWritten() {
        assertThat(ConfigurationReference.typeName("java.lang.Boolean")).isEqualTo("`boolean`");
        assertThat(ConfigurationReference.typeName("java.time.Duration")).isEqualTo("`Duration`");
        assertThat(ConfigurationReference.typeName("io.reliableudp.message.DeliveryMode"))
                .isEqualTo("`reliable-ordered`, `reliable-unordered`, `unreliable`, `unreliable-sequenced`");
        assertThat(ConfigurationReference.typeName("org.springframework.boot.actuate.endpoint.Access"))
                .isEqualTo("`none`, `read-only`, `unrestricted`");
        assertThat(ConfigurationReference.typeName("java.util.Map<java.lang.String,java.lang.String>")).isEqualTo("`Map<String, String>`");
        assertThat(ConfigurationReference.typeName("java.util.List<java.lang.String>")).isEqualTo("`List<String>`");
        assertThat(ConfigurationReference.typeName("com.example.Unknown")).isEqualTo("`Unknown`");
    }
}
