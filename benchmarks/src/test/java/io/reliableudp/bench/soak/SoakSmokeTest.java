package io.reliableudp.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The CI-sized soak: 200,000 reliable-ordered messages over loopback sockets through 30% loss, 5%
 * duplication, 10% reordering and 5 ms jitter each way (the long run's settings, 1/50 of its size; about
 * 10 s on a loaded 2-core machine). Every message arrives once and in order, and the heap after GC at
 * 10% and at 100% of the run is within 10%. No figure of speed is asserted: the machine may be busy.
 */
class SoakSmokeTest {

    @Test
    @Timeout(120)
    void twoHundredThousandMessagesThroughABadLinkArriveOnceInOrderWithAFlatHeap() throws Exception {
        Path out = Path.of("target", "smoke-soak");
        String line = SoakBench.run("--messages", "200000", "--report-every", "20000", "--out", out.toString());
        JsonNode r = new ObjectMapper().readTree(line).path("results").path("reliable-udp");
        assertThat(r.path("error").isMissingNode()).as(r.path("error").toString()).isTrue();
        assertThat(r.path("sent").asLong()).isEqualTo(200_000);
        assertThat(r.path("received").asLong()).isEqualTo(200_000);
        assertThat(r.path("lost").asLong()).isZero();
        assertThat(r.path("duplicated").asLong()).isZero();
        assertThat(r.path("out_of_order").asLong()).isZero();
        assertThat(r.path("corrupted").asLong()).isZero();
        assertThat(r.path("resent").asLong()).as("the link really lost datagrams").isPositive();
        assertThat(Math.abs(r.path("heap_growth_percent").asDouble())).as("heap after GC, 10% vs 100%").isLessThanOrEqualTo(10);
        assertThat(r.path("passed").asInt()).isEqualTo(1);
        assertThat(r.path("msg_per_s").asDouble()).isPositive();
        assertThat(out.resolve("soak.json")).content().isEqualToIgnoringNewLines(line);
    }

    @Test
    void aGapInTheSequenceIsReportedAsAFailureNotHidden() throws Exception {
        // the checker itself: feed it a sequence with a gap and a duplicate and see both counted
        SoakBench.Checker c = new SoakBench.Checker(8);
        for (long n : new long[] {0, 1, 3, 3, 2, 4}) {
            c.accept(SoakBench.encode(n, 8));
        }
        c.accept(new byte[3]);
        assertThat(c.received()).isEqualTo(4); // 0, 1, 3 (after a gap), 4
        assertThat(c.outOfOrder()).isEqualTo(1);
        assertThat(c.duplicated()).isEqualTo(2); // the second 3, and 2 arriving after 3
        assertThat(c.corrupted()).isEqualTo(1);
        assertThat(Files.exists(Path.of("target"))).isTrue();
    }
}
