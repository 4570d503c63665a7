package io.reliableudp.spring.core;

import io.reliableudp.spring.support.InboundUdpMessage;

/**
 * Receives messages from a {@link ManagedReliableUdpNode} (listener containers, Integration adapters).
 * Both methods are called on the node's receive thread: they must not block (hand work to an executor)
 * and should not throw (an exception is logged and counted).
 */
public interface InboundUdpMessageSubscriber {

    /**
     * Whether this subscriber wants the message (channel and peer filters).
     *
     * @param message the message
     * @return true to get {@link #onMessage}
     */
    boolean accepts(InboundUdpMessage message);

    /**
     * Takes a message this subscriber accepted.
     *
     * @param message the message
     */
    void onMessage(InboundUdpMessage message);
}
