package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node that accepts unauthenticated peers on an address other hosts can reach says so at start, as
 * a WARNING naming what fixes it; a node with a key, on loopback, or that accepts nothing, does not.
 */
@Timeout(30)
class OpenNodeWarningTest {

    private static List<String> warningsOfStarting(NodeConfig config) throws Exception {
        try (LogCapture log = LogCapture.warningsOf(DatagramNode.class)) {
            try (ReliableUdpNode node = ReliableUdpNode.start(config, new RecordingListener())) {
                assertThat(node.isOpen()).isTrue();
            }
            return List.copyOf(log.warnings());
        }
    }

    private static NodeConfig.Builder onEveryAddress() {
        return NodeConfig.builder().bindAddress(new InetSocketAddress(0)); // the defaults' wildcard, on a free port
    }

    @Test
    void anOpenNodeOnTheWildcardAddressWarnsAndNamesTheFix() throws Exception {
        List<String> warnings = warningsOfStarting(onEveryAddress().build());
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains("without authentication", "preSharedKey",
                "reliable-udp.security.pre-shared-key", "identity", "acceptIncoming(false)");
    }

    @Test
    void aNodeWithAKeyOnLoopbackOrAcceptingNothingDoesNotWarn() throws Exception {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        assertThat(warningsOfStarting(onEveryAddress().preSharedKey(key).build())).isEmpty();
        assertThat(warningsOfStarting(onEveryAddress().acceptIncoming(false).build())).isEmpty();
        assertThat(warningsOfStarting(NodeConfig.builder()
                .bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).build())).isEmpty();
    }
}
