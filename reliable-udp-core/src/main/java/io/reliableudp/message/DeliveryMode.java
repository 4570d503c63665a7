package io.reliableudp.message;

/** How messages on a channel are delivered. */
public enum DeliveryMode {
    /** Every message arrives exactly once, in the order sent on its channel. */
    RELIABLE_ORDERED(true),
    /** Every message arrives exactly once, in any order. */
    RELIABLE_UNORDERED(true),
    /** Best effort: a message may be lost, duplicated copies are dropped, order is not kept. */
    UNRELIABLE(false),
    /** Best effort, but a message older than one already delivered on the channel is dropped. */
    UNRELIABLE_SEQUENCED(false);

    private final boolean reliable;

    DeliveryMode(boolean reliable) {
        this.reliable = reliable;
    }

    /** Whether messages are resent until the peer acknowledges them. */
    public boolean isReliable() {
        return reliable;
    }
}
