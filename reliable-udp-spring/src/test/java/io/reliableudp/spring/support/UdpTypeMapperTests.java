package io.reliableudp.spring.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trusted-types rule: mapped ids both ways, class names only from trusted packages, nothing else. */
class UdpTypeMapperTests {

    record Position(double x) {
    }

    @Test
    void mappedIdsBothWaysAndClassNamesOnlyWhenAsked() {
        UdpTypeMapper mapper = new UdpTypeMapper(Map.of("pos", Position.class), List.of(), false);
        assertThat(mapper.typeIdOf(new Position(1))).isEqualTo("pos");
        assertThat(mapper.typeIdOf(new java.util.ArrayList<>())).isNull();
        assertThat(mapper.resolve("pos", null)).isEqualTo(Position.class);
        UdpTypeMapper names = new UdpTypeMapper(Map.of(), List.of(), true);
        assertThat(names.typeIdOf(new Position(1))).isEqualTo(Position.class.getName());
        assertThat(names.typeIdOf("text")).isNull();
        assertThat(names.typeIdOf(new byte[1])).isNull();
    }

    @Test
    void aClassNameIsLoadedOnlyFromATrustedPackage() {
        UdpTypeMapper trusting = new UdpTypeMapper(Map.of(), List.of("io.reliableudp.spring"), false);
        assertThat(trusting.resolve(Position.class.getName(), getClass().getClassLoader())).isEqualTo(Position.class);
        assertThatThrownBy(() -> trusting.resolve("java.lang.ProcessBuilder", null)).isInstanceOf(UdpTypeNotTrustedException.class)
                .hasMessageContaining("trusted package");
        // "io.reliableudp.springx" is not a subpackage of "io.reliableudp.spring"
        assertThatThrownBy(() -> trusting.resolve("io.reliableudp.springx.Evil", null)).isInstanceOf(UdpTypeNotTrustedException.class);
        assertThatThrownBy(() -> trusting.resolve("io.reliableudp.spring.NoSuchType", null)).isInstanceOf(UdpTypeNotTrustedException.class)
                .hasMessageContaining("no such class");
        assertThatThrownBy(() -> trusting.resolve("io.reliableudp.spring.support.UdpHeaderMapper", null))
                .isInstanceOf(UdpTypeNotTrustedException.class).hasMessageContaining("not a concrete class");
        UdpTypeMapper none = UdpTypeMapper.none();
        assertThatThrownBy(() -> none.resolve(Position.class.getName(), null)).isInstanceOf(UdpTypeNotTrustedException.class);
        assertThat(new UdpTypeMapper(Map.of(), List.of("*"), false).resolve(Position.class.getName(), null)).isEqualTo(Position.class);
    }

    @Test
    void aClassMappedTwiceIsAConfigurationError() {
        assertThatThrownBy(() -> new UdpTypeMapper(Map.of("a", Position.class, "b", Position.class), List.of(), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("mapped twice");
    }
}
