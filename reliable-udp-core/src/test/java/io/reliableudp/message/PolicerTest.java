package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.testsupport.NetworkNamespace;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
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
    private static NetworkNamespace namespace;

    @BeforeAll
    static void makeNamespace() throws Exception {
        NetworkNamespace.assumeAvailable("policer");
        namespace = NetworkNamespace.withOutputRule("rudp-policer", "oif", "lo", "udp", "dport",
                String.valueOf(PolicerPeerMain.RECEIVER_PORT), "limit", "rate", "over", LIMIT_KBYTES + " kbytes/second", "drop");
    }

    @AfterAll
    static void deleteNamespace() throws Exception {
        if (namespace != null) {
            namespace.close();
            namespace = null;
        }
    }

    /** One run in the namespace: {goodput B/s, loss, steady loss}. */
    private static double[] runChild(MessageConfig.CongestionControl controller) throws Exception {
        Process p = namespace.javaChild(PolicerPeerMain.class, controller.name(), String.valueOf(SECONDS)).start();
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
