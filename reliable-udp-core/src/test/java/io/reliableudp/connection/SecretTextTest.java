package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The key material of the connection layer never shows in a toString (moved here from the transport's NodeConfigTest). */
class SecretTextTest {

    @Test
    void keysAndCiphersNeverShowTheKey() {
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) 0x5c);
        for (String text : new String[] {new Aead(key).toString(), Transcript.start().toString(),
                Credentials.of(io.reliableudp.internal.X25519.privateKey(key), List.of(key), List.of("a")).toString()}) {
            assertThat(text).doesNotContain(Base64.getEncoder().encodeToString(key))
                    .doesNotContain(HexFormat.of().formatHex(key)).doesNotContain("92, 92");
        }
    }
}
