package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.testsupport.NetworkNamespace;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Time-to-live over real sockets: a network namespace made by the test whose loopback drops 20 % of
 * UDP datagrams with nftables, and, one second into the stream, drops all of them for one second (a
 * second nftables table, deleted again). A child JVM streams messages with a 50 ms time-to-live
 * through it ({@link TimeToLivePeerMain} checks every promise per message); a future may fail
 * expired although its message arrived only when the path went black between the arrival and its
 * first ack (at most a few per outage). Needs root, {@code ip} and
 * {@code nft}; skipped with a message otherwise.
 */
@Timeout(180)
class TimeToLiveNetnsTest {

    private static final String BLACKHOLE = "rudpbh";
    private static NetworkNamespace namespace;

    @BeforeAll
    static void makeNamespace() throws Exception {
        NetworkNamespace.assumeAvailable("time-to-live");
        namespace = NetworkNamespace.withOutputRule("rudp-ttl", "oif", "lo",
                "meta", "l4proto", "udp", "numgen", "random", "mod", "100", "<", "20", "drop");
    }

    @AfterAll
    static void deleteNamespace() throws Exception {
        if (namespace != null) {
            namespace.close();
        }
    }

    @Test
    void aStreamWithA50MsTtlThroughLossAndABlackhole() throws Exception {
        Process p = namespace.javaChild(TimeToLivePeerMain.class, "50", "4").start();
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                out.append(line).append('\n');
                if (line.equals("STREAMING")) {
                    Thread.sleep(1000);
                    namespace.exec("nft", "add", "table", "inet", BLACKHOLE);
                    namespace.exec("nft", "add", "chain", "inet", BLACKHOLE, "out", "{ type filter hook output priority 1; }");
                    namespace.exec("nft", "add", "rule", "inet", BLACKHOLE, "out", "oif", "lo", "meta", "l4proto", "udp", "drop");
                    Thread.sleep(1000);
                    namespace.exec("nft", "delete", "table", "inet", BLACKHOLE);
                }
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        System.out.println("time-to-live through 20% loss and a 1 s blackhole: " + out.toString().trim());
        assertThat(p.exitValue()).as(out.toString()).isZero();
        Matcher m = Pattern.compile("expired=(\\d+) .*skipped=(\\d+) afterOutage=(\\d+) .*expiredButDelivered=(\\d+)").matcher(out);
        assertThat(m.find()).as(out.toString()).isTrue();
        assertThat(Integer.parseInt(m.group(1))).as("messages expired in the blackhole").isGreaterThan(100);
        assertThat(Integer.parseInt(m.group(2))).as("ids the receiver skipped").isGreaterThan(0);
        assertThat(Integer.parseInt(m.group(3))).as("ordered delivery went on after the blackhole").isGreaterThan(100);
        // the one case without evidence: delivered just as the path went black, every ack of it lost
        assertThat(Integer.parseInt(m.group(4))).as("expired futures of delivered messages").isLessThanOrEqualTo(3);
    }
}
