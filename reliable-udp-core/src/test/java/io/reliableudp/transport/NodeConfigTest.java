package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class NodeConfigTest {

    @Test
    void theKeyNeverShowsInToString() {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) 0x5c);
        NodeConfig config = NodeConfig.builder().preSharedKey(key).build();
        // the connection layer's Aead and Keys: connection.SecretTextTest
        for (String text : new String[] {config.toString(), config.toBuilder().toString()}) {
            assertThat(text).doesNotContain(Base64.getEncoder().encodeToString(key))
                    .doesNotContain(HexFormat.of().formatHex(key)).doesNotContain("92, 92");
        }
        assertThat(config.toString()).contains("preSharedKey=[redacted]");
        assertThat(config.encrypted()).isTrue();
        // the config keeps its own copy
        key[0] = 0;
        assertThat(config.preSharedKey()[0]).isEqualTo((byte) 0x5c);
    }

    @Test
    void wrongValuesNameTheField() {
        assertThatThrownBy(() -> NodeConfig.builder().preSharedKey(new byte[16]).build()).hasMessageContaining("preSharedKey");
        assertThatThrownBy(() -> NodeConfig.builder().maxConnections(0).build()).hasMessageContaining("maxConnections");
        assertThatThrownBy(() -> NodeConfig.builder().sendRateHz(0).build()).hasMessageContaining("sendRateHz");
        assertThatThrownBy(() -> NodeConfig.builder().timeout(Duration.ofMillis(150)).build()).hasMessageContaining("timeout");
        assertThatThrownBy(() -> NodeConfig.builder().keepAliveInterval(Duration.ZERO).build()).hasMessageContaining("keepAliveInterval");
        assertThatThrownBy(() -> NodeConfig.builder().socketReceiveBufferSize(-1).build()).hasMessageContaining("socketReceiveBufferSize");
        assertThatThrownBy(() -> NodeConfig.builder().receiveBusyPoll(Duration.ofNanos(-1)).build()).hasMessageContaining("receiveBusyPoll");
        assertThatThrownBy(() -> NodeConfig.builder().receiveBusyPoll(Duration.ofMillis(2)).build()).hasMessageContaining("receiveBusyPoll");
        assertThatThrownBy(() -> NodeConfig.builder().sendQueueWait(Duration.ofMillis(-1)).build()).hasMessageContaining("sendQueueWait");
    }
}
