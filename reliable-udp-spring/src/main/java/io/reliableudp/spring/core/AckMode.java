package io.reliableudp.spring.core;

/**
 * When the future of a reliable send completes: the ack mode of a channel, as the sender configures it
 * ({@code reliable-udp.channels.<name>.ack-mode}, {@link ReliableUdpTemplate#setAckMode}); compare
 * spring-kafka's and spring-pulsar's {@code ackMode}, there chosen by the consumer.
 */
public enum AckMode {

    /**
     * The default: the future completes when the peer's node acknowledged the message, before any
     * listener ran. The cheapest: no extra message, and a slow listener does not hold the sender.
     */
    RECEIVED,

    /**
     * The future completes only when the remote listener returned; it fails with a
     * {@link RemoteListenerException} (its {@link RemoteListenerException#category() category}) when the
     * listener threw after its retries, when no listener takes the message, or when the listener was
     * stopped before it could, and with a {@link ReliableUdpReplyTimeoutException} when no answer came
     * within the template's reply timeout. Built on request/reply: the message carries a correlation id
     * and the receiving container answers with an empty reply (one more small message per send).
     */
    PROCESSED
}
