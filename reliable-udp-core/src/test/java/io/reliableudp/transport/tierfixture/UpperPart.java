package io.reliableudp.transport.tierfixture;

/** A fixture of {@code TransportTiersTest}: the upper of two classes that depend on each other. */
public final class UpperPart {

    private final LowerPart lower = new LowerPart();

    int run() {
        return lower.size();
    }
}
