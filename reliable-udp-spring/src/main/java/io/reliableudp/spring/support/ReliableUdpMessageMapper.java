package io.reliableudp.spring.support;

import io.reliableudp.transport.PeerIdentity;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

/**
 * The one mapping between spring-messaging messages and reliable-udp payloads, shared by the template
 * (outbound) and the listener containers, and through them the Integration adapters (inbound): the
 * payload through a {@link MessageConverter}, the headers through a {@link UdpHeaderMapper}, both
 * wrapped in the envelope of {@link EnvelopeCodec}; inbound, the transport headers of
 * {@link ReliableUdpHeaders} come from the connection, never from the envelope.
 *
 * <p>Immutable and thread-safe; {@code with...} return changed copies.
 */
public final class ReliableUdpMessageMapper {

    private final MessageConverter converter;
    private final UdpHeaderMapper headerMapper;
    private final UdpTypeMapper typeMapper;

    /**
     * Creates the mapper without type ids.
     *
     * @param converter the payload converter (it must produce {@code byte[]} or {@code String} payloads)
     * @param headerMapper which headers travel
     */
    public ReliableUdpMessageMapper(MessageConverter converter, UdpHeaderMapper headerMapper) {
        this(converter, headerMapper, UdpTypeMapper.none());
    }

    /**
     * Creates the mapper.
     *
     * @param converter the payload converter (it must produce {@code byte[]} or {@code String} payloads)
     * @param headerMapper which headers travel
     * @param typeMapper the type ids of several payload types on one channel
     */
    public ReliableUdpMessageMapper(MessageConverter converter, UdpHeaderMapper headerMapper, UdpTypeMapper typeMapper) {
        this.converter = Objects.requireNonNull(converter, "converter");
        this.headerMapper = Objects.requireNonNull(headerMapper, "headerMapper");
        this.typeMapper = Objects.requireNonNull(typeMapper, "typeMapper");
    }

    /**
     * The default mapper: {@link ReliableUdpMessageConverters#createDefault()} and a
     * {@link DefaultUdpHeaderMapper}.
     *
     * @return the mapper
     */
    public static ReliableUdpMessageMapper createDefault() {
        return new ReliableUdpMessageMapper(ReliableUdpMessageConverters.createDefault(), new DefaultUdpHeaderMapper());
    }

    /** The payload converter. */
    public MessageConverter getConverter() {
        return converter;
    }

    /** The header mapper. */
    public UdpHeaderMapper getHeaderMapper() {
        return headerMapper;
    }

    /**
     * A copy with another converter.
     *
     * @param messageConverter the converter
     * @return the copy
     */
    public ReliableUdpMessageMapper withConverter(MessageConverter messageConverter) {
        return new ReliableUdpMessageMapper(messageConverter, headerMapper, typeMapper);
    }

    /** The type mapper. */
    public UdpTypeMapper getTypeMapper() {
        return typeMapper;
    }

    /**
     * A copy with another type mapper.
     *
     * @param mapper the type mapper
     * @return the copy
     */
    public ReliableUdpMessageMapper withTypeMapper(UdpTypeMapper mapper) {
        return new ReliableUdpMessageMapper(converter, headerMapper, mapper);
    }

    /**
     * A copy with another header mapper.
     *
     * @param mapper the header mapper
     * @return the copy
     */
    public ReliableUdpMessageMapper withHeaderMapper(UdpHeaderMapper mapper) {
        return new ReliableUdpMessageMapper(converter, mapper, typeMapper);
    }

    // ---- outbound

    /**
     * Converts a payload and maps its headers, before the envelope is written (the send observation's
     * propagator may still add trace headers to {@link Outbound#headers()}).
     *
     * @param payload the payload ({@code byte[]} is sent as is)
     * @param headers the send's headers; {@code contentType} chooses the converter's format
     * @return what the envelope will carry
     * @throws IllegalArgumentException when no converter can write the payload
     */
    public Outbound toOutbound(Object payload, Map<String, ?> headers) {
        Objects.requireNonNull(payload, "payload");
        Map<String, Object> carried = new LinkedHashMap<>();
        headerMapper.fromHeaders(headers, carried);
        carried.keySet().removeIf(DefaultUdpHeaderMapper::isLocal);
        MimeType givenType = asMimeType(headers.get(MessageHeaders.CONTENT_TYPE));
        if (payload instanceof byte[] bytes) {
            return new Outbound(givenType != null ? givenType : MimeTypeUtils.APPLICATION_OCTET_STREAM, carried, bytes, null);
        }
        Map<String, Object> convertHeaders = new LinkedHashMap<>();
        if (givenType != null) {
            convertHeaders.put(MessageHeaders.CONTENT_TYPE, givenType);
        }
        Message<?> converted = converter.toMessage(payload, new MessageHeaders(convertHeaders));
        if (converted == null) {
            throw new IllegalArgumentException("no message converter can write a " + payload.getClass().getName()
                    + (givenType != null ? " as " + givenType : "") + " (add Jackson for JSON, or send byte[] or String)");
        }
        byte[] body = switch (converted.getPayload()) {
            case byte[] b -> b;
            case String s -> s.getBytes(StandardCharsets.UTF_8);
            default -> throw new IllegalArgumentException("the message converter produced a "
                    + converted.getPayload().getClass().getName() + "; it must produce byte[] or String");
        };
        MimeType t = asMimeType(converted.getHeaders().get(MessageHeaders.CONTENT_TYPE));
        return new Outbound(t != null ? t : givenType, carried, body, typeMapper.typeIdOf(payload));
    }

