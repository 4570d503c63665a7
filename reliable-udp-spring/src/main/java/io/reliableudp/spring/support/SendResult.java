package io.reliableudp.spring.support;

import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a successful send.
 *
 * @param peerAddress the peer's address
 * @param peerName the peer's configured name, or null
 * @param channel the channel sent on
 * @param messageId the channel's 16-bit message id given to the message
 * @param acknowledged true when the peer acknowledged the message (always for reliable channels); false
 *     for an unreliable message, which completes once written to a datagram
 * @param payloadBytes bytes sent, envelope included
 */
public record SendResult(InetSocketAddress peerAddress, @Nullable String peerName, UdpChannel channel,
        int messageId, boolean acknowledged, int payloadBytes) {
}
