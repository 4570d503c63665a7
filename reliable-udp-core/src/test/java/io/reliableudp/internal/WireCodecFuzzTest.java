package io.reliableudp.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz target for the varint reader, the one {@link WireCodec} decoder that sees untrusted
 * bytes (every message frame's lengths). In the normal build it runs in regression mode over the seeds
 * in {@code src/test/resources/io/reliableudp/internal/WireCodecFuzzTestInputs/}; fuzz for real with
 * {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-core test -Dtest=WireCodecFuzzTest}.
 */
class WireCodecFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void readVarint(FuzzedDataProvider data) {
        int start = data.consumeInt(0, 8);
        byte[] bytes = data.consumeRemainingAsBytes();
        int pos = Math.min(start, bytes.length);
        long r = WireCodec.readVarint(bytes, pos, bytes.length);
        long expected = WireCodecPropertyTest.model(bytes, pos, bytes.length);
        if (r != expected) {
            throw new IllegalStateException("read " + Long.toHexString(r) + ", the model " + Long.toHexString(expected));
        }
        if (r == WireCodec.VARINT_INVALID) {
            return;
        }
        int value = WireCodec.varintValue(r);
        int length = WireCodec.varintLength(r);
        if (value < 0 || length < 1 || length > WireCodec.MAX_VARINT_BYTES || pos + length > bytes.length) {
            throw new IllegalStateException("value " + value + ", length " + length + " from " + bytes.length + " bytes");
        }
        // the shortest form is never longer than what was read, and reads back the same
        byte[] canonical = new byte[WireCodec.MAX_VARINT_BYTES];
        int written = WireCodec.writeVarint(canonical, 0, value);
        long again = WireCodec.readVarint(canonical, 0, written);
        if (written > length || WireCodec.varintValue(again) != value || WireCodec.varintLength(again) != written) {
            throw new IllegalStateException("shortest form of " + value + " does not round-trip");
        }
    }
}
