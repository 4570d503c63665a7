package io.reliableudp.spring.support;

import io.reliableudp.message.DeliveryMode;

/**
 * One channel as the Spring layer sees it: its configured name, index and delivery mode.
 *
 * @param name the configured name (or the index as text for an unnamed channel)
 * @param index the channel index on the wire
 * @param mode the delivery mode
 */
public record UdpChannel(String name, int index, DeliveryMode mode) {
}
