package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.reliableudp.InvalidConfigurationException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class NodeConfigTest {

    @Test
    void theNodesReceiveMemoryLimitHoldsAtLeastOneMessage() {
        assertThat(NodeConfig.builder().build().receiveMemoryLimit()).isEqualTo(NodeConfig.DEFAULT_RECEIVE_MEMORY_LIMIT);
        InvalidConfigurationException e = catchThrowableOfType(InvalidConfigurationException.class,
                () -> NodeConfig.builder().receiveMemoryLimit(1000).build());
        assertThat(e.field()).isEqualTo("receiveMemoryLimit");
        assertThat(NodeConfig.builder().receiveMemoryLimit(1L << 30).build().toBuilder().build().receiveMemoryLimit())
                .isEqualTo(1L << 30);
    }


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
    void theDefaultsSendAtOnceFromAPlatformIoThreadAndTickModeIsKept() {
        NodeConfig d = NodeConfig.builder().build();
        assertThat(d.sendMode()).isEqualTo(io.reliableudp.message.MessageConfig.SendMode.IMMEDIATE);
        assertThat(d.receiveThreadMode()).isEqualTo(ReceiveThreadMode.PLATFORM);
        assertThat(d.message().ackDelaySeconds()).isEqualTo(0.001);
        NodeConfig tick = d.toBuilder().sendMode(io.reliableudp.message.MessageConfig.SendMode.TICK).build();
        assertThat(tick.toBuilder().build().sendMode()).isEqualTo(io.reliableudp.message.MessageConfig.SendMode.TICK);
        assertThat(tick.toString()).contains("sendMode=TICK");
        // the loop's tick: the send rate in TICK mode, half the keepalive (at most 250 ms) in IMMEDIATE
        assertThat(DatagramNode.tickSeconds(tick, 0.1)).isEqualTo(1.0 / 60);
        assertThat(DatagramNode.tickSeconds(d, 0.1)).isEqualTo(0.05);
        assertThatThrownBy(() -> NodeConfig.builder().sendMode(null).build()).hasMessageContaining("sendMode");
        // one I/O thread and no dedicated sockets unless asked for; both survive toBuilder
        assertThat(d.ioThreads()).isEqualTo(1);
        assertThat(d.dedicatedSockets()).isZero();
        NodeConfig wide = d.toBuilder().ioThreads(4).dedicatedSockets(32).build().toBuilder().build();
        assertThat(wide.ioThreads()).isEqualTo(4);
        assertThat(wide.dedicatedSockets()).isEqualTo(32);
        assertThat(wide.toString()).contains("ioThreads=4", "dedicatedSockets=32");
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

    @Test
    void theTypedExceptionNamesTheFieldAndNeverCarriesTheKey() {
        assertField(NodeConfig.builder().bindAddress(null), "bindAddress", null);
        assertField(NodeConfig.builder().maxConnections(0), "maxConnections", "0");
        assertField(NodeConfig.builder().sendRateHz(0), "sendRateHz", "0.0");
        assertField(NodeConfig.builder().keepAliveInterval(Duration.ZERO), "keepAliveInterval", "PT0S");
        assertField(NodeConfig.builder().timeout(null), "timeout", null);
        assertField(NodeConfig.builder().connectTimeout(Duration.ofSeconds(-1)), "connectTimeout", "PT-1S");
        assertField(NodeConfig.builder().timeout(Duration.ofMillis(150)), "timeout", "PT0.15S");
        assertField(NodeConfig.builder().sendQueueWait(Duration.ofMillis(-1)), "sendQueueWait", "PT-0.001S");
        assertField(NodeConfig.builder().socketReceiveBufferSize(-1), "socketReceiveBufferSize", "-1");
        assertField(NodeConfig.builder().socketSendBufferSize(-2), "socketSendBufferSize", "-2");
        assertField(NodeConfig.builder().receiveBusyPoll(Duration.ofMillis(2)), "receiveBusyPoll", "PT0.002S");
        assertField(NodeConfig.builder().message(null), "message", null);
        assertField(NodeConfig.builder().receiveThreadMode(null), "receiveThreadMode", null);
        assertField(NodeConfig.builder().ioThreads(0), "ioThreads", "0");
        assertField(NodeConfig.builder().ioThreads(65), "ioThreads", "65");
        assertField(NodeConfig.builder().dedicatedSockets(-1), "dedicatedSockets", "-1");
        assertField(NodeConfig.builder().dedicatedSockets(65_537), "dedicatedSockets", "65537");
        byte[] key = new byte[16];
        Arrays.fill(key, (byte) 0x41);
        InvalidConfigurationException e = assertField(NodeConfig.builder().preSharedKey(key), "preSharedKey", "16 bytes");
        assertThat(e.getMessage()).isEqualTo("preSharedKey must be 32 bytes (256 bits), was 16 bytes");
        assertThat(e.rule()).isEqualTo("must be 32 bytes (256 bits)");
    }

    private static InvalidConfigurationException assertField(NodeConfig.Builder builder, String field, String value) {
        InvalidConfigurationException e = catchThrowableOfType(InvalidConfigurationException.class, builder::build);
        assertThat(e).as("%s is refused", field).isNotNull();
        assertThat(e.field()).isEqualTo(field);
        assertThat(e.value()).isEqualTo(value);
        // the message is the one it always was; it names the field too (one names two: "message and receiveThreadMode")
        assertThat(e.getMessage()).contains(field);
        return e;
    }
}
