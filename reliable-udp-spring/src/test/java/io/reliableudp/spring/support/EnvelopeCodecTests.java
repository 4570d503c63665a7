package io.reliableudp.spring.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

class EnvelopeCodecTests {

    @Test
    void lengthsAreTheCoresVarintSoAFifthByteAbove31BitsIsMalformed() {
        // header count 80 80 80 80 10: bit 32 set, which no writer produces; read as 0 headers it would hide the garbage
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 0, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x10, 'x'}))
                .isInstanceOf(EnvelopeException.class).hasMessageContaining("malformed length");
        // the longest valid count field still reads (a longer-than-shortest 0, as the frame lengths accept)
        assertThat(EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 0, (byte) 0x80, 0, 'x'}).body()).containsExactly('x');
        // cut off inside the varint: truncated, as before
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 0, (byte) 0x80}))
                .isInstanceOf(EnvelopeException.class).hasMessageContaining("truncated");
    }

    @Test
    void bytesWithoutHeadersCostFiveBytes() {
        byte[] wire = EnvelopeCodec.encode(MimeTypeUtils.APPLICATION_OCTET_STREAM, Map.of(), new byte[] {7, 8});
        assertThat(wire).containsExactly(0xCE - 256, 1, 1, 0, 7, 8);
    }

    @Test
    void documentedLayout() {
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("k", "v");
        headers.put("n", 258);
        byte[] wire = EnvelopeCodec.encode(MimeTypeUtils.APPLICATION_JSON, headers, "{}".getBytes(StandardCharsets.UTF_8));
        // magic, version, json, 2 headers, "k" string "v", "n" int 258, body
        assertThat(HexFormat.of().formatHex(wire)).isEqualTo("ce0103" + "02" + "016b" + "00" + "0176" + "016e" + "01" + "00000102" + "7b7d");
    }

    @Test
    void roundTripOfEveryHeaderType() {
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("s", "text é");
        headers.put("i", -5);
        headers.put("l", Long.MIN_VALUE);
        headers.put("d", 2.5);
        headers.put("b", true);
        headers.put("bytes", new byte[] {1, 2, 3});
        UUID uuid = UUID.randomUUID();
        headers.put("uuid", uuid);
        headers.put("skipped", new Object());
        MimeType custom = MimeType.valueOf("application/x-protobuf;proto=Foo");
        Envelope e = EnvelopeCodec.decode(EnvelopeCodec.encode(custom, headers, new byte[] {9}));
        assertThat(e.enveloped()).isTrue();
        assertThat(e.contentType()).isEqualTo(custom);
        assertThat(e.body()).containsExactly(9);
        assertThat(e.headers()).containsEntry("s", "text é").containsEntry("i", -5).containsEntry("l", Long.MIN_VALUE)
                .containsEntry("d", 2.5).containsEntry("b", true).containsEntry("uuid", uuid.toString()).doesNotContainKey("skipped");
        assertThat((byte[]) e.headers().get("bytes")).containsExactly(1, 2, 3);
    }

    @Test
    void textAndJsonHaveShortCodes() {
        assertThat(EnvelopeCodec.encode(new MimeType("text", "plain", StandardCharsets.UTF_8), Map.of(), new byte[0])[2]).isEqualTo((byte) 2);
        assertThat(EnvelopeCodec.encode(MimeTypeUtils.APPLICATION_JSON, Map.of(), new byte[0])[2]).isEqualTo((byte) 3);
        assertThat(EnvelopeCodec.encode(null, Map.of(), new byte[0])[2]).isEqualTo((byte) 0);
    }

    @Test
    void aRawPayloadPassesThrough() {
        byte[] raw = "hello".getBytes(StandardCharsets.UTF_8);
        Envelope e = EnvelopeCodec.decode(raw);
        assertThat(e.enveloped()).isFalse();
        assertThat(e.body()).isSameAs(raw);
        assertThat(e.contentType()).isNull();
        assertThat(e.headers()).isEmpty();
    }

    @Test
    void malformedEnvelopesAreRejectedWithAReason() {
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 9, 0})).isInstanceOf(EnvelopeException.class).hasMessageContaining("content type");
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 0, 1, 5, 'a'})).isInstanceOf(EnvelopeException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 0, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x7F}))
                .isInstanceOf(EnvelopeException.class);
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 1, 0, 1, 1, 'k', 9})).isInstanceOf(EnvelopeException.class).hasMessageContaining("header type");
    }

    @Test
    void randomBytesNeverThrowAnythingButEnvelopeException() {
        Random random = new Random(42);
        for (int i = 0; i < 200_000; i++) {
            byte[] data = new byte[random.nextInt(40)];
            random.nextBytes(data);
            if (data.length > 2 && random.nextBoolean()) {
                data[0] = (byte) 0xCE;
                data[1] = (byte) (1 + random.nextInt(2));
            }
            try {
                Envelope e = EnvelopeCodec.decode(data);
                assertThat(e.body().length).isLessThanOrEqualTo(data.length);
            } catch (EnvelopeException expected) {
                // a counted, logged rejection in the containers
            }
        }
    }

    @Test
    void versionTwoCarriesFlagsCorrelationIdAndTypeIdAndIsOnlyWrittenWhenUsed() {
        byte[] request = EnvelopeCodec.encode(MimeTypeUtils.APPLICATION_JSON, Map.of(), "{}".getBytes(StandardCharsets.UTF_8),
                EnvelopeCodec.FLAG_REQUEST, 0x0102030405060708L, "pos");
        // magic, version 2, flags request|type, correlation id, type id "pos", json, 0 headers, body
        assertThat(HexFormat.of().formatHex(request)).isEqualTo("ce02" + "09" + "0102030405060708" + "03706f73" + "03" + "00" + "7b7d");
        Envelope e = EnvelopeCodec.decode(request);
        assertThat(e.isRequest()).isTrue();
        assertThat(e.isReply()).isFalse();
        assertThat(e.correlationId()).isEqualTo(0x0102030405060708L);
        assertThat(e.typeId()).isEqualTo("pos");
        assertThat(e.flags()).isEqualTo(EnvelopeCodec.FLAG_REQUEST);
        assertThat(EnvelopeCodec.isReply(request)).isFalse();

        byte[] error = EnvelopeCodec.encode(null, Map.of(), new byte[0], EnvelopeCodec.FLAG_REPLY | EnvelopeCodec.FLAG_ERROR, -1L, null);
        assertThat(EnvelopeCodec.isReply(error)).isTrue();
        Envelope r = EnvelopeCodec.decode(error);
        assertThat(r.isReply()).isTrue();
        assertThat(r.isError()).isTrue();
        assertThat(r.correlationId()).isEqualTo(-1L);
        assertThat(r.typeId()).isNull();

        // without any of them the previous release's version 1 is written, byte for byte
        assertThat(EnvelopeCodec.encode(null, Map.of(), new byte[] {5}, 0, 99, null))
                .containsExactly(EnvelopeCodec.encode(null, Map.of(), new byte[] {5}));
        assertThat(EnvelopeCodec.isReply(EnvelopeCodec.encode(null, Map.of(), new byte[0]))).isFalse();
    }

    @Test
    void aProcessedAcknowledgementCarriesItsCorrelationIdAndIsNotAReply() {
        byte[] wire = EnvelopeCodec.encode(null, Map.of(), new byte[] {9}, EnvelopeCodec.FLAG_ACK, 0x1234_5678_9ABCL, null);
        Envelope e = EnvelopeCodec.decode(wire);
        assertThat(e.isAckRequested()).isTrue();
        assertThat(e.isRequest()).isFalse();
        assertThat(e.isReply()).isFalse();
        assertThat(e.correlationId()).isEqualTo(0x1234_5678_9ABCL);
        assertThat(e.body()).containsExactly(9);
        assertThat(EnvelopeCodec.isReply(wire)).isFalse();
    }

    @Test
    void contradictoryOrUnknownFlagsAreRejected() {
        assertThatThrownBy(() -> EnvelopeCodec.encode(null, Map.of(), new byte[0], EnvelopeCodec.FLAG_REQUEST | EnvelopeCodec.FLAG_REPLY, 1, null))
                .isInstanceOf(EnvelopeException.class).hasMessageContaining("only one");
        assertThatThrownBy(() -> EnvelopeCodec.encode(null, Map.of(), new byte[0], EnvelopeCodec.FLAG_ACK | EnvelopeCodec.FLAG_REPLY, 1, null))
                .isInstanceOf(EnvelopeException.class).hasMessageContaining("only one");
        assertThatThrownBy(() -> EnvelopeCodec.encode(null, Map.of(), new byte[0], EnvelopeCodec.FLAG_ERROR, 1, null))
                .isInstanceOf(EnvelopeException.class).hasMessageContaining("reply flag");
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 2, 0x20, 0, 0})).isInstanceOf(EnvelopeException.class)
                .hasMessageContaining("flags");
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isInstanceOf(EnvelopeException.class).hasMessageContaining("only one");
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 2, 1, 0, 0})).isInstanceOf(EnvelopeException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 2, 8, 0, 0, 0})).isInstanceOf(EnvelopeException.class)
                .hasMessageContaining("type id");
        // an unknown future version stays a raw payload, as before
        assertThat(EnvelopeCodec.decode(new byte[] {(byte) 0xCE, 3, 0, 0}).enveloped()).isFalse();
    }

    @Test
    void tooManyHeaders() {
        Map<String, Object> headers = new LinkedHashMap<>();
        for (int i = 0; i < 300; i++) {
            headers.put("h" + i, i);
        }
        assertThatThrownBy(() -> EnvelopeCodec.encode(null, headers, new byte[0])).isInstanceOf(EnvelopeException.class);
    }
}
