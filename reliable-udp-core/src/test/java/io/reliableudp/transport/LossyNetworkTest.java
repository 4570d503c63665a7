package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.testsupport.NetworkNamespace;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
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
    private static NetworkNamespace namespace;

    @BeforeAll
    static void makeNamespace() throws Exception {
        NetworkNamespace.assumeAvailable("lossy-network");
        namespace = NetworkNamespace.withOutputRule("rudp-lossy", "oif", "lo",
                "meta", "l4proto", "udp", "numgen", "random", "mod", "100", "<", String.valueOf(LOSS_PERCENT), "drop");
    }

    @AfterAll
    static void deleteNamespace() throws Exception {
        if (namespace != null) {
            namespace.close();
        }
    }

    @ParameterizedTest(name = "mode={0}")
    @ValueSource(strings = {"plain", "psk"})
    void everyReliableMessageArrivesInOrderThroughKernelLoss(String mode) throws Exception {
        Process p = namespace.javaChild(LossyPeerMain.class, String.valueOf(MESSAGES), mode).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
        System.out.println("lossy network (" + LOSS_PERCENT + "% drop each way, " + mode + "): " + out.trim());
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("RESULT received=" + MESSAGES + " ordered=true");
        assertThat(out).doesNotContain("resent=0 ");
    }
}
