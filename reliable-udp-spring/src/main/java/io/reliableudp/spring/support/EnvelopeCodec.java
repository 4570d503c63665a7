package io.reliableudp.spring.support;

import io.reliableudp.Varint;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

/**
 * Encodes and decodes the compact envelope that carries the content type and headers inside a message
 * payload, so the receiver can convert the payload back and continue the sender's trace.
 *
 * <pre>
 * byte 0      0xCE              magic
 * byte 1      0x01 or 0x02      envelope version (2 only when one of the fields below is used)
 * version 2 only:
 *   byte      flags             bit 0 request (expects a reply), bit 1 reply, bit 2 error reply,
 *                               bit 3 type id present, bit 4 processed acknowledgement requested
 *                               (the sender waits until the listener returned); other bits 0
 *   8 bytes   correlation id    big-endian, when request, reply or processed acknowledgement
 *   string    type id           when bit 3 (varint length + UTF-8, 1..255 bytes)
 * byte        content type code 0 none, 1 application/octet-stream, 2 text/plain;charset=UTF-8,
 *                               3 application/json, 255 other: followed by a string (below)
 * varint      header count      (unsigned LEB128 of {@link Varint}, the core's one varint; at most 255 headers)
 * per header  key               string: varint byte length + UTF-8 (at most 255 bytes)
 *             type tag          0 string, 1 int (4 bytes), 2 long (8), 3 double (8), 4 boolean (1), 5 bytes
 *             value             string/bytes: varint length + bytes; numbers big-endian
 * rest        body              the converter's bytes, to the end of the payload
 * </pre>
 *
 * A {@code byte[]} with no headers costs 4 bytes of envelope (version 1). A message without request,
 * reply or type id is written as version 1, so a node of the previous release reads it; version 2 adds
 * the flags byte, 8 bytes of correlation id and the type id. Header values of other types are sent as
 * their {@code toString()} when they are a {@link UUID} or a {@link MimeType}, and are left out otherwise.
 * Decoding never throws for any input except {@link EnvelopeException} with the reason.
 */
public final class EnvelopeCodec {

    /** First byte of every envelope. */
    public static final int MAGIC = 0xCE;
    /** Envelope version of a message without request/reply or type id (what the previous release wrote). */
    public static final int VERSION = 1;
    /** Envelope version with flags, correlation id and type id. */
    public static final int VERSION_2 = 2;
    /** Flag: a request; the receiver answers with a reply of the same correlation id. */
    public static final int FLAG_REQUEST = 1;
    /** Flag: a reply to the request of the same correlation id. */
    public static final int FLAG_REPLY = 2;
    /**
     * Flag (with {@link #FLAG_REPLY}): the listener failed; the type id is the failure's category, the
     * body empty or, when the receiver is configured to say more, the exception's message.
     */
    public static final int FLAG_ERROR = 4;
    private static final int FLAG_TYPE = 8;
    /**
     * Flag: a one-way message whose sender waits until the listener handled it; the receiver answers
     * with an empty reply of the same correlation id once the listener returned, or an error reply.
     */
    public static final int FLAG_ACK = 16;
    private static final int KNOWN_FLAGS = FLAG_REQUEST | FLAG_REPLY | FLAG_ERROR | FLAG_TYPE | FLAG_ACK;
    private static final int MAX_TYPE_ID_BYTES = 255;

    private static final int MAX_HEADERS = 255;
    private static final int MAX_KEY_BYTES = 255;
    private static final MimeType TEXT_UTF8 = new MimeType("text", "plain", StandardCharsets.UTF_8);

    private EnvelopeCodec() {
    }

    /** Whether a header value can be carried (after {@link #carriable}). */
    static boolean isCarriable(@Nullable Object value) {
        return value instanceof String || value instanceof Integer || value instanceof Long
                || value instanceof Double || value instanceof Boolean || value instanceof byte[]
                || value instanceof Short || value instanceof Byte || value instanceof Float
                || value instanceof UUID || value instanceof MimeType;
    }

