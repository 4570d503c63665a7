package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.InvalidConfigurationException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every rejected {@link MessageConfig} and {@link ChannelConfig} value names its field in the typed exception. */
class MessageConfigTest {

    @Test
    void theReceiveMemoryLimitFollowsTheLargestMessageUnlessSet() {
        assertThat(MessageConfig.defaults().receiveMemoryLimit()).isEqualTo(MessageConfig.DEFAULT_RECEIVE_MEMORY_LIMIT);
        MessageConfig large = MessageConfig.builder().maxMessageSize(32 * 1024 * 1024).build();
        assertThat(large.receiveMemoryLimit()).isEqualTo(64L * 1024 * 1024);
        // a copy keeps following the message size; a set value stays
        assertThat(MessageConfig.defaults().toBuilder().maxMessageSize(32 * 1024 * 1024).build().receiveMemoryLimit())
                .isEqualTo(64L * 1024 * 1024);
        assertThat(MessageConfig.builder().receiveMemoryLimit(5_000_000).build().toBuilder().build().receiveMemoryLimit())
                .isEqualTo(5_000_000);
    }


    static Stream<Arguments> invalidValues() {
        List<ChannelConfig> withNull = new ArrayList<>();
        withNull.add(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED));
        withNull.add(null);
        return Stream.of(
                invalid("channels", "0 channels", b -> b.channels(List.of())),
                invalid("channels", "65 channels", b -> b.channels(Collections.nCopies(65, ChannelConfig.of(DeliveryMode.UNRELIABLE)))),
                invalid("channels", null, b -> b.channels(withNull)),
                invalid("datagramBudget", "100", b -> b.datagramBudget(100)),
                invalid("lowerLayerOverhead", "-1", b -> b.lowerLayerOverhead(-1)),
                invalid("resendRttFactor", "0.1", b -> b.resendRttFactor(0.1)),
                invalid("minResendIntervalSeconds", "-1.0", b -> b.minResendIntervalSeconds(-1)),
                invalid("maxResendIntervalSeconds", "61.0", b -> b.maxResendIntervalSeconds(61)),
                invalid("ackDelaySeconds", "-0.001", b -> b.ackDelaySeconds(-0.001)),
                invalid("ackDelaySeconds", "2.0", b -> b.ackDelaySeconds(2)),
                invalid("maxMessageSize", "0", b -> b.maxMessageSize(0)),
                invalid("maxMessageSize", Integer.toString(Integer.MAX_VALUE), b -> b.sliceSize(64).maxMessageSize(Integer.MAX_VALUE)),
                invalid("sliceSize", "2000", b -> b.sliceSize(2000)),
                invalid("maxBytesInFlight", "10", b -> b.maxBytesInFlight(10)),
                invalid("sendRateHz", "0.0", b -> b.sendRateHz(0)),
                invalid("receiveWindow", "100", b -> b.receiveWindow(100)),
                invalid("receiveMemoryLimit", "1000", b -> b.receiveMemoryLimit(1000)),
                invalid("maxPacketsPerUpdate", "0", b -> b.maxPacketsPerUpdate(0)),
                invalid("congestionRttThresholdMillis", "-1.0", b -> b.congestionRttThresholdMillis(-1)),
                invalid("congestionLossThresholdPercent", "0.0", b -> b.congestionLossThresholdPercent(0)),
                invalid("resendPolicy", null, b -> b.resendPolicy(null)),
                invalid("congestionControl", null, b -> b.congestionControl(null)));
    }

    private static Arguments invalid(String field, String value, UnaryOperator<MessageConfig.Builder> change) {
        return Arguments.of(field, value, change);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("invalidValues")
    void everyRejectedValueNamesItsField(String field, String value, UnaryOperator<MessageConfig.Builder> change) {
        assertThatThrownBy(() -> change.apply(MessageConfig.builder()).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.value()).isEqualTo(value);
                    assertThat(e.getMessage()).startsWith(field);
                    assertThat(e.rule()).startsWith("must");
                });
    }

    @Test
    void sendModeAndAckDelay() {
        assertThat(MessageConfig.defaults().sendMode()).isEqualTo(MessageConfig.SendMode.IMMEDIATE);
        assertThat(MessageConfig.defaults().ackDelaySeconds()).isEqualTo(0.001);
        MessageConfig c = MessageConfig.builder().sendMode(MessageConfig.SendMode.TICK).ackDelaySeconds(0).build();
        assertThat(c.toBuilder().build().sendMode()).isEqualTo(MessageConfig.SendMode.TICK);
        assertThat(c.toBuilder().build().ackDelaySeconds()).isZero();
        for (double wrong : new double[] {-0.001, 0.6, Double.NaN}) {
            assertThatThrownBy(() -> MessageConfig.builder().ackDelaySeconds(wrong).build())
                    .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.field()).isEqualTo("ackDelaySeconds"));
        }
        assertThatThrownBy(() -> MessageConfig.builder().sendMode(null).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.field()).isEqualTo("sendMode"));
    }

    @Test
    void messagesStayAsTheyWere() {
        assertThatThrownBy(() -> MessageConfig.builder().datagramBudget(100).build())
                .hasMessage("datagramBudget must be within 256..65507 bytes, was 100");
        assertThatThrownBy(() -> MessageConfig.builder().channels(List.of()).build())
                .hasMessage("channels must hold 1..64 channels, had 0");
    }

    @Test
    void channelConfigNamesItsField() {
        assertThatThrownBy(() -> new ChannelConfig(null, 1, 1)).isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
            assertThat(e.field()).isEqualTo("mode");
            assertThat(e.value()).isNull();
            assertThat(e).hasMessage("mode must not be null");
        });
        assertThatThrownBy(() -> new ChannelConfig(DeliveryMode.UNRELIABLE, 0, 1)).isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
            assertThat(e.field()).isEqualTo("maxQueuedMessages");
            assertThat(e.value()).isEqualTo("0");
            assertThat(e).hasMessage("maxQueuedMessages must be >= 1, was 0");
        });
        assertThatThrownBy(() -> new ChannelConfig(DeliveryMode.UNRELIABLE, 1, -3)).isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
            assertThat(e.field()).isEqualTo("maxQueuedBytes");
            assertThat(e.value()).isEqualTo("-3");
        });
        assertThatThrownBy(() -> ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).redundancy(9))
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.field()).isEqualTo("redundancy");
                    assertThat(e).hasMessage("redundancy must be within 0..8, was 9");
                });
        assertThatThrownBy(() -> ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).redundancy(-1))
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.field()).isEqualTo("redundancy"));
    }

    @Test
    void recoveryDefaults() {
        MessageConfig d = MessageConfig.defaults();
        assertThat(d.fastRecovery()).isTrue();
        assertThat(d.ackDelaySeconds()).isEqualTo(0.001);
        assertThat(d.minResendIntervalSeconds()).isEqualTo(0.001);
        assertThat(d.maxResendIntervalSeconds()).isEqualTo(1.0);
        assertThat(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).redundancy()).isZero();
        assertThat(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).redundancy(2).redundancy()).isEqualTo(2);
        assertThat(new ChannelConfig(DeliveryMode.UNRELIABLE, 5, 6)).isEqualTo(new ChannelConfig(DeliveryMode.UNRELIABLE, 5, 6, 0));
        MessageConfig changed = d.toBuilder().fastRecovery(false).ackDelaySeconds(0.005).build().toBuilder().build();
        assertThat(changed.fastRecovery()).isFalse();
        assertThat(changed.ackDelaySeconds()).isEqualTo(0.005);
    }
}
