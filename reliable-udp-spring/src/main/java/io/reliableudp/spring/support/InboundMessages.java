package io.reliableudp.spring.support;

import io.reliableudp.spring.core.InboundUdpMessage;
import io.reliableudp.spring.core.UdpAddresses;
import java.util.HashMap;
import java.util.Map;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.MessageBuilder;

/** Turns a received message into a spring-messaging {@link Message} with a {@code byte[]} payload. */
public final class InboundMessages {

    private InboundMessages() {
    }

    /**
     * Builds the message: the envelope's headers (never a transport header: those come from the
     * connection), its content type, and the transport headers of {@link ReliableUdpHeaders}.
     *
     * @param in the received message
     * @param envelope its decoded envelope
     * @return the message with the envelope body as payload
     */
    public static Message<byte[]> toMessage(InboundUdpMessage in, Envelope envelope) {
        Map<String, Object> headers = new HashMap<>(envelope.headers().size() + 8);
        envelope.headers().forEach((k, v) -> {
            if (!k.startsWith(ReliableUdpHeaders.PREFIX) && !k.equals(MessageHeaders.ID) && !k.equals(MessageHeaders.TIMESTAMP)
                    && !k.equals(MessageHeaders.REPLY_CHANNEL) && !k.equals(MessageHeaders.ERROR_CHANNEL)) {
                headers.put(k, v);
            }
        });
        if (envelope.contentType() != null) {
            headers.put(MessageHeaders.CONTENT_TYPE, envelope.contentType());
        } else {
            headers.remove(MessageHeaders.CONTENT_TYPE);
        }
        // a peer without a configured name is named by its address, so that the header is always there
        headers.put(ReliableUdpHeaders.PEER_NAME, in.peerName() != null ? in.peerName() : UdpAddresses.format(in.address()));
        headers.put(ReliableUdpHeaders.PEER_ADDRESS, in.address());
        headers.put(ReliableUdpHeaders.CHANNEL, in.channel().index());
        headers.put(ReliableUdpHeaders.CHANNEL_NAME, in.channel().name());
        headers.put(ReliableUdpHeaders.MESSAGE_ID, in.messageId());
        return MessageBuilder.createMessage(envelope.body(), new MessageHeaders(headers));
    }
}
