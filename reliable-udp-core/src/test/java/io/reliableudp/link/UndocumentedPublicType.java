package io.reliableudp.link;

/**
 * A deliberately wrong class for {@code ArchitectureTest}: a public type in an exported package that
 * docs/standalone.md does not list. A test class, so the real scan never sees it.
 */
public final class UndocumentedPublicType {

    private UndocumentedPublicType() {
    }
}
