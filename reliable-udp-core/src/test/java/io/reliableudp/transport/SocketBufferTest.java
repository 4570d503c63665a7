package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Socket buffer sizes: asked for, and a warning (System.Logger, here backed by java.util.logging) when capped. */
@Timeout(30)
class SocketBufferTest {

    @Test
    void aKernelCapOnTheBufferSizesIsLoggedAsAWarning() throws Exception {
        try (LogCapture log = LogCapture.warningsOf(UdpDatagramPort.class)) {
            List<String> warnings = log.warnings();
            int huge = 1 << 30; // 1 GiB: far above any default net.core.rmem_max
            NodeConfig config = NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .socketReceiveBufferSize(huge).socketSendBufferSize(huge).build();
            try (ReliableUdpNode node = ReliableUdpNode.start(config, new RecordingListener())) {
                assertThat(node.isOpen()).isTrue();
            }
            assertThat(warnings).anyMatch(w -> w.contains("socketReceiveBufferSize") && w.contains("rmem"));
            assertThat(warnings).anyMatch(w -> w.contains("socketSendBufferSize") && w.contains("wmem"));

            warnings.clear();
            NodeConfig osDefault = NodeConfig.builder().bindAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                    .socketReceiveBufferSize(0).socketSendBufferSize(0).build();
            try (ReliableUdpNode node = ReliableUdpNode.start(osDefault, new RecordingListener())) {
                assertThat(node.isOpen()).isTrue();
            }
            assertThat(warnings).noneMatch(w -> w.contains("BufferSize"));
        }
    }
}
