package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A policer in the real kernel: a network namespace made by the test whose loopback drops the
 * datagrams to the receiver's port above {@value #LIMIT_KBYTES} kbytes/s (nftables
 * {@code limit rate over N kbytes/second drop}: it drops, it does not queue). A child JVM inside it
 * runs a bulk sender and its receiver over real sockets ({@link PolicerPeerMain}), once with the
 * default controller and once with Gaffer's. The default must find the policed rate through the
 * delivery rate: goodput at least 80 % of the limit, and its loss (data packets never acknowledged
 * / sent) no more than Gaffer's. Needs root, {@code ip} and {@code nft}; skipped with a message otherwise.
 */
@Timeout(120)
class PolicerTest {

    static final int LIMIT_KBYTES = 200;
    private static final double SECONDS = 6;
    private static final Pattern RESULT = Pattern.compile(
            "RESULT controller=(\\w+) goodput=(\\d+) sent=(\\d+) settledSent=(\\d+) lost=(\\d+) loss=([\\d.]+) steadyLoss=([\\d.]+)");
    private static String namespace;

    @BeforeAll
    static void makeNamespace() throws Exception {
        Assumptions.assumeTrue(isRoot(), "skipped: the policer test needs root (network namespaces, nftables)");
        Assumptions.assumeTrue(onPath("ip"), "skipped: iproute2 ('ip') is not installed");
        Assumptions.assumeTrue(onPath("nft"), "skipped: nftables ('nft') is not installed");
        namespace = "rudp-policer-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", namespace);
        try {
            run("ip", "-n", namespace, "link", "set", "lo", "up");
            run("ip", "netns", "exec", namespace, "nft", "add", "table", "inet", "rudp");
            run("ip", "netns", "exec", namespace, "nft", "add", "chain", "inet", "rudp", "out",
                    "{ type filter hook output priority 0; }");
            run("ip", "netns", "exec", namespace, "nft", "add", "rule", "inet", "rudp", "out", "oif", "lo", "udp", "dport",
                    String.valueOf(PolicerPeerMain.RECEIVER_PORT), "limit", "rate", "over", LIMIT_KBYTES + " kbytes/second", "drop");
        } catch (Exception e) {
            deleteNamespace();
            throw e;
        }
    }

    @AfterAll
    static void deleteNamespace() throws Exception {
        if (namespace != null) {
            run("ip", "netns", "del", namespace);
            namespace = null;
        }
    }

    private static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 && out.equals("0");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static boolean onPath(String command) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        for (String dir : List.of("/usr/sbin", "/sbin")) {
            if (Files.isExecutable(Path.of(dir, command))) {
                return true;
            }
        }
        return false;
    }

    private static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    /** One run in the namespace: {goodput B/s, loss, steady loss}. */
    private static double[] runChild(MessageConfig.CongestionControl controller) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder("ip", "netns", "exec", namespace, java, "-cp", System.getProperty("java.class.path"),
                PolicerPeerMain.class.getName(), controller.name(), String.valueOf(SECONDS)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child finished").isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        Matcher m = RESULT.matcher(out);
        assertThat(m.find()).as(out).isTrue();
        return new double[] {Double.parseDouble(m.group(2)), Double.parseDouble(m.group(6)), Double.parseDouble(m.group(7))};
    }

    @Test
    void theDefaultFindsThePolicedRateThroughTheDeliveryRate() throws Exception {
        double[] deliveryRate = runChild(MessageConfig.CongestionControl.DELIVERY_RATE);
        double[] gaffer = runChild(MessageConfig.CongestionControl.GAFFER);
        double limit = LIMIT_KBYTES * 1024.0;
        System.out.printf("policer %d kbytes/s (nftables, real sockets): DELIVERY_RATE goodput %.0f B/s (%.0f%% of the limit), loss %.1f%%"
                + " (%.1f%% after 2 s); GAFFER goodput %.0f B/s (%.0f%%), loss %.1f%% (%.1f%% after 2 s)%n", LIMIT_KBYTES,
                deliveryRate[0], 100 * deliveryRate[0] / limit, 100 * deliveryRate[1], 100 * deliveryRate[2], gaffer[0],
                100 * gaffer[0] / limit, 100 * gaffer[1], 100 * gaffer[2]);
        assertThat(deliveryRate[0]).isGreaterThanOrEqualTo(0.8 * limit);
        assertThat(deliveryRate[1]).isLessThanOrEqualTo(gaffer[1]);
    }
}
