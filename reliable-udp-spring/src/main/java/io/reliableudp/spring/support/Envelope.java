package io.reliableudp.spring.support;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.util.MimeType;

/**
 * A decoded envelope: the content type, the carried headers and the body bytes.
 *
 * @param contentType the content type the sender's converter produced, or null
 * @param headers carried headers (String, Integer, Long, Double, Boolean or byte[] values)
 * @param body the converted payload bytes
 * @param enveloped false when the payload carried no envelope (a raw payload from a non-Spring sender)
 */
public record Envelope(@Nullable MimeType contentType, Map<String, Object> headers, byte[] body, boolean enveloped) {
}
