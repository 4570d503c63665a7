package io.reliableudp.transport;

import io.reliableudp.connection.DisconnectReason;

/**
 * Callbacks of a node. Called on the node's I/O (receive) thread: return quickly (hand work to an
 * executor). For one peer the calls are serial and messages of an ordered channel arrive in order.
 * A callback may send, flush and disconnect (to any peer). Only when {@link ReliableUdpNode#close()}
 * is called from another thread are the final {@code onDisconnected} calls made on that thread,
 * after the I/O thread stopped. An exception thrown by a callback is logged and counted
 * ({@link NodeStats#listenerErrors()}); it never stops the receive loop.
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
