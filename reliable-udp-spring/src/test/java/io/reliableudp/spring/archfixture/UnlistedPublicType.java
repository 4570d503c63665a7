package io.reliableudp.spring.archfixture;

/** A public type that docs/spring.md does not list: the public-face rule must report it. */
public final class UnlistedPublicType {

    private UnlistedPublicType() {
    }
}
