package io.reliableudp.spring.listener;

import org.springframework.messaging.Message;

/**
 * Decides, before the listener, whether a listener container hands a message on (as spring-kafka's
 * {@code RecordFilterStrategy}, with the opposite sign: true keeps it). It runs on the listener's thread
 * in the message's serial turn, after the payload was converted, so it sees the payload and every header,
 * among them the peer's {@link io.reliableudp.spring.support.ReliableUdpHeaders#PEER_IDENTITY identity},
 * name and address.
 *
 * <p>A message the filter drops is counted ({@link UdpMessageListenerContainer#getFilteredCount()}) and
 * settled as processed: a sender of {@code AckMode.PROCESSED} is acknowledged and a request gets an empty
 * reply, as when the listener returns nothing; it is not retried and not observed. A filter that throws
 * is a failure of that message (counted, handed to the error handler, an error reply to a waiting
 * sender), never passed to the listener.
 */
@FunctionalInterface
public interface UdpMessageFilter {

    /**
     * Whether the listener gets the message.
     *
     * @param message the message as the listener would get it
     * @return true to hand it to the listener, false to drop it
     */
    boolean accept(Message<?> message);
}