    /**
     * What one send puts in the envelope.
     *
     * @param contentType the body's content type, or null
     * @param headers the carried headers (mutable until encoded: the observation's carrier)
     * @param body the converted payload
     * @param typeId the payload's type id ({@link UdpTypeMapper}), or null
     */
    public record Outbound(@Nullable MimeType contentType, Map<String, Object> headers, byte[] body, @Nullable String typeId) {

        /** The payload to send: the envelope around the body. */
        public byte[] encode() {
            return EnvelopeCodec.encode(contentType, headers, body, 0, 0, typeId);
        }

        /**
         * The payload of a request or a reply.
         *
         * @param flags {@link EnvelopeCodec#FLAG_REQUEST} or {@link EnvelopeCodec#FLAG_REPLY}
         * @param correlationId the request's id
         * @return the envelope around the body
         */
        public byte[] encode(int flags, long correlationId) {
            return EnvelopeCodec.encode(contentType, headers, body, flags, correlationId, typeId);
        }
    }

    // ---- inbound

    /**
     * Builds the message a listener receives: the mapped envelope headers, the content type, and the
     * transport headers of {@link ReliableUdpHeaders} from the connection.
     *
     * @param in the received message
     * @param envelope its decoded envelope
     * @return the message with the envelope body as payload
     */
    public Message<byte[]> toMessage(InboundUdpMessage in, Envelope envelope) {
        Map<String, Object> headers = new HashMap<>(envelope.headers().size() + 8);
        headerMapper.toHeaders(envelope.headers(), headers);
        headers.keySet().removeIf(DefaultUdpHeaderMapper::isLocal);
        if (envelope.contentType() != null) {
            headers.put(MessageHeaders.CONTENT_TYPE, envelope.contentType());
        }
        // a peer without a configured name is named by its address, so that the header is always there
        headers.put(ReliableUdpHeaders.PEER_NAME, in.peerName() != null ? in.peerName() : UdpAddresses.format(in.address()));
        headers.put(ReliableUdpHeaders.PEER_ADDRESS, in.address());
        PeerIdentity identity = in.peer().identity();
        if (identity != null) {
            headers.put(ReliableUdpHeaders.PEER_IDENTITY, identity.name());
            headers.put(ReliableUdpHeaders.PEER_KEY, identity.key().toBase64());
        }
        headers.put(ReliableUdpHeaders.CHANNEL, in.channel().index());
        headers.put(ReliableUdpHeaders.CHANNEL_NAME, in.channel().name());
        headers.put(ReliableUdpHeaders.MESSAGE_ID, in.messageId());
        if (in.ageMillis() >= 0) {
            headers.put(ReliableUdpHeaders.AGE_MILLIS, in.ageMillis());
        }
        if (envelope.isRequest()) {
            headers.put(ReliableUdpHeaders.CORRELATION_ID, envelope.correlationId());
        }
        return MessageBuilder.createMessage(envelope.body(), new MessageHeaders(headers));
    }

    /**
     * Builds the message a listener receives and, when the envelope names a type, converts the payload
     * to it (the {@link ReliableUdpHeaders#TYPE_ID} header then says which).
     *
     * @param in the received message
     * @param envelope its decoded envelope
     * @param classLoader where trusted class names are loaded from
     * @return the message: {@code byte[]} payload, or the named type's instance
     * @throws UdpTypeNotTrustedException when the type id is not mapped nor trusted
     * @throws IllegalStateException when the body cannot be converted to the named type
     */
    public Message<?> toTypedMessage(InboundUdpMessage in, Envelope envelope, @Nullable ClassLoader classLoader) {
        Message<byte[]> raw = toMessage(in, envelope);
        String typeId = envelope.typeId();
        if (typeId == null) {
            return raw;
        }
        Class<?> type = typeMapper.resolve(typeId, classLoader);
        Object payload = fromMessage(raw, type);
        return MessageBuilder.withPayload(payload).copyHeaders(raw.getHeaders()).setHeader(ReliableUdpHeaders.TYPE_ID, typeId).build();
    }

    /**
     * Converts a received message's payload to a type.
     *
     * @param message the message (a {@code byte[]} payload with its content type)
     * @param type the wanted type
     * @return the converted payload
     * @throws IllegalStateException when the converter cannot produce that type from the payload
     */
    public Object fromMessage(Message<?> message, Class<?> type) {
        if (type.isInstance(message.getPayload())) {
            return message.getPayload();
        }
        Object converted = converter.fromMessage(message, type);
        if (converted == null) {
            throw new IllegalStateException("cannot convert a " + message.getHeaders().get(MessageHeaders.CONTENT_TYPE)
                    + " payload to " + type.getName());
        }
        return converted;
    }

    private static @Nullable MimeType asMimeType(@Nullable Object value) {
        if (value instanceof MimeType m) {
            return m;
        }
        if (value instanceof String s && !s.isBlank()) {
            return MimeTypeUtils.parseMimeType(s);
        }
        return null;
    }
}
