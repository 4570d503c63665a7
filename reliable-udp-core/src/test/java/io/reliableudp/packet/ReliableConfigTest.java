package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.reliableudp.InvalidConfigurationException;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ReliableConfigTest {

    @Test
    void defaultsAreTheReferenceDefaults() {
        ReliableConfig c = ReliableConfig.defaults();
        assertThat(c.maxPacketSize()).isEqualTo(16384);
        assertThat(c.fragmentAbove()).isEqualTo(1024);
        assertThat(c.maxFragments()).isEqualTo(16);
        assertThat(c.fragmentSize()).isEqualTo(1024);
        assertThat(c.ackBufferSize()).isEqualTo(256);
        assertThat(c.sentPacketsBufferSize()).isEqualTo(256);
        assertThat(c.receivedPacketsBufferSize()).isEqualTo(256);
        assertThat(c.fragmentReassemblyBufferSize()).isEqualTo(64);
        assertThat(c.rttSmoothingFactor()).isEqualTo(0.0025f);
        assertThat(c.rttHistorySize()).isEqualTo(512);
        assertThat(c.packetLossSmoothingFactor()).isEqualTo(0.1f);
        assertThat(c.bandwidthSmoothingFactor()).isEqualTo(0.1f);
        assertThat(c.packetHeaderSize()).isEqualTo(28);
        assertThat(c.allowEmptyPayload()).isFalse();
        assertThat(c.maxDatagramSize()).isEqualTo(16384 + 14);
        assertThat(c.name()).isEqualTo("endpoint");
    }

    @Test
    void toBuilderKeepsEveryValue() {
        ReliableConfig c = ReliableConfig.builder().name("x").maxPacketSize(2000).fragmentAbove(500).maxFragments(4)
                .fragmentSize(500).ackBufferSize(8).sentPacketsBufferSize(64).receivedPacketsBufferSize(32)
                .fragmentReassemblyBufferSize(4).rttSmoothingFactor(0.5f).rttHistorySize(16)
                .packetLossSmoothingFactor(0.25f).bandwidthSmoothingFactor(0.75f).packetHeaderSize(48)
                .allowEmptyPayload(true).build();
        assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
        assertThat(c).isNotEqualTo(ReliableConfig.defaults());
        assertThat(c.toString()).contains("maxPacketSize=2000", "allowEmptyPayload=true");
    }

    static Stream<Arguments> invalidValues() {
        return Stream.of(
                invalid("maxPacketSize", b -> b.maxPacketSize(0)),
                invalid("fragmentAbove", b -> b.fragmentAbove(0)),
                invalid("maxFragments", b -> b.maxFragments(0)),
                invalid("maxFragments", b -> b.maxFragments(257)),
                invalid("fragmentSize", b -> b.fragmentSize(-1)),
                invalid("ackBufferSize", b -> b.ackBufferSize(0)),
                invalid("sentPacketsBufferSize", b -> b.sentPacketsBufferSize(0)),
                invalid("sentPacketsBufferSize", b -> b.sentPacketsBufferSize(32769)),
                invalid("receivedPacketsBufferSize", b -> b.receivedPacketsBufferSize(0)),
                invalid("fragmentReassemblyBufferSize", b -> b.fragmentReassemblyBufferSize(0)),
                invalid("rttHistorySize", b -> b.rttHistorySize(0)),
                invalid("packetHeaderSize", b -> b.packetHeaderSize(-1)),
                invalid("rttSmoothingFactor", b -> b.rttSmoothingFactor(Float.NaN)),
                invalid("packetLossSmoothingFactor", b -> b.packetLossSmoothingFactor(1.5f)),
                invalid("bandwidthSmoothingFactor", b -> b.bandwidthSmoothingFactor(-0.1f)),
                invalid("maxFragments * fragmentSize", b -> b.maxFragments(256).fragmentSize(1 << 23)),
                invalid("name", b -> b.name(" ")));
    }

    private static Arguments invalid(String field, UnaryOperator<ReliableConfig.Builder> change) {
        return Arguments.of(field, change);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidValues")
    void invalidValueIsRefusedNamingTheField(String field, UnaryOperator<ReliableConfig.Builder> change) {
        assertThatIllegalArgumentException().isThrownBy(() -> change.apply(ReliableConfig.builder()).build())
                .withMessageStartingWith(field)
                // the typed exception names the field without its message being read
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.field()).isEqualTo(field.split(" ")[0]));
    }

    @Test
    void theTypedExceptionCarriesFieldValueAndRule() {
        assertThatExceptionOfType(InvalidConfigurationException.class)
                .isThrownBy(() -> ReliableConfig.builder().maxFragments(300).build())
                .withMessage("maxFragments must be within 1..256, was 300")
                .satisfies(e -> {
                    assertThat(e.field()).isEqualTo("maxFragments");
                    assertThat(e.value()).isEqualTo("300");
                    assertThat(e.rule()).isEqualTo("must be within 1..256");
                });
        assertThatExceptionOfType(InvalidConfigurationException.class)
                .isThrownBy(() -> ReliableConfig.builder().rttSmoothingFactor(1.5f).build())
                .satisfies(e -> assertThat(e.value()).isEqualTo("1.5"));
    }
}
