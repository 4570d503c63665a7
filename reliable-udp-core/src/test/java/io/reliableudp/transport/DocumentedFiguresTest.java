package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.connection.Connection;
import io.reliableudp.message.MessageConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The figures the docs give for the handshake budgets and the connection layer's overhead are the
 * code's: the constants are the one source, and this test reads every page that states them and
 * fails when a page says another number (as operations.md once said a burst of 1,000 while the code
 * allowed 10,000).
 */
class DocumentedFiguresTest {

    private static final List<String> PAGES = List.of("operations.md", "connection.md", "spec.md", "scale-out.md");

    /** "10,000 per second with a burst of 10,000", "1,000/s (burst 1,000)", "10 000 per second, burst 10 000". */
    private static final Pattern RATE_AND_BURST = Pattern.compile(
            "(\\d{1,3}(?:[, ]\\d{3})*)\\s*(?:/s|\\s(?:handshake messages\\s+)?(?:per|a)\\s+second)[^.;|]{0,40}?burst(?:\\s+of)?\\s+(\\d{1,3}(?:[, ]\\d{3})*)");

    private static long number(String s) {
        return Long.parseLong(s.replace(",", "").replace(" ", ""));
    }

    private static String page(String name) {
        for (Path p : List.of(Path.of("docs", name), Path.of("..", "docs", name))) {
            if (Files.isRegularFile(p)) {
                try {
                    return Files.readString(p, StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new AssertionError("docs/" + name + " not found from " + Path.of("").toAbsolutePath());
    }

    @Test
    void everyHandshakeBudgetTheDocsStateIsTheCodes() {
        List<Long> node = List.of((long) Acceptor.HANDSHAKES_PER_SECOND, (long) Acceptor.HANDSHAKE_BURST);
        List<Long> source = List.of((long) SourceBudget.HANDSHAKES_PER_SECOND, (long) SourceBudget.HANDSHAKE_BURST);
        List<String> wrong = new ArrayList<>();
        int nodeFigures = 0;
        int sourceFigures = 0;
        for (String name : PAGES) {
            Matcher m = RATE_AND_BURST.matcher(page(name));
            while (m.find()) {
                List<Long> stated = List.of(number(m.group(1)), number(m.group(2)));
                if (stated.equals(node)) {
                    nodeFigures++;
                } else if (stated.equals(source)) {
                    sourceFigures++;
                } else {
                    wrong.add(name + ": \"" + m.group().replaceAll("\\s+", " ") + "\"");
                }
            }
        }
        assertThat(wrong).as("budgets stated in the docs that are neither the node's %s nor a source's %s", node, source)
                .isEmpty();
        assertThat(nodeFigures).as("statements of the node's budget found").isGreaterThanOrEqualTo(5);
        assertThat(sourceFigures).as("statements of the per-source budget found").isGreaterThanOrEqualTo(3);
        assertThat(SourceBudget.SLOTS).isEqualTo(1024); // the table size operations.md and connection.md give
        assertThat(page("operations.md")).contains("1,024 slots");
        assertThat(page("connection.md")).contains("1,024 slots");
    }

    @Test
    void theFrameOverheadAndTheSizesDerivedFromItAreTheCodes() {
        int plain = Connection.frameOverhead(false);
        int encrypted = Connection.frameOverhead(true);
        assertThat(page("connection.md")).contains("`lowerLayerOverhead = " + plain + "` (plain) or `" + encrypted + "` (encrypted)")
                .contains(plain + " bytes of overhead\nplain");
        String spec = page("spec.md");
        assertThat(spec).contains("(`lowerLayerOverhead` = " + plain + " plain, " + encrypted + " encrypted)")
                .contains("| connection overhead (`lowerLayerOverhead`) | plain " + plain + ", encrypted " + encrypted + " |");
        assertThat(page("operations.md")).contains("the connection layer's frame (" + plain + " bytes, or " + encrypted + " with encryption)");

        // spec section 6's sizes, from the message layer's own arithmetic at the default budget
        int budget = MessageConfig.defaults().datagramBudget();
        int wirePlain = budget - plain;
        int wireEncrypted = budget - encrypted;
        assertThat(spec).contains("budget − overhead: " + wirePlain + " plain, " + wireEncrypted + " encrypted")
                .contains("`wire − 9`: " + (wirePlain - 9) + " plain, " + (wireEncrypted - 9) + " encrypted")
                .contains("`wire − 5 − 9`: " + (wirePlain - 14) + " plain, " + (wireEncrypted - 14) + " encrypted")
                .contains("16 × fragment size: " + 16 * (wirePlain - 14) + " plain, " + 16 * (wireEncrypted - 14) + " encrypted")
                .contains("16 × fragment size − 8: " + (16 * (wirePlain - 14) - 8) + " plain, "
                        + (16 * (wireEncrypted - 14) - 8) + " encrypted");
    }
}