    /**
     * Encodes an envelope.
     *
     * @param contentType the body's content type, or null
     * @param headers headers to carry; values of types that cannot be carried are left out
     * @param body the body bytes
     * @return the payload to send
     */
    public static byte[] encode(@Nullable MimeType contentType, Map<String, ?> headers, byte[] body) {
        return encode(contentType, headers, body, 0, 0, null);
    }

    /**
     * Encodes an envelope with the fields of version 2 (version 1 when flags is 0 and there is no type id).
     *
     * @param contentType the body's content type, or null
     * @param headers headers to carry; values of types that cannot be carried are left out
     * @param body the body bytes
     * @param flags {@link #FLAG_REQUEST}, {@link #FLAG_ACK}, {@link #FLAG_REPLY}, {@link #FLAG_REPLY} | {@link #FLAG_ERROR}, or 0
     * @param correlationId the request's id (written with a request, acknowledgement or reply flag)
     * @param typeId the payload's type id (1..255 UTF-8 bytes), or null
     * @return the payload to send
     * @throws EnvelopeException when the flags or the type id are not allowed
     */
    public static byte[] encode(@Nullable MimeType contentType, Map<String, ?> headers, byte[] body, int flags,
            long correlationId, @Nullable String typeId) {
        checkFlags(flags);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 16 + headers.size() * 24);
        out.write(MAGIC);
        if (flags == 0 && typeId == null) {
            out.write(VERSION);
        } else {
            out.write(VERSION_2);
            out.write(flags | (typeId != null ? FLAG_TYPE : 0));
            if ((flags & (FLAG_REQUEST | FLAG_REPLY | FLAG_ACK)) != 0) {
                writeLong(out, correlationId);
            }
            if (typeId != null) {
                byte[] t = typeId.getBytes(StandardCharsets.UTF_8);
                if (t.length == 0 || t.length > MAX_TYPE_ID_BYTES) {
                    throw new EnvelopeException("a type id must have 1.." + MAX_TYPE_ID_BYTES + " bytes, had " + t.length);
                }
                writeVarint(out, t.length);
                out.writeBytes(t);
            }
        }
        int code = contentTypeCode(contentType);
        out.write(code);
        if (code == 255) {
            writeString(out, contentType.toString());
        }
        int count = 0;
        for (Map.Entry<String, ?> e : headers.entrySet()) {
            if (isCarriable(e.getValue())) {
                count++;
            }
        }
        if (count > MAX_HEADERS) {
            throw new EnvelopeException("at most " + MAX_HEADERS + " headers can be carried, had " + count);
        }
        writeVarint(out, count);
        for (Map.Entry<String, ?> e : headers.entrySet()) {
            Object v = e.getValue();
            if (!isCarriable(v)) {
                continue;
            }
            byte[] key = e.getKey().getBytes(StandardCharsets.UTF_8);
            if (key.length > MAX_KEY_BYTES) {
                throw new EnvelopeException("header name longer than " + MAX_KEY_BYTES + " bytes: " + e.getKey());
            }
            writeVarint(out, key.length);
            out.writeBytes(key);
            switch (v) {
                case String s -> { out.write(0); writeString(out, s); }
                case Integer i -> { out.write(1); writeInt(out, i); }
                case Short s -> { out.write(1); writeInt(out, s); }
                case Byte b -> { out.write(1); writeInt(out, b); }
                case Long l -> { out.write(2); writeLong(out, l); }
                case Double d -> { out.write(3); writeLong(out, Double.doubleToRawLongBits(d)); }
                case Float f -> { out.write(3); writeLong(out, Double.doubleToRawLongBits(f)); }
                case Boolean b -> { out.write(4); out.write(b ? 1 : 0); }
                case byte[] bytes -> { out.write(5); writeVarint(out, bytes.length); out.writeBytes(bytes); }
                default -> { out.write(0); writeString(out, String.valueOf(v)); }
            }
        }
        out.writeBytes(body);
        return out.toByteArray();
    }

    /**
     * Decodes a payload. A payload that does not start with the magic and version is returned as a raw
     * body with no content type and no headers (so peers using the plain core API interoperate).
     *
     * @param payload the received payload
     * @return the envelope
     * @throws EnvelopeException when the payload starts like an envelope but is malformed
     */
    public static Envelope decode(byte[] payload) {
        if (payload.length < 4 || (payload[0] & 0xFF) != MAGIC || (payload[1] != VERSION && payload[1] != VERSION_2)) {
            return new Envelope(null, Map.of(), payload, false);
        }
        Reader r = new Reader(payload, 2);
        int flags = 0;
        long correlationId = 0;
        String typeId = null;
        if (payload[1] == VERSION_2) {
            flags = r.u8();
            if ((flags & ~KNOWN_FLAGS) != 0) {
                throw new EnvelopeException("unknown envelope flags " + Integer.toHexString(flags));
            }
            try {
                checkFlags(flags & ~FLAG_TYPE);
            } catch (EnvelopeException e) {
                throw new EnvelopeException("malformed envelope flags: " + e.getMessage());
            }
            if ((flags & (FLAG_REQUEST | FLAG_REPLY | FLAG_ACK)) != 0) {
                correlationId = r.int64();
            }
            if ((flags & FLAG_TYPE) != 0) {
                typeId = r.string(MAX_TYPE_ID_BYTES);
                if (typeId.isEmpty()) {
                    throw new EnvelopeException("empty type id");
                }
            }
            flags &= ~FLAG_TYPE;
        }
        int code = r.u8();
        MimeType contentType = switch (code) {
            case 0 -> null;
            case 1 -> MimeTypeUtils.APPLICATION_OCTET_STREAM;
            case 2 -> TEXT_UTF8;
            case 3 -> MimeTypeUtils.APPLICATION_JSON;
            case 255 -> parseMime(r.string(MAX_KEY_BYTES));
            default -> throw new EnvelopeException("unknown content type code " + code);
        };
        int count = r.varint();
        if (count > MAX_HEADERS) {
            throw new EnvelopeException("too many headers: " + count);
        }
        Map<String, Object> headers = new LinkedHashMap<>(Math.max(4, count * 2));
        for (int i = 0; i < count; i++) {
            String key = r.string(MAX_KEY_BYTES);
            int type = r.u8();
            Object value = switch (type) {
                case 0 -> r.string(Integer.MAX_VALUE);
                case 1 -> r.int32();
                case 2 -> r.int64();
                case 3 -> Double.longBitsToDouble(r.int64());
                case 4 -> r.u8() != 0;
                case 5 -> r.bytes(r.varint());
                default -> throw new EnvelopeException("unknown header type " + type + " for header " + key);
            };
            headers.put(key, value);
        }
        byte[] body = new byte[payload.length - r.pos];
        System.arraycopy(payload, r.pos, body, 0, body.length);
        return new Envelope(contentType, headers, body, true, flags, correlationId, typeId);
    }

    /**
     * Whether a payload is a reply (version 2 with the reply flag, at least the 4 bytes every envelope
     * has), read from its first three bytes
     * without decoding or allocating: the receive thread routes replies to the template with it.
     *
     * @param payload a received payload
     * @return true for a reply
     */
    public static boolean isReply(byte[] payload) {
        // at least 4 bytes, as decode requires: a shorter payload is a raw body there, so it is no reply here
        return payload.length >= 4 && (payload[0] & 0xFF) == MAGIC && payload[1] == VERSION_2 && (payload[2] & FLAG_REPLY) != 0;
    }

    /**
     * Whether a payload asks for a processed acknowledgement (version 2 with {@link #FLAG_ACK}), read
     * from its first three bytes without decoding.
     *
     * @param payload a received payload
     * @return true when the sender waits until a listener handled it
     */
    public static boolean isAckRequested(byte[] payload) {
        return payload.length >= 3 && (payload[0] & 0xFF) == MAGIC && payload[1] == VERSION_2 && (payload[2] & FLAG_ACK) != 0;
    }

    private static void checkFlags(int flags) {
        if ((flags & ~(FLAG_REQUEST | FLAG_REPLY | FLAG_ERROR | FLAG_ACK)) != 0) {
            throw new EnvelopeException("unknown flags " + Integer.toHexString(flags));
        }
        if (Integer.bitCount(flags & (FLAG_REQUEST | FLAG_REPLY | FLAG_ACK)) > 1) {
            throw new EnvelopeException("a message is a request, an acknowledged message or a reply, only one of them");
        }
        if ((flags & FLAG_ERROR) != 0 && (flags & FLAG_REPLY) == 0) {
            throw new EnvelopeException("the error flag needs the reply flag");
        }
    }

    private static MimeType parseMime(String text) {
        try {
            return MimeTypeUtils.parseMimeType(text);
        } catch (RuntimeException e) {
            throw new EnvelopeException("malformed content type");
        }
    }

    private static int contentTypeCode(@Nullable MimeType type) {
        if (type == null) {
            return 0;
        }
        if (type.equalsTypeAndSubtype(MimeTypeUtils.APPLICATION_OCTET_STREAM) && type.getParameters().isEmpty()) {
            return 1;
        }
        if (type.equalsTypeAndSubtype(MimeTypeUtils.TEXT_PLAIN)
                && StandardCharsets.UTF_8.equals(type.getCharset()) && type.getParameters().size() == 1) {
            return 2;
        }
        if (type.equalsTypeAndSubtype(MimeTypeUtils.APPLICATION_JSON)
                && (type.getParameters().isEmpty() || (StandardCharsets.UTF_8.equals(type.getCharset()) && type.getParameters().size() == 1))) {
            return 3;
        }
        return 255;
    }

    private static void writeString(ByteArrayOutputStream out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeVarint(out, b.length);
        out.writeBytes(b);
    }

    /** Lengths and counts: the core's {@link Varint} (unsigned LEB128), the frame lengths' codec. */
    private static void writeVarint(ByteArrayOutputStream out, int value) {
        byte[] b = new byte[Varint.MAX_BYTES];
        out.write(b, 0, Varint.write(b, 0, value));
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    private static void writeLong(ByteArrayOutputStream out, long v) {
        writeInt(out, (int) (v >>> 32));
        writeInt(out, (int) v);
    }

    private static final class Reader {
        private final byte[] data;
        private int pos;

        Reader(byte[] data, int pos) {
            this.data = data;
            this.pos = pos;
        }

        private void need(int n) {
            if (n < 0 || n > data.length - pos) {
                throw new EnvelopeException("envelope truncated at byte " + pos);
            }
        }

        int u8() {
            need(1);
            return data[pos++] & 0xFF;
        }

        int varint() {
            long r = Varint.read(data, pos, data.length);
            if (r == Varint.INVALID) {
                // the bytes left all say "another byte follows": cut off, else too long or above 2^31 - 1
                int p = pos;
                while (p < data.length && p - pos < Varint.MAX_BYTES && (data[p] & 0x80) != 0) {
                    p++;
                }
                throw new EnvelopeException(p == data.length ? "envelope truncated at byte " + p : "malformed length at byte " + pos);
            }
            pos += Varint.length(r);
            return Varint.value(r);
        }

        int int32() {
            need(4);
            int v = ((data[pos] & 0xFF) << 24) | ((data[pos + 1] & 0xFF) << 16) | ((data[pos + 2] & 0xFF) << 8) | (data[pos + 3] & 0xFF);
            pos += 4;
            return v;
        }

        long int64() {
            long hi = int32() & 0xFFFF_FFFFL;
            long lo = int32() & 0xFFFF_FFFFL;
            return (hi << 32) | lo;
        }

        byte[] bytes(int n) {
            need(n);
            byte[] b = new byte[n];
            System.arraycopy(data, pos, b, 0, n);
            pos += n;
            return b;
        }

        String string(int maxBytes) {
            int n = varint();
            if (n > maxBytes) {
                throw new EnvelopeException("string of " + n + " bytes is longer than " + maxBytes);
            }
            return new String(bytes(n), StandardCharsets.UTF_8);
        }
    }
}
