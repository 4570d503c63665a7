package io.reliableudp.transport;

import java.net.InetSocketAddress;

/**
 * The result of a successful send.
 *
 * @param peer the peer's address
 * @param channel the channel index
 * @param messageId the channel's 16-bit message id (0..65535) given to the message
 * @param acknowledged true when the peer acknowledged the message (always for reliable channels);
 *     false for an unreliable message, whose future completes once it was written to a datagram
 */
public record Delivery(InetSocketAddress peer, int channel, int messageId, boolean acknowledged) {
}
