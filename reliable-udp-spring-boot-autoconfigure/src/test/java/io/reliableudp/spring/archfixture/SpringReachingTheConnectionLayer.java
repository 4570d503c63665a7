package io.reliableudp.spring.archfixture;

import io.reliableudp.connection.Connection;

/**
 * A deliberately wrong class for {@code ArchitectureTests}: Spring code naming the core's connection
 * layer, a package its module does not export. A test class, so the real scan never sees it.
 */
public final class SpringReachingTheConnectionLayer {

    private SpringReachingTheConnectionLayer() {
    }

    /** The wrong dependency: a type of a non-exported core package. */
    static int state(Connection connection) {
        return connection.state().ordinal();
    }
}
