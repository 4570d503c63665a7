package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * Real kernel loss: a network namespace made by the test, whose loopback drops a share of UDP
 * datagrams with nftables ({@code numgen random mod 100 < N drop}); a child JVM runs both nodes
 * inside it. Needs root, {@code ip} and {@code nft}; skipped with a message otherwise.
 */
@Timeout(180)
class LossyNetworkTest {

    private static final int LOSS_PERCENT = Integer.getInteger("lossy.percent", 10);
    private static final int MESSAGES = Integer.getInteger("lossy.messages", 2000);
    private static String namespace;

    @BeforeAll
    static void makeNamespace() throws Exception {
        String user = System.getProperty("user.name");
        Assumptions.assumeTrue("root".equals(user) || isRoot(), "skipped: the lossy-network test needs root (network namespaces, nftables)");
        Assumptions.assumeTrue(onPath("ip"), "skipped: iproute2 ('ip') is not installed");
        Assumptions.assumeTrue(onPath("nft"), "skipped: nftables ('nft') is not installed");
        namespace = "rudp-lossy-" + ProcessHandle.current().pid();
        run("ip", "netns", "add", namespace);
        run("ip", "-n", namespace, "link", "set", "lo", "up");
        run("ip", "netns", "exec", namespace, "nft", "add", "table", "inet", "rudp");
        run("ip", "netns", "exec", namespace, "nft", "add", "chain", "inet", "rudp", "out",
                "{ type filter hook output priority 0; }");
        run("ip", "netns", "exec", namespace, "nft", "add", "rule", "inet", "rudp", "out", "oif", "lo",
                "meta", "l4proto", "udp", "numgen", "random", "mod", "100", "<", String.valueOf(LOSS_PERCENT), "drop");
    }

    @AfterAll
    static void deleteNamespace() throws Exception {
        if (namespace != null) {
            run("ip", "netns", "del", namespace);
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

    @ParameterizedTest(name = "mode={0}")
    @ValueSource(strings = {"plain", "psk"})
    void everyReliableMessageArrivesInOrderThroughKernelLoss(String mode) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", namespace, java,
                "-cp", System.getProperty("java.class.path"), LossyPeerMain.class.getName(), String.valueOf(MESSAGES), mode));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        System.out.println("lossy network (" + LOSS_PERCENT + "% drop each way, " + mode + "): " + out.trim());
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("RESULT received=" + MESSAGES + " ordered=true");
        assertThat(out).doesNotContain("resent=0 ");
    }
}
