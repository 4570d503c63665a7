package io.reliableudp.transport.tierfixture;

/** A fixture of {@code TransportTiersTest}: the lower class, which calls back up (the cycle the check refuses). */
public final class LowerPart {

    int size() {
        return 1;
    }

    /** The arrow back up, from a nested class: counted with its outer class. */
    public static final class CallsUp {
        int again(UpperPart upper) {
            return upper.run();
        }
    }
}
