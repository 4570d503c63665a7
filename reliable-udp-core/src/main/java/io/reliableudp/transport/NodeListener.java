package io.reliableudp.transport;

import io.reliableudp.connection.DisconnectReason;

/**
 * Callbacks of a node. Called on the node's receive thread: return quickly (hand work to an executor).
 * For one peer the calls are serial and messages of an ordered channel arrive in order.
 * An exception thrown by a callback is logged and counted; it never stops the receive loop.
 */
public interface NodeListener {

    /** A message arrived. {@code payload} is a fresh array owned by the listener. */
    void onMessage(Peer peer, int channel, int messageId, byte[] payload);

    /** A connection completed its handshake (either direction). */
    default void onConnected(Peer peer) {
    }

    /** A connection ended; pending reliable sends to it have been failed with the reason. */
    default void onDisconnected(Peer peer, DisconnectReason reason) {
    }
}
