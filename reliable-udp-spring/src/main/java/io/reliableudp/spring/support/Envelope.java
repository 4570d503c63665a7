package io.reliableudp.spring.support;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.util.MimeType;

/**
 * A decoded envelope: the content type, the carried headers, the body bytes, and (version 2) the
 * request/reply flags, the correlation id and the type id.
 *
 * @param contentType the content type the sender's converter produced, or null
 * @param headers carried headers (String, Integer, Long, Double, Boolean or byte[] values)
 * @param body the converted payload bytes
 * @param enveloped false when the payload carried no envelope (a raw payload from a non-Spring sender)
 * @param flags {@link EnvelopeCodec#FLAG_REQUEST}, {@link EnvelopeCodec#FLAG_ACK}, {@link EnvelopeCodec#FLAG_REPLY}, {@link EnvelopeCodec#FLAG_ERROR}
 * @param correlationId the request's id (with a request, acknowledgement or reply flag), else 0
 * @param typeId the payload's type id (of an error reply: the failure's category), or null
 */
public record Envelope(@Nullable MimeType contentType, Map<String, Object> headers, byte[] body, boolean enveloped,
        int flags, long correlationId, @Nullable String typeId) {

    /**
     * An envelope of version 1 (no flags, no type id).
     *
     * @param contentType the content type, or null
     * @param headers carried headers
     * @param body the body
     * @param enveloped false for a raw payload
     */
    public Envelope(@Nullable MimeType contentType, Map<String, Object> headers, byte[] body, boolean enveloped) {
        this(contentType, headers, body, enveloped, 0, 0, null);
    }

    /** Whether the sender waits for a reply. */
    public boolean isRequest() {
        return (flags & EnvelopeCodec.FLAG_REQUEST) != 0;
    }

    /** Whether the sender waits until the listener handled this one-way message (a processed acknowledgement). */
    public boolean isAckRequested() {
        return (flags & EnvelopeCodec.FLAG_ACK) != 0;
    }

    /** Whether this answers a request. */
    public boolean isReply() {
        return (flags & EnvelopeCodec.FLAG_REPLY) != 0;
    }

    /** Whether this reply says the remote listener failed. */
    public boolean isError() {
        return (flags & EnvelopeCodec.FLAG_ERROR) != 0;
    }
}
