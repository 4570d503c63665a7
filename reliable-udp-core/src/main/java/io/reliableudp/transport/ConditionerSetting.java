package io.reliableudp.transport;

import io.reliableudp.link.LinkConditionerConfig;
import org.jspecify.annotations.Nullable;

/**
 * The node's link conditioner setting ({@link ReliableUdpNode#setLinkConditioner}): the configuration
 * (null: none) and a generation that every change counts up, so that each peer's transmit path
 * ({@link PeerTransmitter}) notices a change with one read. Written by the thread that changes the
 * setting (changes serialized), read by any thread.
 */
final class ConditionerSetting {

    private volatile @Nullable LinkConditionerConfig config;
    private volatile int generation;

    /** Sets (null: clears) the conditioner of every peer. */
    synchronized void set(@Nullable LinkConditionerConfig newConfig) {
        this.config = newConfig;
        generation++;
    }

    @Nullable LinkConditionerConfig config() {
        return config;
    }

    /** Counts every {@link #set}. */
    int generation() {
        return generation;
    }

    /** Whether a conditioner is set (the loops then wait at most 1 ms and callers do not write themselves). */
    boolean isSet() {
        return config != null;
    }
}
