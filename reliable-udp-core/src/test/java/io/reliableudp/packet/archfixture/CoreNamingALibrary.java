package io.reliableudp.packet.archfixture;

import org.assertj.core.api.Assertions;

/**
 * A deliberately wrong class for {@code ArchitectureTest}: core code naming a library other than the JDK
 * and jspecify. A test class, so the real scan never sees it.
 */
public final class CoreNamingALibrary {

    private CoreNamingALibrary() {
    }

    /** The wrong dependency: a library type in core code. */
    static void check(Object value) {
        Assertions.assertThat(value).isNotNull();
    }
}
