package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Socket buffer sizes: asked for, and a warning (System.Logger, here backed by java.util.logging) when capped. */
@Timeout(30)
class SocketBufferTest {

    @Test
    void aKernelCapOnTheBufferSizesIsLoggedAsAWarning() throws Exception {
        Logger logger = Logger.getLogger(UdpDatagramPort.class.getName());
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    warnings.add(java.text.MessageFormat.format(r.getMessage(), r.getParameters()));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
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
        } finally {
            logger.removeHandler(handler);
        }
    }
}
