package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.InvalidConfigurationException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeIdentityTest {

    /** RFC 7748 section 6.1: Alice's private and public key. */
    private static final byte[] ALICE_PRIVATE = HexFormat.of().parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    private static final byte[] ALICE_PUBLIC = HexFormat.of().parseHex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");

    /** The same key as openssl writes it (PKCS#8 and X.509 DER with the fixed X25519 prefixes). */
    private static String pem(String label, String prefixHex, byte[] raw) {
        byte[] prefix = HexFormat.of().parseHex(prefixHex);
        byte[] der = new byte[prefix.length + raw.length];
        System.arraycopy(prefix, 0, der, 0, prefix.length);
        System.arraycopy(raw, 0, der, prefix.length, raw.length);
        return "-----BEGIN " + label + "-----\n" + Base64.getMimeEncoder().encodeToString(der) + "\n-----END " + label + "-----\n";
    }

    @Test
    void thePublicKeyIsRfc7748sForEveryFormOfThePrivateKey() {
        assertThat(NodeIdentity.fromPrivateKey(ALICE_PRIVATE).publicKey().bytes()).isEqualTo(ALICE_PUBLIC);
        assertThat(NodeIdentity.fromBase64(Base64.getEncoder().encodeToString(ALICE_PRIVATE)).publicKey().bytes())
                .isEqualTo(ALICE_PUBLIC);
        String pkcs8 = pem("PRIVATE KEY", "302e020100300506032b656e04220420", ALICE_PRIVATE);
        assertThat(NodeIdentity.fromBase64(pkcs8).publicKey().bytes()).isEqualTo(ALICE_PUBLIC);
        String x509 = pem("PUBLIC KEY", "302a300506032b656e032100", ALICE_PUBLIC);
        assertThat(PeerKey.fromBase64(x509)).isEqualTo(new PeerKey(ALICE_PUBLIC));
        assertThat(PeerKey.fromBase64(Base64.getEncoder().encodeToString(ALICE_PUBLIC)).toBase64())
                .isEqualTo(Base64.getEncoder().encodeToString(ALICE_PUBLIC));
    }

    @Test
    void aGeneratedIdentityRoundTripsAndNeverShowsItsPrivateKey() {
        NodeIdentity id = NodeIdentity.generate();
        String priv = id.privateKeyBase64();
        NodeIdentity again = NodeIdentity.fromBase64(priv);
        assertThat(again.publicKey()).isEqualTo(id.publicKey());
        assertThat(id.toString()).doesNotContain(priv).contains(id.publicKey().toBase64()).contains("[redacted]");
        assertThat(id.publicKey().toString()).isEqualTo(id.publicKey().toBase64());
        byte[] copy = id.publicKey().bytes();
        copy[0] ^= 1;
        assertThat(id.publicKey().bytes()).isNotEqualTo(copy);
        NodeConfig config = NodeConfig.builder().identity(id).allowedPeers(List.of(new PeerIdentity("a", again.publicKey()))).build();
        assertThat(config.toString()).doesNotContain(priv);
        assertThat(config.encrypted()).isTrue();
        assertThat(config.toBuilder().build().allowedPeers()).hasSize(1);
    }

    @Test
    void wrongKeysAndHalfConfiguredIdentitiesAreRefusedClearly() {
        assertThatThrownBy(() -> PeerKey.fromBase64("AAAA")).hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> NodeIdentity.fromBase64("not base64!")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeIdentity.fromPrivateKey(new byte[31])).hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> NodeConfig.builder().identity(NodeIdentity.generate()).build())
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("allowedPeers is empty");
        assertThatThrownBy(() -> NodeConfig.builder()
                .allowedPeers(List.of(new PeerIdentity("a", NodeIdentity.generate().publicKey()))).build())
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("identity is not");
        assertThatThrownBy(() -> new PeerIdentity(" ", NodeIdentity.generate().publicKey())).hasMessageContaining("name");
    }
}
