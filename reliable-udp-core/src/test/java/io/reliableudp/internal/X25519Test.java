package io.reliableudp.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.security.PrivateKey;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class X25519Test {

    private static final HexFormat HEX = HexFormat.of();

    /** RFC 7748 section 6.1: Alice and Bob agree on the same secret. */
    @Test
    void rfc7748Vector() {
        PrivateKey alice = X25519.privateKey(HEX.parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"));
        PrivateKey bob = X25519.privateKey(HEX.parseHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"));
        byte[] shared = HEX.parseHex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");
        assertThat(X25519.agree(alice, X25519.publicKeyOf(bob))).isEqualTo(shared);
        assertThat(X25519.agree(bob, X25519.publicKeyOf(alice))).isEqualTo(shared);
        assertThat(HEX.formatHex(X25519.publicKeyOf(bob))).isEqualTo("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    }

    /** Hostile public keys (low order, out of range, all ones) are refused with IllegalArgumentException or agreed on; nothing else escapes. */
    @Test
    void hostilePublicKeysNeverThrowAnythingButIllegalArgument() {
        PrivateKey k = X25519.generate().getPrivate();
        BigInteger p = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
        BigInteger[] us = {BigInteger.ZERO, BigInteger.ONE, p.subtract(BigInteger.ONE), p, p.add(BigInteger.ONE),
            BigInteger.TWO.pow(255).subtract(BigInteger.ONE), BigInteger.TWO.pow(256).subtract(BigInteger.ONE)};
        for (BigInteger u : us) {
            byte[] le = new byte[32];
            byte[] be = u.toByteArray();
            for (int i = 0; i < 32 && i < be.length; i++) {
                le[i] = be[be.length - 1 - i];
            }
            try {
                assertThat(X25519.agree(k, le)).hasSize(32);
            } catch (IllegalArgumentException refused) {
                // refused: fine
            }
        }
        assertThatThrownBy(() -> X25519.agree(k, new byte[32])).isInstanceOf(IllegalArgumentException.class);
    }
}
