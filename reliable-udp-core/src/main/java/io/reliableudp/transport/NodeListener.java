package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import java.net.InetSocketAddress;

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

    /**
     * A message arrived, with its age: what the node calls. The default forwards to
     * {@link #onMessage(Peer, int, int, byte[])}; a listener that wants the age overrides this one.
     *
     * @param ageMillis for a message sent with a time-to-live, its estimated age in milliseconds (the
     *     sender's estimate on arrival plus the time it waited here; always below its time-to-live);
     *     -1 for a message without one
     */
    default void onMessage(Peer peer, int channel, int messageId, byte[] payload, int ageMillis) {
        onMessage(peer, channel, messageId, payload);
    }

    /** A connection completed its handshake (either direction). */
    default void onConnected(Peer peer) {
    }

    /** A connection ended; pending reliable sends to it have been failed with the reason. */
    default void onDisconnected(Peer peer, DisconnectReason reason) {
    }

    /**
     * A connection moved to a new address of its peer (a NAT rebinding, a roaming client), after the
     * peer answered a path challenge there (encrypted modes; docs/connection.md, "Migration").
     * {@link Peer#address()} is {@code to} from now on.
     *
     * @param peer the connection
     * @param from the address it had
     * @param to the address it has now
     */
    default void onPeerMigrated(Peer peer, InetSocketAddress from, InetSocketAddress to) {
    }

    /**
     * One round-trip-time sample of a connection: the packet layer took it when the peer acknowledged
     * one of our packets for the first time ({@code (ack time - send time)} in milliseconds, as the
     * reference library samples it; {@link PeerStats#rttMillis()} is the smoothed value). Called once
     * per acknowledged packet, so up to the packet rate of every connection: it must be cheap (record
     * into a histogram; no I/O, no locks held long, no allocation in steady state).
     *
     * @param peer the connection
     * @param rttMillis the sample, in milliseconds
     */
    default void onRttSample(Peer peer, float rttMillis) {
    }
}
